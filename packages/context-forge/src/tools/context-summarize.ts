import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import type { ProjectStore } from '../store/project-store.js';
import { withOutsideChanges } from './outside-change.js';
import { projectIdSchema, projectOutput, summaryText } from './schemas.js';

export const createContextSummarize = (store: () => ProjectStore) =>
  defineTool({
    name: 'context_summarize',
    title: 'Save a session summary',
    description:
      "Saves a summary of the session as the project's recent events (and additional notes, if given) for " +
      `the next ${toolRef('context_build')}; returns the project. Call it at milestones and before ending a session.`,
    inputSchema: z.strictObject({
      projectId: projectIdSchema,
      summary: summaryText
        .trim()
        .min(1, 'must not be empty: summarize what happened and where work stands')
        .describe('What happened and where work stands; replaces the recent events'),
      additionalNotes: summaryText.optional().describe('Replaces the additional notes when given'),
    }),
    outputSchema: projectOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async ({ projectId, summary, additionalNotes }) => {
      const { project, outsideChange } = await store().updateReporting(projectId, {
        customData: { recentEvents: summary, ...(additionalNotes === undefined ? {} : { additionalNotes }) },
      });
      return withOutsideChanges(project, [outsideChange], { beforeThisWrite: true });
    },
  });
