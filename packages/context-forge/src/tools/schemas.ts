import { isAbsolute } from 'node:path';
import { toolRef } from '@x/mcp-core';
import { z } from 'zod';

/** Text fields are bounded so one call cannot bloat the shared file. */
const MAX_NOTE = 50_000;

export const projectIdSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .describe(`Project ID, e.g. "project_1739916020000_k3j9x2m1q". Take it from ${toolRef('project_list')}.`);

const text = (description: string, max = 500) => z.string().max(max).describe(description);
const requiredText = (description: string, max = 500) =>
  z.string().trim().min(1).max(max).describe(description);

export const workTypeSchema = z
  .enum(['start', 'continue'])
  .describe('"start" when beginning the project, "continue" when resuming work; picks the opening statement');

/** The project fields a caller may set, each optional (project_update) unless required elsewhere. */
export const projectFields = {
  name: requiredText('Display name of the project', 200),
  template: requiredText('Template the project uses (the package name in a monorepo)'),
  slice: text('Current slice, e.g. "140-slice.auth"'),
  taskFile: text('Task file name for the current slice'),
  instruction: text(
    'Instruction type that selects the prompt from the prompt file, e.g. "implementation" (the default), "design"',
  ),
  developmentPhase: text('Current development phase, e.g. "Phase 6: Implementation"'),
  workType: workTypeSchema,
  projectDate: text('Date shown in the context, e.g. "2026-11-22"; empty means today', 100),
  isMonorepo: z
    .boolean()
    .describe('Whether the project is a monorepo (adds the monorepo note to the context); default false'),
  isMonorepoEnabled: z.boolean().describe('Whether the app shows its monorepo controls for this project'),
  projectPath: z
    .string()
    .max(4096)
    .refine(isAbsolute, 'must be an absolute path')
    .describe('Absolute path of the project root (the directory that holds project-documents/)'),
  customData: z
    .strictObject({
      recentEvents: z
        .string()
        .max(MAX_NOTE)
        .optional()
        .describe('Current project state / recent events, shown under "Current Project State"'),
      additionalNotes: z
        .string()
        .max(MAX_NOTE)
        .optional()
        .describe('Notes shown under "Additional Instructions"'),
      monorepoNote: z.string().max(MAX_NOTE).optional().describe('Extra text for the monorepo note'),
      availableTools: z
        .string()
        .max(MAX_NOTE)
        .optional()
        .describe('Comma-separated tools available to the agent, listed in the tools section'),
    })
    .describe(
      'Free-text fields used in the context. Keys you give replace those keys only; others are kept.',
    ),
};

export const overrideFields = {
  slice: projectFields.slice.optional().describe('Use this slice instead of the stored one (not saved)'),
  taskFile: projectFields.taskFile
    .optional()
    .describe('Use this task file instead of the stored one (not saved)'),
  instruction: projectFields.instruction
    .optional()
    .describe('Use this instruction type instead of the stored one, e.g. "design" (not saved)'),
  developmentPhase: projectFields.developmentPhase
    .optional()
    .describe('Use this development phase instead of the stored one (not saved)'),
  workType: workTypeSchema
    .optional()
    .describe('Use "start" or "continue" instead of the stored value (not saved)'),
  additionalInstructions: z
    .string()
    .max(MAX_NOTE)
    .optional()
    .describe('Text appended after the generated context, e.g. the task for this session'),
};

export const summaryText = z.string().max(MAX_NOTE);

/** What the project tools return: the stored project, unknown fields included. */
export const projectOutput = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  template: z.string().optional(),
  slice: z.string().optional(),
  taskFile: z.string(),
  instruction: z.string(),
  isMonorepo: z.boolean(),
  projectPath: z.string().optional(),
  customData: z.looseObject({}),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
