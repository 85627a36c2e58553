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
  .describe(`Project ID from ${toolRef('project_list')}`);

const text = (description: string, max = 500) => z.string().max(max).describe(description);
const requiredText = (description: string, max = 500) =>
  z.string().trim().min(1).max(max).describe(description);

export const workTypeSchema = z
  .enum(['start', 'continue'])
  .describe('Starting or continuing: picks the opening statement');

/** The project fields a caller may set, each optional (project_update) unless required elsewhere. */
export const projectFields = {
  name: requiredText('Display name', 200),
  template: requiredText('Template (package name in a monorepo)'),
  slice: text('e.g. "140-slice.auth"'),
  taskFile: text('Of the current slice'),
  instruction: text('Prompt to use, e.g. "implementation" (default), "design"'),
  developmentPhase: text('e.g. "Phase 6: Implementation"'),
  workType: workTypeSchema,
  projectDate: text('Shown in the context; empty: today', 100),
  isMonorepo: z.boolean().describe('Adds the monorepo note to the context'),
  isMonorepoEnabled: z.boolean().describe('Monorepo controls shown in the app'),
  projectPath: z
    .string()
    .max(4096)
    .refine(isAbsolute, 'must be an absolute path')
    .describe('Absolute project root (holds project-documents/)'),
  customData: z
    .strictObject({
      recentEvents: z.string().max(MAX_NOTE).optional(),
      additionalNotes: z.string().max(MAX_NOTE).optional(),
      monorepoNote: z.string().max(MAX_NOTE).optional(),
      availableTools: z
        .string()
        .max(MAX_NOTE)
        .optional()
        .describe("Comma-separated, for the context's tools section"),
    })
    .describe('Free text of the context; only the keys you give are replaced'),
};

export const overrideFields = {
  slice: projectFields.slice.optional().describe('Override'),
  taskFile: projectFields.taskFile.optional().describe('Override'),
  instruction: projectFields.instruction.optional().describe('Override, e.g. "design"'),
  developmentPhase: projectFields.developmentPhase.optional().describe('Override'),
  workType: workTypeSchema.optional().describe('Override'),
  additionalInstructions: z
    .string()
    .max(MAX_NOTE)
    .optional()
    .describe('Appended to the context, e.g. the task of this session'),
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
