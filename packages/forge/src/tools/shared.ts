import { z } from 'zod';

export const ticketIdSchema = z
  .string()
  .trim()
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'must be a ticket id or slug such as "aec_1f2e…" or "FOR-12"')
  .describe('Ticket id or slug, e.g. "FOR-12"');

export const qaItemSchema = z.strictObject({
  question: z.string().trim().min(1).max(2_000),
  answer: z.string().trim().min(1).max(10_000),
});

/** Annotations of a tool that only reads from Forge. */
export const READS_FORGE = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
} as const;

/** The path of one ticket; the id is checked by `ticketIdSchema` and encoded anyway. */
export function ticketPath(ticketId: string, suffix = ''): string {
  return `/tickets/${encodeURIComponent(ticketId)}${suffix}`;
}
