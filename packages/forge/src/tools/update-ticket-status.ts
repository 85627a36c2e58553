import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import type { ForgeClient } from '../runtime.js';
import { SETTABLE_STATUSES, TICKET_STATUSES } from '../tickets/status.js';
import { ticketIdSchema, ticketPath } from './shared.js';

const ALLOWED = SETTABLE_STATUSES.join(', ');

export const createUpdateTicketStatus = (client: ForgeClient) =>
  defineTool({
    name: 'update_ticket_status',
    title: 'Change the status of a Forge ticket',
    description: `Moves a Forge ticket to another status. Forge keeps the order draft → defined → refined → approved → executing → delivered and rejects moves it does not allow; moving back can clear generated data. To start work use ${toolRef('start_implementation')}, to finish ${toolRef('submit_settlement')}.`,
    inputSchema: z.strictObject({
      ticketId: ticketIdSchema,
      status: z
        .enum(SETTABLE_STATUSES, { error: () => `must be one of: ${ALLOWED}` })
        .describe('The new status'),
    }),
    outputSchema: z.object({ success: z.boolean(), ticketId: z.string(), status: z.string() }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    // Only a move back can lose anything (what Forge generated since), so only that one is asked.
    confirm: async ({ ticketId, status }, { signal }) => {
      const ticket = await client.request<{ status?: unknown; title?: unknown } | undefined>(
        'GET',
        ticketPath(ticketId),
        { signal, ticketId },
      );
      const current = TICKET_STATUSES.indexOf(ticket?.status as (typeof TICKET_STATUSES)[number]);
      if (current === -1 || TICKET_STATUSES.indexOf(status) >= current) return undefined;
      const title = typeof ticket?.title === 'string' ? ` '${ticket.title.slice(0, 120)}'` : '';
      return `Move Forge ticket ${ticketId}${title} back from '${String(ticket?.status)}' to '${status}'? Forge can clear what it generated since.`;
    },
    handler: async ({ ticketId, status }, { signal }) => {
      const updated = await client.request<{ status?: unknown } | undefined>('PATCH', ticketPath(ticketId), {
        body: { status },
        signal,
        ticketId,
      });
      return {
        success: true,
        ticketId,
        status: typeof updated?.status === 'string' ? updated.status : status,
      };
    },
  });
