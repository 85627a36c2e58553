// The per-user token buckets in Redis, as replicas share them: two store connections on one
// redis-server take from the same buckets, atomically.
import { randomUUID } from 'node:crypto';
import { closedPort } from '@x/mcp-core/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from './errors.js';
import { type Rate, RedisTokenBuckets, readRate, tokenBucketsFor, UserRateLimits } from './rate-limit.js';
import { CachedStore } from './store/cached.js';
import { createStore } from './store/create.js';
import type { KvStore } from './store/kv.js';
import { RedisStore } from './store/redis.js';
import { type RedisServer, redisRequirement, startRedisServer } from './testing/index.js';

const requirement = redisRequirement();
const skipReason = 'skip' in requirement ? requirement.skip : undefined;
if (skipReason) process.stderr.write(`rate-limit.redis.test.ts: SKIPPED: ${skipReason}\n`);
const guard = (context: { skip: (note?: string) => void }) => {
  if (skipReason) context.skip(skipReason);
};

const rate = (text: string): Rate => readRate(text) as Rate;

describe('token buckets in Redis, shared by replicas', () => {
  let server: RedisServer | undefined;
  const stores: KvStore[] = [];
  let prefix = '';

  beforeAll(async () => {
    if ('path' in requirement) server = await startRedisServer({ path: requirement.path });
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await server?.stop();
  });

  /** Two replicas' stores on one Redis (one key prefix), the second behind its read cache as a replica has it. */
  async function replicas(): Promise<[RedisTokenBuckets, RedisTokenBuckets]> {
    prefix = `test:${randomUUID()}:`;
    const first = await createStore((server as RedisServer).url, { prefix });
    const second = await CachedStore.over(await createStore((server as RedisServer).url, { prefix }), {
      prefixes: ['conn:'],
    });
    stores.push(first, second);
    const a = tokenBucketsFor(first);
    const b = tokenBucketsFor(second);
    expect(a).toBeInstanceOf(RedisTokenBuckets);
    expect(b).toBeInstanceOf(RedisTokenBuckets);
    expect(a.shared && b.shared).toBe(true);
    return [a as RedisTokenBuckets, b as RedisTokenBuckets];
  }

  it('one bucket across two replicas: the burst is shared, then refused with the wait', async (context) => {
    guard(context);
    const [a, b] = await replicas();
    const bucket = [{ key: 'user:ana', rate: rate('3/h') }];
    expect(await a.take(bucket)).toEqual({ ok: true });
    expect(await b.take(bucket)).toEqual({ ok: true });
    expect(await a.take(bucket)).toEqual({ ok: true });
    const refused = await b.take(bucket);
    expect(refused.ok).toBe(false);
    // One token per 20 minutes; a few ms have passed since the first take.
    expect(!refused.ok && refused.retryAfterMs).toBeGreaterThan(1_190_000);
    expect(!refused.ok && refused.retryAfterMs).toBeLessThanOrEqual(1_200_000);
    // Another user is unaffected.
    expect(await b.take([{ key: 'user:bo', rate: rate('3/h') }])).toEqual({ ok: true });
  });

  it('concurrent calls on both replicas: exactly the burst is admitted', async (context) => {
    guard(context);
    const [a, b] = await replicas();
    const bucket = [{ key: 'user:ana', rate: rate('10/h') }];
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? a : b).take(bucket)),
    );
    expect(results.filter((result) => result.ok)).toHaveLength(10);
  });

  it('all or none: a refused tool bucket leaves the user bucket as it was', async (context) => {
    guard(context);
    const [a, b] = await replicas();
    const user = { key: 'user:ana', rate: rate('2/h') };
    const tool = { key: 'tool:ana:create', rate: rate('1/h') };
    expect(await a.take([user, tool])).toEqual({ ok: true });
    const refused = await b.take([user, tool]);
    expect(refused).toMatchObject({ ok: false, refused: 1 });
    expect(await b.take([user])).toEqual({ ok: true });
    expect(await a.take([user])).toMatchObject({ ok: false, refused: 0 });
  });

  it('a bucket expires once it would be full again; nothing else is written', async (context) => {
    guard(context);
    const [a] = await replicas();
    await a.take([{ key: 'user:ana', rate: rate('60/min') }]);
    const redis = new Redis((server as RedisServer).url);
    try {
      const keys = await redis.keys(`${prefix}*`);
      expect(keys).toEqual([`${prefix}rate:user:ana`]);
      const ttl = await redis.pttl(`${prefix}rate:user:ana`);
      // One token to refill (1 s) plus a second of slack.
      expect(ttl).toBeGreaterThan(1_000);
      expect(ttl).toBeLessThanOrEqual(2_000);
    } finally {
      redis.disconnect();
    }
  });

  it('through UserRateLimits: RATE_LIMITED on the second replica after the first spent the burst', async (context) => {
    guard(context);
    const [a, b] = await replicas();
    const rule = { user: rate('2/min'), source: 'MCP_RATE_LIMIT' };
    await new UserRateLimits(a).admit('ana', 'basecamp_list_todos', rule);
    await new UserRateLimits(a).admit('ana', 'basecamp_list_todos', rule);
    const error = await new UserRateLimits(b)
      .admit('ana', 'basecamp_list_todos', rule)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
    expect((error as { details: { retry_after_ms: number } }).details.retry_after_ms).toBeGreaterThan(29_000);
  });

  it('Redis unreachable: StoreUnavailableError (retryable), never an admission', async (context) => {
    guard(context);
    const store = await createStore(`redis://127.0.0.1:${await closedPort()}`);
    try {
      expect(store).toBeInstanceOf(RedisStore);
      const error = await tokenBucketsFor(store)
        .take([{ key: 'user:ana', rate: rate('1/s') }])
        .catch((e: unknown) => e);
      expect(StoreUnavailableError.isInstance(error)).toBe(true);
    } finally {
      await store.close();
    }
  });
});
