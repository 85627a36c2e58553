import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import type { ProjectStore } from '../store/project-store.js';
import { projectFields, projectOutput } from './schemas.js';

const { name, template, slice } = projectFields;

export const createProjectCreate = (store: () => ProjectStore) =>
  defineTool({
    name: 'project_create',
    title: 'Create a Context Forge project',
    description:
      'Adds a project to Context Forge (the desktop app shows it too) and returns it with its new ID. ' +
      `Set projectPath so ${toolRef('context_build')} and the prompt tools find its prompt file. ` +
      `Check ${toolRef('project_list')} first to avoid a duplicate.`,
    inputSchema: z.strictObject({ ...z.object(projectFields).partial().shape, name, template, slice }),
    outputSchema: projectOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: (input) => store().create(input),
  });
