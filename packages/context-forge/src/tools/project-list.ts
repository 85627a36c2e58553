import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { summarize } from '../store/project.js';
import type { ProjectStore } from '../store/project-store.js';
import { withOutsideChanges } from './outside-change.js';

export const createProjectList = (store: () => ProjectStore) =>
  defineTool({
    name: 'project_list',
    title: 'List Context Forge projects',
    description:
      'Lists the Context Forge projects (as the desktop app shows them): ID, name, slice, template, ' +
      'instruction, path. The other tools take an ID from here.',
    inputSchema: z.strictObject({}),
    outputSchema: z.object({
      projects: z.array(
        z.looseObject({ id: z.string(), name: z.string().optional(), updatedAt: z.string().optional() }),
      ),
      count: z.number().int(),
      hint: z.string().optional(),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async () => {
      const stored = await store().list();
      const projects = stored.map(summarize);
      return withOutsideChanges(
        {
          projects,
          count: projects.length,
          ...(projects.length === 0
            ? { hint: `No projects yet. Create one with ${toolRef('project_create')}.` }
            : {}),
        },
        stored.map((project) => store().takeOutsideChange(project)),
      );
    },
  });
