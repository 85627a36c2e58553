import { type Completer, matchCompletions, UpstreamError } from '@x/mcp-core';
import type { ForgeClient } from '../client/client.js';
import { normalizeSummary } from '../tickets/normalize.js';
import type { TicketSummary } from '../tickets/schema.js';

/** Suggests the team's ticket ids and slugs that start with (or contain) what was typed. */
export function ticketIdCompleter(client: ForgeClient): Completer {
  return async (value, { signal }) => {
    const tickets = await teamTickets(client, 'all', signal);
    return matchCompletions(
      tickets.flatMap((ticket) =>
        ticket.slug && ticket.slug !== ticket.id ? [ticket.slug, ticket.id] : [ticket.id],
      ),
      value.trim(),
    );
  };
}

/** The team's tickets (`GET /tickets`), or only those assigned to the current user. */
export async function teamTickets(
  client: ForgeClient,
  filter: 'all' | 'mine',
  signal: AbortSignal,
): Promise<TicketSummary[]> {
  const teamId = await client.teamId();
  const query: Record<string, string> =
    filter === 'mine' ? { teamId, assignedToMe: 'true' } : { teamId, all: 'true' };
  const raw = await client.request<unknown>('GET', '/tickets', { query, signal });
  if (!Array.isArray(raw))
    throw new UpstreamError('Forge answered GET /tickets with something other than a list.');
  return raw.map(normalizeSummary).filter((ticket): ticket is TicketSummary => ticket !== undefined);
}
