/** When and how long an upstream request is tried again. One policy for every provider. */
export interface RetryPolicy {
  /** Tries after the first. Default 2. */
  maxRetries: number;
  /** The first backoff, doubled each time, with jitter. Default 500 ms. */
  baseDelayMs: number;
  /**
   * The longest wait inside one call, jitter included. A 429 whose `Retry-After` is longer is not
   * waited for: the call fails at once as `RATE_LIMITED` with `retry_after_ms`. Default 30000.
   */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 30_000 };

/** RFC 9110 idempotent methods: sending one twice has the effect of sending it once. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export function isIdempotent(method: string): boolean {
  return IDEMPOTENT_METHODS.has(method.toUpperCase());
}

/** 5xx answers that say "try again": the request may not have been processed. 507 and 501 do not. */
export const RETRYABLE_SERVER_STATUSES: ReadonlySet<number> = new Set([500, 502, 503, 504]);

/**
 * The wait before retry number `attempt + 1`, or `undefined` when it should not be waited for.
 * With a `Retry-After`, that time plus up to 20 % jitter (at most 1 s), so clients told the same
 * time do not return at once; without one, "equal jitter" exponential backoff. Never more than
 * `maxDelayMs`. A `Retry-After` beyond the cap gives `undefined` when `strict` (a 429: the server
 * said when), else the backoff (a 5xx: the hint is advisory).
 */
export function retryDelay(
  attempt: number,
  retryAfterMs: number | undefined,
  policy: RetryPolicy,
  { strict = false, random = Math.random }: { strict?: boolean; random?: () => number } = {},
): number | undefined {
  if (retryAfterMs !== undefined) {
    if (retryAfterMs <= policy.maxDelayMs) {
      const jitter = random() * Math.min(1_000, retryAfterMs * 0.2 + 50);
      return Math.min(policy.maxDelayMs, Math.round(retryAfterMs + jitter));
    }
    if (strict) return undefined;
  }
  const ceiling = Math.min(policy.baseDelayMs * 2 ** attempt, policy.maxDelayMs);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
