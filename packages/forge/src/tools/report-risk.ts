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

export const createReportRisk = (client: ForgeClient) =>
  defineTool({
    name: 'report_risk',
    title: 'Report a risk found while implementing',
    description: `Records a risk or blocker noticed while implementing a Forge ticket (a fragile dependency, a missing test, a security concern). Only while the ticket is executing.`,
    inputSchema: z.strictObject({
      ticketId: ticketIdSchema,
      summary: summarySchema('The risk'),
      severity: z.enum(['low', 'medium', 'high']).optional().describe('How serious it is'),
      details: z
        .string()
        .trim()
        .min(1)
        .max(MAX_EVENT_DESCRIPTION - 100)
        .optional()
        .describe('Possible impact and mitigation'),
    }),
    outputSchema: eventOutputSchema,
    annotations: EVENT_ANNOTATIONS,
    handler: ({ ticketId, summary, severity, details }, { signal }) =>
      recordExecutionEvent(
        client,
        ticketId,
        {
          type: 'risk',
          title: summary,
          description: [severity ? `Severity: ${severity}` : undefined, details ?? summary]
            .filter(Boolean)
            .join('\n\n'),
        },
        signal,
      ),
  });
