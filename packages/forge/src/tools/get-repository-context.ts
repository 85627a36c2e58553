import { defineTool } from '@x/mcp-core';
import { z } from 'zod';
import { readRepository } from '../git/repository.js';

export const createGetRepositoryContext = (cwd: () => string) =>
  defineTool({
    name: 'get_repository_context',
    title: 'Read the local git repository state',
    description:
      'Returns the local git state: current branch, staged, modified and untracked files, the origin remote and the tracked files, read with git here (not from Forge). Use it before implementing a ticket.',
    inputSchema: z.strictObject({
      path: z
        .string()
        .max(4_096)
        .optional()
        .describe("A directory inside the server's working directory (default: that directory)"),
      maxFiles: z
        .number()
        .int()
        .min(1)
        .max(2_000)
        .default(200)
        .describe('Most tracked files to list; totalFiles gives the full count'),
    }),
    outputSchema: z.object({
      path: z.string(),
      root: z.string(),
      branch: z.string().nullable(),
      head: z.string(),
      remote: z.string().nullable(),
      staged: z.array(z.string()),
      modified: z.array(z.string()),
      untracked: z.array(z.string()),
      files: z.array(z.string()),
      totalFiles: z.number(),
      truncated: z.boolean(),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: ({ path, maxFiles }, { signal }) => readRepository(cwd(), path, maxFiles, signal),
  });
