import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { projectRoot, promptFileOf } from '../context/project-files.js';
import { loadPrompts } from '../context/prompts.js';
import type { ProjectStore } from '../store/project-store.js';
import { withOutsideChanges } from './outside-change.js';
import { projectIdSchema } from './schemas.js';

export const createPromptList = (store: () => ProjectStore) =>
  defineTool({
    name: 'prompt_list',
    title: 'List prompt templates',
    description:
      "Lists the prompt templates of a project's prompt file (prompt.ai-project.system.md): name, key, " +
      `parameter count. A project's instruction picks one for ${toolRef('context_build')}; ${toolRef('prompt_get')} shows one in full.`,
    inputSchema: z.strictObject({ projectId: projectIdSchema }),
    outputSchema: z.object({
      templates: z.array(z.object({ name: z.string(), key: z.string(), parameterCount: z.number().int() })),
      count: z.number().int(),
      promptFile: z.string(),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async ({ projectId }) => {
      const project = await store().get(projectId);
      const promptFile = promptFileOf(projectRoot(project, 'listing prompts'));
      const templates = (await loadPrompts(promptFile)).map(({ name, key, parameters }) => ({
        name,
        key,
        parameterCount: parameters.length,
      }));
      return withOutsideChanges({ templates, count: templates.length, promptFile }, [
        store().takeOutsideChange(project),
      ]);
    },
  });
