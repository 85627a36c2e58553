import { z } from 'zod';
import type { ForgeClient } from '../runtime.js';
import { ticketPath } from './shared.js';

/** Forge's limits on an execution event (`RecordExecutionEventDto`). */
export const MAX_EVENT_TITLE = 500;
export const MAX_EVENT_DESCRIPTION = 10_000;

export const summarySchema = (what: string) =>
  z.string().trim().min(1).max(MAX_EVENT_TITLE).describe(`${what}, one line`);

export const eventOutputSchema = z.object({
  success: z.boolean(),
  ticketId: z.string(),
  eventId: z.string().nullable(),
  type: z.enum(['decision', 'risk', 'scope_change']),
});

export const EVENT_ANNOTATIONS = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
} as const;

/** `POST /tickets/:id/execution-events`; Forge accepts them only while the ticket is executing. */
export async function recordExecutionEvent(
  client: ForgeClient,
  ticketId: string,
  event: { type: 'decision' | 'risk' | 'scope_change'; title: string; description: string },
  signal: AbortSignal,
) {
  const result = await client.request<Record<string, unknown> | undefined>(
    'POST',
    ticketPath(ticketId, '/execution-events'),
    { body: event, signal, ticketId },
  );
  return {
    success: result?.success !== false,
    ticketId: typeof result?.ticketId === 'string' ? result.ticketId : ticketId,
    eventId: typeof result?.eventId === 'string' ? result.eventId : null,
    type: event.type,
  };
}
