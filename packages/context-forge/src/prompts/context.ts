import { definePrompt, matchCompletions, type PromptDefinition, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { buildContext } from '../context/build.js';
import { projectRoot, promptFileOf } from '../context/project-files.js';
import { findPrompt, loadPrompts } from '../context/prompts.js';
import type { ProjectStore } from '../store/project-store.js';
import { findProject, projectArgument, projectCompleter, templateCompleter } from './projects.js';

const override = (what: string) =>
  z.string().max(500).optional().describe(`Use this ${what} instead of the stored one (not saved)`);

/** `context`: the project's full context prompt, as context_build builds it with the stored settings. */
export const createContextPrompt = (store: () => ProjectStore) =>
  definePrompt({
    name: 'context',
    title: 'Context Forge project context',
    description: `Starts a session with a Context Forge project's full context: project header, tools, monorepo note, recent events and the prompt its instruction selects — what ${toolRef('context_build')} returns.`,
    argsSchema: z.strictObject({
      project: projectArgument,
      additionalInstructions: z
        .string()
        .max(50_000)
        .optional()
        .describe('Text appended after the context, e.g. the task for this session'),
    }),
    complete: { project: projectCompleter(store) },
    handler: async ({ project: idOrName, additionalInstructions }) => {
      const project = await findProject(store(), idOrName);
      return buildContext(project, additionalInstructions ? { additionalInstructions } : {});
    },
  });

/**
 * `template`: the context with one template of the project's prompt file as its instruction
 * prompt — what context_build returns with that template's key as the instruction. The
 * overrides fill the placeholders the templates use ({slice}, {taskFile}, ...).
 */
export const createTemplatePrompt = (store: () => ProjectStore) =>
  definePrompt({
    name: 'template',
    title: 'Context Forge prompt template',
    description:
      "Builds a Context Forge project's context around one template of its prompt file (e.g. a design or review prompt) instead of the stored instruction, with the placeholders filled from the project.",
    argsSchema: z.strictObject({
      project: projectArgument,
      template: z
        .string()
        .trim()
        .min(1)
        .max(300)
        .describe(
          'The template: its name as in the prompt file (any case), e.g. "Implementation (Phase 6)", or its key',
        ),
      slice: override('slice'),
      taskFile: override('task file'),
      developmentPhase: override('development phase'),
      workType: z
        .enum(['start', 'continue'])
        .optional()
        .describe('"start" or "continue" instead of the stored work type (not saved)'),
    }),
    complete: {
      project: projectCompleter(store),
      template: templateCompleter(store),
      workType: (value) => matchCompletions(['start', 'continue'], value),
    },
    handler: async ({ project: idOrName, template, ...overrides }) => {
      const project = await findProject(store(), idOrName);
      const prompts = await loadPrompts(promptFileOf(projectRoot(project, 'reading prompts')));
      const chosen = findPrompt(prompts, template);
      return buildContext(project, { overrides: { ...overrides, instruction: chosen.key } });
    },
  });

export const createContextForgePrompts = (store: () => ProjectStore): PromptDefinition[] =>
  [createContextPrompt(store), createTemplatePrompt(store)] as PromptDefinition[];
