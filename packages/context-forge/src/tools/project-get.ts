import { defineTool } from '@x/mcp-core';
import { z } from 'zod';
import type { ProjectStore } from '../store/project-store.js';
import { withOutsideChanges } from './outside-change.js';
import { projectIdSchema, projectOutput } from './schemas.js';

export const createProjectGet = (store: () => ProjectStore) =>
  defineTool({
    name: 'project_get',
    title: 'Get a Context Forge project',
    description:
      'Returns every stored field of one project: its settings, its notes (customData) and timestamps.',
    inputSchema: z.strictObject({ id: projectIdSchema }),
    outputSchema: projectOutput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async ({ id }) => {
      const project = await store().get(id);
      return withOutsideChanges(project, [store().takeOutsideChange(project)]);
    },
  });
