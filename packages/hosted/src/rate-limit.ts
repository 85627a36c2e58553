import { ConfigError, RateLimitedError } from '@x/mcp-core';
import { CachedStore } from './store/cached.js';
import type { KvStore } from './store/kv.js';
import { RedisStore } from './store/redis.js';

/**
 * A rate as a policy or `MCP_RATE_LIMIT` writes it: `<count>/<unit>` (`120/min`, `10/s`,
 * `1000/h`, `5000/day`). As a token bucket: `count` calls at once (a burst), refilled evenly at
 * `count` per unit.
 */
export interface Rate {
  readonly tokens: number;
  readonly periodMs: number;
  /** As written, normalised (`120/min`), for messages. */
  readonly text: string;
}

const UNITS: Record<string, { ms: number; name: string }> = {
  s: { ms: 1_000, name: 's' },
  sec: { ms: 1_000, name: 's' },
  second: { ms: 1_000, name: 's' },
  min: { ms: 60_000, name: 'min' },
  minute: { ms: 60_000, name: 'min' },
  h: { ms: 3_600_000, name: 'h' },
  hour: { ms: 3_600_000, name: 'h' },
  d: { ms: 86_400_000, name: 'day' },
  day: { ms: 86_400_000, name: 'day' },
};

/** The most calls one rate may allow per unit. */
export const MAX_RATE_TOKENS = 1_000_000;

export const RATE_FORMS = '<count>/<unit> with unit s, min, h or day (e.g. 120/min, 10/s, 1000/h)';

/** Reads a rate; `undefined` when the text is not one (see {@link RATE_FORMS}). */
export function readRate(text: string): Rate | undefined {
  const match = /^\s*(\d{1,7})\s*\/\s*([a-z]+)\s*$/i.exec(text);
  const tokens = Number(match?.[1]);
  const unit = UNITS[(match?.[2] ?? '').toLowerCase()];
  if (!match || !unit || tokens < 1 || tokens > MAX_RATE_TOKENS) return undefined;
  return { tokens, periodMs: unit.ms, text: `${tokens}/${unit.name}` };
}

/**
 * `MCP_RATE_LIMIT`: the rate every signed-in user gets unless the policy gives their rule
 * another (`off` or unset: none).
 */
export function rateFromEnv(name: string, value: string | undefined): Rate | undefined {
  const text = (value ?? '').trim();
  if (text === '' || text.toLowerCase() === 'off') return undefined;
  const rate = readRate(text);
  if (!rate) throw new ConfigError(`${name} must be ${RATE_FORMS}, or off; got "${value}".`);
  return rate;
}

/** One bucket a call takes a token from. */
export interface BucketSpec {
  /** Whose bucket (a user, a user and a tool). */
  key: string;
  rate: Rate;
}

/** Taken from every bucket, or from none: the first refused one and how long until it has a token. */
export type BucketTake = { ok: true } | { ok: false; refused: number; retryAfterMs: number };

/**
 * Token buckets: one token per call, taken from every bucket a call names or from none (a call
 * refused by its tool's bucket does not spend the user's).
 */
export interface TokenBuckets {
  /** Whether all replicas share the buckets (Redis) or each process keeps its own. */
  readonly shared: boolean;
  take(buckets: readonly BucketSpec[]): Promise<BucketTake>;
}

interface Level {
  tokens: number;
  at: number;
}

/** The bucket's tokens at `now`: what it had at `at`, plus the refill since, up to its size. */
function refilled(level: Level | undefined, rate: Rate, now: number): number {
  if (!level) return rate.tokens;
  const elapsed = Math.max(0, now - level.at);
  return Math.min(rate.tokens, level.tokens + (elapsed * rate.tokens) / rate.periodMs);
}

/** Milliseconds until a bucket at `tokens` has one whole token. */
const waitFor = (tokens: number, rate: Rate): number =>
  Math.max(1, Math.ceil(((1 - tokens) * rate.periodMs) / rate.tokens));

export interface MemoryTokenBucketsOptions {
  /** Buckets kept at most; the least recently used go first (and start full again). Default 100,000. */
  maxKeys?: number;
  /** The clock (tests). */
  now?: () => number;
}

/** Buckets in this process's memory: the embedded stores (SQLite, memory) serve one process. */
export class MemoryTokenBuckets implements TokenBuckets {
  readonly shared = false;
  readonly #levels = new Map<string, Level>();
  readonly #maxKeys: number;
  readonly #now: () => number;

  constructor(options: MemoryTokenBucketsOptions = {}) {
    this.#maxKeys = options.maxKeys ?? 100_000;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#levels.size;
  }

