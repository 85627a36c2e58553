import { definePrompt, matchCompletions } from '@x/mcp-core';
import { z } from 'zod';
import type { ForgeClient } from '../runtime.js';
import { withAssigneeNames } from '../tickets/assignees.js';
import { teamTickets } from './ticket-ids.js';

/** The most tickets one list shows; the rest are counted. */
const MAX_ROWS = 200;

/** A table of the team's tickets with assignee names, ending with how to act on one. */
export const createListPrompt = (client: ForgeClient) =>
  definePrompt({
    name: 'list',
    title: 'List Forge tickets',
    description:
      "Shows the team's Forge tickets as a table (id, title, status, assignee name, priority) to pick one to execute, develop or review.",
    argsSchema: z.strictObject({
      filter: z
        .enum(['all', 'mine'])
        .optional()
        .describe("'all' (default): every ticket of the team; 'mine': only tickets assigned to you"),
    }),
    complete: { filter: (value) => matchCompletions(['all', 'mine'], value) },
    handler: async ({ filter = 'all' }, { signal, log }) => {
      const all = await teamTickets(client, filter, signal);
      if (all.length === 0) {
        return filter === 'mine'
          ? 'No Forge tickets are assigned to you. Use the list prompt with filter "all" to see the whole team.'
          : 'The team has no Forge tickets.';
      }
      const tickets = await withAssigneeNames(client, all.slice(0, MAX_ROWS), log);
      const rows = tickets.map((ticket) => {
        const id =
          ticket.slug && ticket.slug !== ticket.id ? `${ticket.slug} (\`${ticket.id}\`)` : `\`${ticket.id}\``;
        const assignee = ticket.assigneeName ?? ticket.assignedTo ?? '—';
        return `| ${id} | ${cell(ticket.title)} | ${ticket.status} | ${cell(assignee)} | ${ticket.priority ?? '—'} |`;
      });
      const more = all.length > tickets.length ? `\n\n${all.length - tickets.length} more not shown.` : '';
      return [
        `## ${filter === 'mine' ? 'My Forge tickets' : 'Forge tickets of the team'} (${all.length})`,
        '',
        '| Ticket | Title | Status | Assignee | Priority |',
        '|---|---|---|---|---|',
        ...rows,
        `${more}`,
        'Pick a ticket and use the execute, develop or review prompt with its id.',
      ].join('\n');
    },
  });

/** Keeps a value inside one table cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
}
