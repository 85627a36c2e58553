import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import type { ForgeClient } from '../runtime.js';
import { qaItemSchema, ticketIdSchema, ticketPath } from './shared.js';

export const createSubmitReviewSession = (client: ForgeClient) =>
  defineTool({
    name: 'submit_review_session',
    title: 'Submit review answers for a Forge ticket',
    description: `Sends the questions and the developer's answers from a review of a Forge ticket to Forge, replacing any earlier review, and moves the ticket to 'refined' for the product manager. Call it once every question is answered; read the ticket with ${toolRef('get_ticket_context')} first.`,
    inputSchema: z.strictObject({
      ticketId: ticketIdSchema,
      qaItems: z.array(qaItemSchema).min(1).max(50).describe('The questions with their answers'),
    }),
    outputSchema: z.object({ success: z.boolean(), ticketId: z.string(), status: z.string() }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    confirm: ({ ticketId, qaItems }) =>
      `Send ${qaItems.length} review answer${qaItems.length === 1 ? '' : 's'} for Forge ticket ${ticketId}? They replace any earlier review, and the ticket moves to 'refined'.`,
    handler: async ({ ticketId, qaItems }, { signal }) => {
      const result = await client.request<Record<string, unknown> | undefined>(
        'POST',
        ticketPath(ticketId, '/review-session'),
        { body: { qaItems }, signal, ticketId },
      );
      return {
        success: result?.success !== false,
        ticketId: typeof result?.ticketId === 'string' ? result.ticketId : ticketId,
        status: typeof result?.status === 'string' ? result.status : 'unknown',
      };
    },
  });
