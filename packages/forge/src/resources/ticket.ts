import { defineResourceTemplate } from '@x/mcp-core';
import { z } from 'zod';
import { teamTickets, ticketIdCompleter } from '../prompts/ticket-ids.js';
import type { ForgeClient } from '../runtime.js';
import { withAssigneeName } from '../tickets/assignees.js';
import { ticketMarkdown } from '../tickets/markdown.js';
import { normalizeTicket } from '../tickets/normalize.js';
import { ticketIdSchema, ticketPath } from '../tools/shared.js';

/** `forge://tickets/{ticketId}`: one ticket as the Markdown get_ticket_context returns. */
export const createTicketResource = (client: ForgeClient) =>
  defineResourceTemplate({
    name: 'ticket',
    title: 'Forge ticket',
    description:
      'One Forge ticket as Markdown: status, assignee, description, problem, solution, acceptance criteria, file changes, API changes, test plan and review Q&A.',
    uriTemplate: 'forge://tickets/{ticketId}',
    mimeType: 'text/markdown',
    variables: z.strictObject({ ticketId: ticketIdSchema }),
    complete: { ticketId: ticketIdCompleter(client) },
    list: async ({ signal }) =>
      (await teamTickets(client, 'all', signal)).map((ticket) => ({
        uri: `forge://tickets/${encodeURIComponent(ticket.id)}`,
        name: ticket.slug ? `${ticket.slug}: ${ticket.title}` : ticket.title,
        description: `${ticket.status}${ticket.priority ? `, ${ticket.priority}` : ''}`,
      })),
    read: async (_uri, { ticketId }, { signal, log }) => {
      const raw = await client.request<unknown>('GET', ticketPath(ticketId), { signal, ticketId });
      return ticketMarkdown(await withAssigneeName(client, normalizeTicket(raw), log));
    },
  });