  async take(buckets: readonly BucketSpec[]): Promise<BucketTake> {
    const now = this.#now();
    const tokens = buckets.map((bucket) => refilled(this.#levels.get(bucket.key), bucket.rate, now));
    let refused: BucketTake = { ok: true };
    tokens.forEach((level, index) => {
      const rate = (buckets[index] as BucketSpec).rate;
      const wait = level < 1 ? waitFor(level, rate) : 0;
      if (wait > 0 && (refused.ok || wait > refused.retryAfterMs)) {
        refused = { ok: false, refused: index, retryAfterMs: wait };
      }
    });
    if (!refused.ok) {
      // Still in use: moved to the young end, so a caller held back is not forgotten (and refilled).
      for (const bucket of buckets) {
        const level = this.#levels.get(bucket.key);
        if (!level) continue;
        this.#levels.delete(bucket.key);
        this.#levels.set(bucket.key, level);
      }
      return refused;
    }
    buckets.forEach((bucket, index) => {
      // Re-inserted, so the map's order is the buckets' last use and eviction takes the oldest.
      this.#levels.delete(bucket.key);
      this.#levels.set(bucket.key, { tokens: (tokens[index] as number) - 1, at: now });
    });
    for (const key of this.#levels.keys()) {
      if (this.#levels.size <= this.#maxKeys) break;
      this.#levels.delete(key);
    }
    return refused;
  }
}

/**
 * Buckets in Redis, shared by every replica on it: all of a call's buckets are checked and taken
 * in one Lua script (one round trip), on Redis's clock, so the replicas' clocks do not matter.
 */
export class RedisTokenBuckets implements TokenBuckets {
  readonly shared = true;
  readonly #store: RedisStore;

  constructor(store: RedisStore) {
    this.#store = store;
  }

  async take(buckets: readonly BucketSpec[]): Promise<BucketTake> {
    const [refused, retryAfterMs] = await this.#store.takeTokens(
      buckets.map(({ key, rate }) => ({ key, tokens: rate.tokens, periodMs: rate.periodMs })),
    );
    return refused < 0 ? { ok: true } : { ok: false, refused, retryAfterMs: Math.max(1, retryAfterMs) };
  }
}

/** The buckets for a store: in Redis when it is Redis (shared by replicas), else in this process. */
export function tokenBucketsFor(store: KvStore): TokenBuckets {
  const inner = CachedStore.direct(store);
  return inner instanceof RedisStore ? new RedisTokenBuckets(inner) : new MemoryTokenBuckets();
}

/** The limits one call is under: the user's own, and the called tool's if the rule gives it one. */
export interface CallLimits {
  /** All of the user's calls. */
  user?: Rate;
  /** Per tool (served names): each of these tools has its own bucket per user, besides `user`. */
  tools?: Readonly<Record<string, Rate>>;
  /** Who set `user`, for the error: "the server's policy (rule 2)", "the server (MCP_RATE_LIMIT)". */
  source: string;
  /** Who set `tools`; default `source`. */
  toolsSource?: string;
}

/**
 * Per-user rate limits on tool calls: `admit` takes a token from the user's bucket (and the
 * tool's, when limited) or throws `RateLimitedError` with `retry_after_ms`.
 */
export class UserRateLimits {
  readonly #buckets: TokenBuckets;

  constructor(buckets: TokenBuckets) {
    this.#buckets = buckets;
  }

  get shared(): boolean {
    return this.#buckets.shared;
  }

  async admit(userId: string, tool: string, limits: CallLimits): Promise<void> {
    const specs: BucketSpec[] = [];
    const names: string[] = [];
    if (limits.user) {
      specs.push({ key: `user:${userId}`, rate: limits.user });
      names.push(`your calls (${limits.user.text}), set by ${limits.source}`);
    }
    const toolRate = limits.tools && Object.hasOwn(limits.tools, tool) ? limits.tools[tool] : undefined;
    if (toolRate) {
      specs.push({ key: `tool:${userId}:${tool}`, rate: toolRate });
      names.push(`your calls of ${tool} (${toolRate.text}), set by ${limits.toolsSource ?? limits.source}`);
    }
    if (specs.length === 0) return;
    const taken = await this.#buckets.take(specs);
    if (taken.ok) return;
    const seconds = Math.ceil(taken.retryAfterMs / 1000);
    throw new RateLimitedError(`Rate limit reached for ${names[taken.refused]}; retry in ${seconds} s.`, {
      details: {
        retry_after_ms: taken.retryAfterMs,
        limit: (specs[taken.refused] as BucketSpec).rate.text,
      },
    });
  }
}
