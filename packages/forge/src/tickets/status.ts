/**
 * The statuses of the current Forge backend (its `AECStatus`). Older releases used other names
 * (`READY`, `dev-refining`, `forged`, ...); tickets that still carry them are read as they are.
 */
export const TICKET_STATUSES = [
  'draft',
  'defined',
  'refined',
  'approved',
  'executing',
  'delivered',
  'archived',
] as const;

export type TicketStatus = (typeof TICKET_STATUSES)[number];

/**
 * What `PATCH /tickets/:id` can move a ticket to. `archived` is refused there ("use the
 * dedicated endpoint"), so it is not offered.
 */
export const SETTABLE_STATUSES = [
  'draft',
  'defined',
  'refined',
  'approved',
  'executing',
  'delivered',
] as const;

export type SettableStatus = (typeof SETTABLE_STATUSES)[number];
