// The cross-replica refresh race of issue #23 (defect 1), made deterministic: two replicas'
// `Connections` on one store (memory, and two clients of one real Redis), 20 concurrent requests
// of one user whose Basecamp token is due, and the holder's Launchpad call held at a barrier
// until every other request is waiting — then marks on the old token arrive (what an older
// replica writes on a 401) before the refresh answers. Repeated 20 times per driver.

import { Launchpad } from '@x/mcp-basecamp/connection';
import type { FakeBasecamp } from '@x/mcp-basecamp/testing';
import { startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from '../crypto.js';
import { RefreshCoordinator, type RefreshCoordinatorOptions } from '../refresh.js';
import { CachedStore } from '../store/cached.js';
import { createStore } from '../store/create.js';
import type { KvStore, KvWatcher } from '../store/kv.js';
import { MemoryStore } from '../store/memory.js';
import { SealedRecords } from '../store/sealed.js';
import { type RedisServer, redisRequirement, startRedisServer } from '../testing/index.js';
import { Connections, connectionKey, type SignInRecord } from './connections.js';

const keyring = Keyring.fromSecrets({ secret: 'refresh-race-test-secret-0123456789abcdef' });
const USER = 'basecamp:101';
const ROUNDS = 20;
const CALLS = 20;

const requirement = redisRequirement();
let redis: RedisServer | undefined;
let fake: FakeBasecamp;
beforeAll(async () => {
  fake = await startFakeBasecamp({ launchpad: { refreshTokenRotation: true } });
  if ('path' in requirement) redis = await startRedisServer({ path: requirement.path });
});
afterAll(async () => {
  await fake?.close();
  await redis?.stop();
});

/** One replica's connections on `store`, refreshing at the fake Launchpad (through `fetch`). */
function replicaOn(
  store: KvStore,
  options: { fetch?: typeof fetch; refresher?: RefreshCoordinatorOptions } = {},
) {
  return new Connections(
    store,
    keyring,
    new Launchpad({
      clientId: fake.client.id,
      clientSecret: fake.client.secret,
      url: fake.launchpadUrl,
      redirectUri: 'http://127.0.0.1/callback',
      ...(options.fetch ? { fetch: options.fetch } : {}),
    }),
    options.refresher ? { refresher: new RefreshCoordinator(store, keyring, options.refresher) } : {},
  );
}

/** Alice's connection with a pair of tokens the fake Launchpad just issued, expiring at `expiresAt`. */
function issuedConnection(expiresAt: number): SignInRecord {
  const issued = fake.issueTokens();
  return {
    status: 'active',
    accessToken: issued.accessToken,
    refreshToken: issued.refreshToken,
    expiresAt,
    accountId: '999999999',
    accountName: 'Honcho Design',
    identity: { id: '101', name: 'Alice', email: 'alice@example.com' },
    updatedAt: Date.now(),
  };
}

/** A deferred promise. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/**
 * Launchpad's fetch with a gate: a refresh request announces itself (`started`) and goes on to
 * the fake only when the test opens the gate.
 */
function gatedFetch() {
  let started = deferred();
  let gate = deferred();
  const fetchThroughGate: typeof fetch = async (input, init) => {
    const body = typeof init?.body === 'string' ? init.body : String(init?.body ?? '');
    if (/(grant_type=refresh_token|type=refresh)/.test(body)) {
      started.resolve();
      await gate.promise;
    }
    return fetch(input, init);
  };
  return {
    fetch: fetchThroughGate,
    started: () => started.promise,
    open: () => gate.resolve(),
    reset: () => {
      started = deferred();
      gate = deferred();
    },
  };
}

const drivers = [
  {
    name: 'memory:',
    open: async (): Promise<[KvStore, KvStore]> => {
      const store = await createStore('memory:');
      return [store, store];
    },
  },
  {
    name: 'redis:// (two replicas)',
    open: async (): Promise<[KvStore, KvStore]> => {
      const prefix = `race:${Math.random().toString(36).slice(2)}:`;
      const url = (redis as RedisServer).url;
      return [await createStore(url, { prefix }), await createStore(url, { prefix })];
    },
  },
];

for (const driver of drivers) {
  describe(`refresh race on ${driver.name}`, () => {
    it(`${CALLS} concurrent requests on two replicas while old-token marks land: one refresh, all get it (${ROUNDS} rounds)`, async (context) => {
      if (driver.name.startsWith('redis') && 'skip' in requirement) context.skip(requirement.skip);
      const [a, b] = await driver.open();
      const gate = gatedFetch();
      // Waiters look every 5 ms: the rounds stay short; the order comes from the gate.
      const replica = (store: KvStore) => replicaOn(store, { fetch: gate.fetch, refresher: { pollMs: 5 } });
      const replicas = [replica(a), replica(b)];
      const records = new SealedRecords(a, keyring);
      try {
        for (let round = 0; round < ROUNDS; round++) {
          // Due: it expires within the refresh margin.
          const old = issuedConnection(Date.now() + 60_000);
          await replicas[0]?.save(USER, old);
          gate.reset();
          fake.resetLog();
          const calls = Array.from({ length: CALLS }, (_, index) =>
            (replicas[index % 2] as Connections).current(USER),
          );
          await gate.started();
          // While the holder waits for Launchpad: an older replica marks the old token expired,
          // twice, each a new version of the record.
          for (let mark = 0; mark < 2; mark++) {
            const current = await records.get<SignInRecord>(connectionKey(USER));
            if (!current) throw new Error('no record');
            await records.set(
              connectionKey(USER),
              { ...current.value, expiresAt: 0 },
              { ifVersion: current.version },
            );
          }
          gate.open();
          const answers = await Promise.allSettled(calls);
          const rejected = answers.filter((answer) => answer.status === 'rejected');
          expect(rejected, `round ${round}`).toEqual([]);
          const stored = await replicas[1]?.get(USER);
          expect(stored?.accessToken).not.toBe(old.accessToken);
          expect(stored?.status).toBe('active');
          expect(stored?.expiresAt).toBeGreaterThan(Date.now() + 86_400_000);
          const tokens = new Set(
            answers.map((answer) => (answer.status === 'fulfilled' ? answer.value.accessToken : '')),
          );
          expect([...tokens]).toEqual([stored?.accessToken]);
          expect(fake.tokenRequests('refresh').map((request) => request.status)).toEqual([200]);
        }
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    }, 60_000);
  });
}

describe('a replica killed while holding the refresh lock', () => {
  it('a waiter is told to retry once the lock lapses with no result; the next caller refreshes once', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    const prefix = `killed:${Math.random().toString(36).slice(2)}:`;
    const url = (redis as RedisServer).url;
    const [a, b] = [await createStore(url, { prefix }), await createStore(url, { prefix })];
    const gate = gatedFetch();
    const replica = (store: KvStore) =>
      replicaOn(store, { fetch: gate.fetch, refresher: { lockTtlMs: 500, pollMs: 5 } });
    const [doomed, survivor] = [replica(a), replica(b)];
    try {
      const expired = issuedConnection(Date.now() - 1000);
      await survivor.save(USER, expired);
      // The holder takes the lock and is about to call Launchpad when its process dies: its
      // store connection is gone and its lock stays in Redis until the lock's time runs out.
      void doomed.current(USER).catch(() => undefined);
      await gate.started();
      await a.close();
      fake.resetLog();
      // No refresh reached Launchpad; a caller waiting meanwhile is told to retry (not signed out).
      await expect(survivor.current(USER)).rejects.toMatchObject({
        code: 'UPSTREAM_UNAVAILABLE',
        retryable: true,
      });
      expect((await survivor.get(USER))?.status).toBe('active');
      // The lock has lapsed: the next caller refreshes, once, through the (open) gate.
      gate.reset();
      gate.open();
      const next = await survivor.current(USER);
      expect(next.accessToken).not.toBe(expired.accessToken);
      expect(fake.tokenRequests('refresh').map((request) => request.status)).toEqual([200]);
    } finally {
      await b.close();
    }
  }, 30_000);
});

describe('a replica whose cache has not heard of another replica’s refresh yet', () => {
  it('does not refresh again: the re-read under the lock goes to the store', async () => {
    // One store whose change reports reach the replicas only when the test delivers them.
    const inner = new MemoryStore();
    const held: Array<() => void> = [];
    const watch = (watcher: KvWatcher) =>
      inner.watch({
        changed: (key) => held.push(() => watcher.changed(key)),
        lost: () => watcher.lost(),
        live: () => watcher.live(),
      });
    const slow = new Proxy(inner, {
      get: (target, name) => {
        if (name === 'watch') return watch;
        const value = Reflect.get(target, name, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as KvStore;
    const [a, b] = [
      await CachedStore.over(slow, { prefixes: ['conn:'] }),
      await CachedStore.over(slow, { prefixes: ['conn:'] }),
    ];
    const [first, second] = [replicaOn(a), replicaOn(b)];
    const due = issuedConnection(Date.now() + 60_000);
    await inner.set('warm', '1'); // nothing kept yet; reports flow
    await first.save(USER, due);
    for (const deliver of held.splice(0)) deliver();
    // Replica A keeps the due record in memory; replica B refreshes it; A has not heard yet.
    expect((await a.get(connectionKey(USER)))?.value).toBeDefined();
    fake.resetLog();
    const refreshed = await second.current(USER);
    expect(refreshed.accessToken).not.toBe(due.accessToken);
    expect(await first.current(USER)).toEqual(refreshed);
    expect(fake.tokenRequests('refresh').map((request) => request.status)).toEqual([200]);
    for (const deliver of held.splice(0)) deliver();
    await Promise.all([a.close(), b.close()]);
  });
});
