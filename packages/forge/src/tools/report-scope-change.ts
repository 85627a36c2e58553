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

export const createReportScopeChange = (client: ForgeClient) =>
  defineTool({
    name: 'report_scope_change',
    title: 'Report a change of scope',
    description: `Records that the implementation departs from the Forge ticket's spec (something added, dropped or done differently) and why. Only while the ticket is executing.`,
    inputSchema: z.strictObject({
      ticketId: ticketIdSchema,
      summary: summarySchema('What changed compared with the spec'),
      reason: z.string().trim().min(1).max(MAX_EVENT_DESCRIPTION).optional().describe('Why it was necessary'),
    }),
    outputSchema: eventOutputSchema,
    annotations: EVENT_ANNOTATIONS,
    handler: ({ ticketId, summary, reason }, { signal }) =>
      recordExecutionEvent(
        client,
        ticketId,
        { type: 'scope_change', title: summary, description: reason ?? summary },
        signal,
      ),
  });
