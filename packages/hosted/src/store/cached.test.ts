// The per-replica read cache (decision 0017): what it keeps, and that every change by any
// client — another replica, an admin command, a store it cannot see — ends a copy.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../errors.js';
import { type RedisServer, redisRequirement, startRedisServer } from '../testing/index.js';
import { CachedStore } from './cached.js';
import { createStore } from './create.js';
import type { KvStore } from './kv.js';
import { MemoryStore } from './memory.js';

const requirement = redisRequirement();
let redis: RedisServer | undefined;
beforeAll(async () => {
  if ('path' in requirement) redis = await startRedisServer({ path: requirement.path });
});
afterAll(async () => {
  await redis?.stop();
});
const needsRedis = (context: { skip: (note?: string) => void }) => {
  if ('skip' in requirement) context.skip(requirement.skip);
};

const PREFIXES = ['grant:', 'conn:'];

/** Reads `key` through `store` until `done` holds (the watch's report is on its way). */
async function until(store: KvStore, key: string, done: (value: string | undefined) => boolean) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const value = await store.get(key).then(
      (entry) => entry?.value,
      () => Symbol.for('unavailable'),
    );
    if (typeof value !== 'symbol' && done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`${key} never changed`);
}

describe('CachedStore over memory:', () => {
  it('serves kept records from memory; a change through any client ends the copy before it resolves', async () => {
    const inner = new MemoryStore();
    const [a, b] = [
      await CachedStore.over(inner, { prefixes: PREFIXES }),
      await CachedStore.over(inner, { prefixes: PREFIXES }),
    ];
    await inner.set('grant:1', 'g1');
    await inner.set('other:1', 'o1');
    expect((await a.getMany(['grant:1', 'other:1'])).map((entry) => entry?.value)).toEqual(['g1', 'o1']);
    expect((a as CachedStore).size).toBe(1); // only the prefixes named are kept
    // Kept: the store underneath is not asked again.
    const get = inner.getMany.bind(inner);
    inner.getMany = async () => {
      throw new StoreUnavailableError('not asked');
    };
    try {
      expect((await a.get('grant:1'))?.value).toBe('g1');
    } finally {
      inner.getMany = get;
    }
    // Deleted by another replica, written by the store's owner, consumed: the next read sees it.
    await b.delete('grant:1');
    expect(await a.get('grant:1')).toBeUndefined();
    await inner.set('grant:1', 'g2');
    expect((await a.get('grant:1'))?.value).toBe('g2');
    await inner.consume('grant:1');
    expect(await a.get('grant:1')).toBeUndefined();
  });

  it('never keeps a copy past its record’s expiry or maxAgeMs', async () => {
    const inner = new MemoryStore();
    const store = await CachedStore.over(inner, { prefixes: PREFIXES, maxAgeMs: 1 });
    await inner.set('conn:1', 'c1');
    expect((await store.get('conn:1'))?.value).toBe('c1');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const get = inner.getMany.bind(inner);
    let asked = 0;
    inner.getMany = async (keys) => {
      asked++;
      return get(keys);
    };
    expect((await store.get('conn:1'))?.value).toBe('c1');
    expect(asked).toBe(1);
    const short = await CachedStore.over(new MemoryStore(), { prefixes: PREFIXES });
    await short.set('grant:2', 'g', { ttlMs: 20 });
    expect((await short.get('grant:2'))?.value).toBe('g');
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(await short.get('grant:2')).toBeUndefined();
  });

  it('a read that began before a change is not kept', async () => {
    const inner = new MemoryStore();
    const store = await CachedStore.over(inner, { prefixes: PREFIXES });
    await inner.set('grant:1', 'old');
    const get = inner.getMany.bind(inner);
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    inner.getMany = async (keys) => {
      const answer = await get(keys);
      await held; // the change lands while this read is on its way back
      return answer;
    };
    const reading = store.get('grant:1');
    inner.getMany = get;
    await inner.set('grant:1', 'new');
    release();
    expect((await reading)?.value).toBe('old');
    expect((await store.get('grant:1'))?.value).toBe('new');
  });

  it('peek answers from memory only, all or nothing, under the same rules as getMany', async () => {
    const inner = new MemoryStore();
    const store = await CachedStore.over(inner, { prefixes: PREFIXES, maxAgeMs: 50 });
    await inner.set('grant:1', 'g1');
    await inner.set('conn:1', 'c1');
    await inner.set('other:1', 'o1');
    // Nothing read yet: nothing to peek at; a store without a cache has nothing either.
    expect(CachedStore.peek(store, ['grant:1'])).toBeUndefined();
    expect(CachedStore.peek(inner, ['grant:1'])).toBeUndefined();
    await store.getMany(['grant:1', 'conn:1', 'other:1']);
    expect(CachedStore.peek(store, ['grant:1', 'conn:1'])?.map((entry) => entry.value)).toEqual(['g1', 'c1']);
    // A key that is not kept (not a cached prefix) makes the whole answer "read it".
    expect(CachedStore.peek(store, ['grant:1', 'other:1'])).toBeUndefined();
    // A change reported by the store ends the copy at once.
    await inner.set('conn:1', 'c2');
    expect(CachedStore.peek(store, ['grant:1', 'conn:1'])).toBeUndefined();
    expect((await store.get('conn:1'))?.value).toBe('c2');
    expect(CachedStore.peek(store, ['conn:1'])?.[0]?.value).toBe('c2');
    // Past maxAgeMs: not served, and dropped.
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(CachedStore.peek(store, ['grant:1'])).toBeUndefined();
    expect(store instanceof CachedStore && store.size).toBe(1);
    // Closed (no longer watching): nothing is served from memory.
    await store.get('grant:1');
    await (store as CachedStore).close();
    expect(CachedStore.peek(store, ['grant:1'])).toBeUndefined();
  });
});

