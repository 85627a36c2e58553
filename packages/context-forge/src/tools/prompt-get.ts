import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { projectRoot, promptFileOf } from '../context/project-files.js';
import { findPrompt, loadPrompts } from '../context/prompts.js';
import type { ProjectStore } from '../store/project-store.js';
import { withOutsideChanges } from './outside-change.js';
import { projectIdSchema } from './schemas.js';

export const createPromptGet = (store: () => ProjectStore) =>
  defineTool({
    name: 'prompt_get',
    title: 'Get a prompt template',
    description:
      "Returns one prompt template of a project's prompt file: name, key, parameters and the raw text " +
      `(placeholders unfilled). The names: ${toolRef('prompt_list')}.`,
    inputSchema: z.strictObject({
      projectId: projectIdSchema,
      templateName: z
        .string()
        .trim()
        .min(1)
        .max(300)
        .describe('Template name (any case) or key, e.g. "implementation-phase-6"'),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async ({ projectId, templateName }) => {
      const project = await store().get(projectId);
      const prompts = await loadPrompts(promptFileOf(projectRoot(project, 'reading prompts')));
      const prompt = findPrompt(prompts, templateName);
      const parameters = prompt.parameters.join(', ') || 'none';
      return withOutsideChanges(
        `# ${prompt.name}\nKey: ${prompt.key}\nParameters: ${parameters}\n\n---\n\n${prompt.content}`,
        [store().takeOutsideChange(project)],
      );
    },
  });
