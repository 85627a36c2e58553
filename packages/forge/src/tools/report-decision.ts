import { defineTool } from '@x/mcp-core';
import { z } from 'zod';
import type { ForgeClient } from '../runtime.js';
import {
  EVENT_ANNOTATIONS,
  eventOutputSchema,
  MAX_EVENT_DESCRIPTION,
  recordExecutionEvent,
  summarySchema,
} from './execution-event.js';
import { ticketIdSchema } from './shared.js';

export const createReportDecision = (client: ForgeClient) =>
  defineTool({
    name: 'report_decision',
    title: 'Report an implementation decision',
    description: `Records a decision made while implementing a Forge ticket (e.g. one approach over another), so the reviewer knows why. Only while the ticket is executing.`,
    inputSchema: z.strictObject({
      ticketId: ticketIdSchema,
      summary: summarySchema('The decision'),
      rationale: z
        .string()
        .trim()
        .min(1)
        .max(MAX_EVENT_DESCRIPTION)
        .optional()
        .describe('Why, and which alternatives were rejected'),
    }),
    outputSchema: eventOutputSchema,
    annotations: EVENT_ANNOTATIONS,
    handler: ({ ticketId, summary, rationale }, { signal }) =>
      recordExecutionEvent(
        client,
        ticketId,
        { type: 'decision', title: summary, description: rationale ?? summary },
        signal,
      ),
  });