describe('CachedStore over redis:// (two replicas)', () => {
  const opened: KvStore[] = [];
  const replica = async (prefix: string, maxAgeMs?: number) => {
    const inner = await createStore((redis as RedisServer).url, { prefix });
    opened.push(inner);
    const cached = await CachedStore.over(inner, { prefixes: PREFIXES, ...(maxAgeMs ? { maxAgeMs } : {}) });
    opened.push(cached);
    // Notifications flow once a write made now is reported back.
    await inner.set('warm', '1');
    await until(cached, 'grant:warm-up', () => true);
    return cached;
  };
  afterAll(async () => {
    for (const store of opened.reverse()) await store.close().catch(() => undefined);
  });

  it('a revoke on one replica ends the other replica’s copy (reported, not waited out)', async (context) => {
    needsRedis(context);
    const prefix = `cached:${randomUUID()}:`;
    const [a, b] = [await replica(prefix, 60_000), await replica(prefix, 60_000)];
    await a.set('grant:1', 'g1');
    expect((await b.get('grant:1'))?.value).toBe('g1');
    await a.delete('grant:1');
    expect(await until(b, 'grant:1', (value) => value === undefined)).toBeUndefined();
    await a.set('conn:1', 'c1');
    expect((await b.get('conn:1'))?.value).toBe('c1');
    await a.set('conn:1', 'c2');
    expect(await until(b, 'conn:1', (value) => value === 'c2')).toBe('c2');
  });

  it('while the watch is down nothing is served from memory: a Redis outage answers StoreUnavailableError', async (context) => {
    needsRedis(context);
    const prefix = `cached:${randomUUID()}:`;
    const store = await replica(prefix, 60_000);
    await store.set('grant:1', 'g1');
    expect((await store.get('grant:1'))?.value).toBe('g1');
    await redis?.kill();
    try {
      let error: unknown;
      for (let attempt = 0; attempt < 200 && !error; attempt++) {
        error = await store.get('grant:1').then(
          () => undefined,
          (reason: unknown) => reason,
        );
        if (!error) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(StoreUnavailableError.isInstance(error)).toBe(true);
    } finally {
      await redis?.start();
    }
    // Back (without persistence: the record is gone), and no copy from before the outage answers.
    expect(await until(store, 'grant:1', () => true)).toBeUndefined();
  });

  it('a change the watch cannot report (FLUSHALL) ends a copy within maxAgeMs', async (context) => {
    needsRedis(context);
    const prefix = `cached:${randomUUID()}:`;
    const store = await replica(prefix, 300);
    await store.set('grant:1', 'g1');
    expect((await store.get('grant:1'))?.value).toBe('g1');
    const raw = new Redis((redis as RedisServer).url);
    try {
      await raw.flushall();
    } finally {
      raw.disconnect();
    }
    expect(await until(store, 'grant:1', (value) => value === undefined)).toBeUndefined();
  });
});
