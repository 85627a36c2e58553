import type { Logger } from '@x/mcp-core';
import type { ForgeClient } from '../runtime.js';
import type { TicketSummary } from './schema.js';

/**
 * The tickets with `assigneeName` set from the team's members. Names only make the output
 * friendlier: when the members cannot be read, the user ids stay and a warning is logged.
 */
export async function withAssigneeNames<Ticket extends TicketSummary>(
  client: ForgeClient,
  tickets: Ticket[],
  log: Logger,
): Promise<Ticket[]> {
  if (!tickets.some((ticket) => ticket.assignedTo))
    return tickets.map((ticket) => ({ ...ticket, assigneeName: null }));
  let names: Map<string, string>;
  try {
    names = await client.teamMemberNames();
  } catch (error) {
    log.warn('could not read the team members; showing assignee user ids', {
      reason: error instanceof Error ? error.message : String(error),
    });
    names = new Map();
  }
  return tickets.map((ticket) => ({
    ...ticket,
    assigneeName: ticket.assignedTo ? (names.get(ticket.assignedTo) ?? null) : null,
  }));
}

/** One ticket with `assigneeName` set (see `withAssigneeNames`). */
export async function withAssigneeName<Ticket extends TicketSummary>(
  client: ForgeClient,
  ticket: Ticket,
  log: Logger,
): Promise<Ticket> {
  const [named] = await withAssigneeNames(client, [ticket], log);
  return named ?? ticket;
}
