import { type Completer, matchCompletions, UpstreamError } from '@x/mcp-core';
import type { ForgeClient } from '../runtime.js';
import { normalizeSummary } from '../tickets/normalize.js';
import type { TicketSummary } from '../tickets/schema.js';

/** How long completions reuse one ticket list: a person types several keys in a row. */
const COMPLETION_LIST_TTL_MS = 30_000;

/** Suggests the team's ticket ids and slugs that start with (or contain) what was typed. */
export function ticketIdCompleter(client: ForgeClient): Completer {
  let cached: { at: number; tickets: Promise<TicketSummary[]> } | undefined;
  return async (value, { signal }) => {
    if (!cached || Date.now() - cached.at > COMPLETION_LIST_TTL_MS) {
      const entry = { at: Date.now(), tickets: teamTickets(client, 'all', signal) };
      entry.tickets.catch(() => {
        if (cached === entry) cached = undefined;
      });
      cached = entry;
    }
    const tickets = await cached.tickets;
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
