import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import type { ForgeClient } from '../runtime.js';
import { qaItemSchema, ticketIdSchema, ticketPath } from './shared.js';

export const createStartImplementation = (client: ForgeClient) =>
  defineTool({
    name: 'start_implementation',
    title: 'Start implementing a Forge ticket',
    description: `Records the branch the work happens on and optional preparation Q&A, and moves the Forge ticket to 'executing'. Call it after creating the branch, before writing code; then report with ${toolRef('report_decision')}, ${toolRef('report_risk')} and ${toolRef('report_scope_change')}, and finish with ${toolRef('submit_settlement')}.`,
    inputSchema: z.strictObject({
      ticketId: ticketIdSchema,
      branchName: z
        .string()
        .trim()
        .max(200)
        .regex(
          /^forge\/[A-Za-z0-9._/-]+$/,
          'must start with "forge/" followed by letters, digits, ".", "_", "-" or "/", e.g. "forge/FOR-12-add-login"',
        )
        .describe('The git branch, e.g. "forge/FOR-12-add-login"'),
      qaItems: z
        .array(qaItemSchema)
        .max(50)
        .optional()
        .describe('Questions and answers from preparing the work'),
    }),
    outputSchema: z.object({
      success: z.boolean(),
      ticketId: z.string(),
      branchName: z.string(),
      status: z.string(),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    handler: async ({ ticketId, branchName, qaItems }, { signal }) => {
      const result = await client.request<Record<string, unknown> | undefined>(
        'POST',
        ticketPath(ticketId, '/start-implementation'),
        { body: qaItems === undefined ? { branchName } : { branchName, qaItems }, signal, ticketId },
      );
      return {
        success: result?.success !== false,
        ticketId: typeof result?.ticketId === 'string' ? result.ticketId : ticketId,
        branchName: typeof result?.branchName === 'string' ? result.branchName : branchName,
        status: typeof result?.status === 'string' ? result.status : 'unknown',
      };
    },
  });
