import { defineTool, toolSuccess, UpstreamError } from '@x/mcp-core';
import { z } from 'zod';
import type { ForgeClient } from '../runtime.js';
import { withAssigneeNames } from '../tickets/assignees.js';
import { ticketLine } from '../tickets/markdown.js';
import { normalizeSummary } from '../tickets/normalize.js';
import { type TicketSummary, TicketSummarySchema } from '../tickets/schema.js';
import { READS_FORGE } from './shared.js';

export const createListTickets = (client: ForgeClient) =>
  defineTool({
    name: 'list_tickets',
    title: 'List Forge tickets',
    description:
      'Lists the Forge tickets of the current team, one line each (id, slug, status, priority, title, assignee). Gives the ticket id every other Forge tool takes.',
    inputSchema: z.strictObject({
      filter: z.enum(['all', 'mine']).default('all').describe('mine: only the tickets assigned to you'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(500)
        .default(100)
        .describe('Most tickets to return; the total is always reported'),
    }),
    outputSchema: z.object({
      filter: z.enum(['all', 'mine']),
      total: z.number(),
      truncated: z.boolean(),
      tickets: z.array(TicketSummarySchema),
    }),
    annotations: READS_FORGE,
    handler: async ({ filter, limit }, { signal, log }) => {
      const teamId = await client.teamId();
      const query: Record<string, string> =
        filter === 'mine' ? { teamId, assignedToMe: 'true' } : { teamId, all: 'true' };
      const raw = await client.request<unknown>('GET', '/tickets', { query, signal });
      if (!Array.isArray(raw))
        throw new UpstreamError('Forge answered GET /tickets with something other than a list.');
      const all = raw.map(normalizeSummary).filter((ticket): ticket is TicketSummary => ticket !== undefined);
      const tickets = await withAssigneeNames(client, all.slice(0, limit), log);
      const data = { filter, total: all.length, truncated: all.length > tickets.length, tickets };
      const header =
        all.length === 0
          ? `No tickets (filter: ${filter}).`
          : `${all.length} ticket${all.length === 1 ? '' : 's'} (filter: ${filter})${data.truncated ? `, showing the first ${tickets.length}` : ''}:`;
      return toolSuccess(data, { text: [header, ...tickets.map(ticketLine)].join('\n') });
    },
  });
