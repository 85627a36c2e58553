/** What a completer is told besides the partial value. */
export interface CompletionContext {
  /** The other arguments (or template variables) the client has already filled in. */
  arguments: Readonly<Record<string, string>>;
  /** Aborted after the registry's time budget. */
  signal: AbortSignal;
}

/**
 * Suggests values for one prompt argument or URI template variable (`completion/complete`).
 * It may fetch (e.g. ticket ids); a failure is logged and answered with no suggestions,
 * since completion only helps a person type.
 */
export type Completer = (
  value: string,
  context: CompletionContext,
) => Promise<readonly string[]> | readonly string[];

/**
 * The candidates that start with `value` (case-insensitive), then those that merely contain
 * it, without duplicates: a helper for completers over a known list.
 */
export function matchCompletions(candidates: Iterable<string>, value: string): string[] {
  const wanted = value.toLowerCase();
  const starts: string[] = [];
  const contains: string[] = [];
  for (const candidate of new Set(candidates)) {
    const lower = candidate.toLowerCase();
    if (lower.startsWith(wanted)) starts.push(candidate);
    else if (lower.includes(wanted)) contains.push(candidate);
  }
  return [...starts, ...contains];
}
