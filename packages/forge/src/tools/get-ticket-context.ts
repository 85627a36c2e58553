import { defineTool, toolSuccess } from '@x/mcp-core';
import { z } from 'zod';
import type { ForgeClient } from '../runtime.js';
import { withAssigneeName } from '../tickets/assignees.js';
import { ticketMarkdown } from '../tickets/markdown.js';
import { normalizeTicket } from '../tickets/normalize.js';
import { TicketContextSchema } from '../tickets/schema.js';
import { READS_FORGE, ticketIdSchema, ticketPath } from './shared.js';

export const createGetTicketContext = (client: ForgeClient) =>
  defineTool({
    name: 'get_ticket_context',
    title: 'Get a Forge ticket with its full spec',
    description:
      'Returns one Forge ticket with its whole spec as Markdown: status, assignee, description, problem, solution, acceptance criteria, file changes, API changes, test plan, review Q&A. Read it before implementing or reviewing a ticket.',
    inputSchema: z.strictObject({ ticketId: ticketIdSchema }),
    outputSchema: TicketContextSchema,
    annotations: READS_FORGE,
    handler: async ({ ticketId }, { signal, log }) => {
      const raw = await client.request<unknown>('GET', ticketPath(ticketId), { signal, ticketId });
      const ticket = await withAssigneeName(client, normalizeTicket(raw), log);
      return toolSuccess(ticket, { text: ticketMarkdown(ticket) });
    },
  });
