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
      'Adds a new project to Context Forge (it appears in the desktop app too) and returns it with its new ID. ' +
      `Set projectPath to the project root so ${toolRef('context_build')} and the prompt tools can read its prompt file. ` +
      `Check ${toolRef('project_list')} first so you do not create a duplicate.`,
    inputSchema: z.strictObject({ ...z.object(projectFields).partial().shape, name, template, slice }),
    outputSchema: projectOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: (input) => store().create(input),
  });
