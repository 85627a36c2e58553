import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from './crypto.js';
import {
  InvalidGrantBreaker,
  RefreshCoordinator,
  type RefreshPermit,
  type RefreshRefusal,
} from './refresh.js';
import { createStore } from './store/create.js';
import type { KvStore } from './store/kv.js';
import { SealedRecords } from './store/sealed.js';
import { type RedisServer, redisRequirement, startRedisServer } from './testing/index.js';

const keyring = Keyring.fromSecrets({ secret: 'refresh-coordinator-test-secret-0123456789' });
const KEY = 'conn:u1:basecamp';

interface Connection {
  accessToken: string;
  refreshToken: string;
  expiresAt: number;
}
const expired: Connection = { accessToken: 'at-0', refreshToken: 'rt-0', expiresAt: 0 };
const needsRefresh = (connection: Connection) => connection.expiresAt < Date.now() + 600_000;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An upstream token endpoint stand-in that counts its calls and rotates the refresh token. */
function upstream(latencyMs = 50) {
  const calls: string[] = [];
  return {
    calls,
    refresh: async (connection: Connection): Promise<Connection> => {
      calls.push(connection.refreshToken);
      await delay(latencyMs);
      const n = calls.length;
      return { accessToken: `at-${n}`, refreshToken: `rt-${n}`, expiresAt: Date.now() + 14 * 86_400_000 };
    },
  };
}

const requirement = redisRequirement();
let redis: RedisServer | undefined;
beforeAll(async () => {
  if ('path' in requirement) redis = await startRedisServer({ path: requirement.path });
});
afterAll(async () => {
  await redis?.stop();
});

/** Two replicas: two store instances on one Redis, or one memory store used twice. */
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
      const prefix = `refresh:${Math.random().toString(36).slice(2)}:`;
      const url = (redis as RedisServer).url;
      return [await createStore(url, { prefix }), await createStore(url, { prefix })];
    },
  },
];

for (const driver of drivers) {
  describe(`RefreshCoordinator on ${driver.name}`, () => {
    const guard = (context: { skip: (note?: string) => void }) => {
      if (driver.name.startsWith('redis') && 'skip' in requirement) context.skip(requirement.skip);
    };

    it('20 concurrent calls on expired credentials cause exactly one refresh; all get its result', async (context) => {
      guard(context);
      const [a, b] = await driver.open();
      try {
        await new SealedRecords(a, keyring).set(KEY, expired);
        const fake = upstream(100);
        const replicas = [
          new RefreshCoordinator(a, keyring, { pollMs: 20 }),
          new RefreshCoordinator(b, keyring, { pollMs: 20 }),
        ];
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (replicas[i % 2] as RefreshCoordinator).current<Connection>({
              key: KEY,
              needsRefresh,
              refresh: fake.refresh,
            }),
          ),
        );
        expect(fake.calls).toEqual(['rt-0']);
        expect(new Set(results.map((result) => result?.accessToken))).toEqual(new Set(['at-1']));
        // Fresh now: the next call does not refresh.
        expect(
          (await replicas[1]?.current<Connection>({ key: KEY, needsRefresh, refresh: fake.refresh }))
            ?.refreshToken,
        ).toBe('rt-1');
        expect(fake.calls).toHaveLength(1);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    it('a failed refresh reaches its caller; waiters get a retryable error, not a second refresh', async (context) => {
      guard(context);
      const [a, b] = await driver.open();
      try {
        await new SealedRecords(a, keyring).set(KEY, expired);
        let calls = 0;
        const failing = async () => {
          calls++;
          await delay(500);
          throw new Error('invalid_grant');
        };
        const replicas = [
          new RefreshCoordinator(a, keyring, { pollMs: 20 }),
          new RefreshCoordinator(b, keyring, { pollMs: 20 }),
        ];
        const results = await Promise.allSettled(
          Array.from({ length: 6 }, (_, i) =>
            (replicas[i % 2] as RefreshCoordinator).current<Connection>({
              key: KEY,
              needsRefresh,
              refresh: failing,
            }),
          ),
        );
        expect(calls).toBe(1);
        const reasons = results.map((result) => (result.status === 'rejected' ? result.reason : undefined));
        expect(reasons.filter((reason) => reason?.message === 'invalid_grant')).toHaveLength(1);
        expect(
          reasons.filter((reason) => reason?.code === 'UPSTREAM_UNAVAILABLE' && reason.retryable),
        ).toHaveLength(5);
        // The record is unchanged and the lock is free: a later call may try again.
        expect((await new SealedRecords(b, keyring).get<Connection>(KEY))?.value).toEqual(expired);
        const fake = upstream(0);
        expect(
          (await replicas[0]?.current<Connection>({ key: KEY, needsRefresh, refresh: fake.refresh }))
            ?.accessToken,
        ).toBe('at-1');
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    it('a newer write during the refresh wins over the refresh result (compare-and-set)', async (context) => {
      guard(context);
      const [a, b] = await driver.open();
      try {
        const records = new SealedRecords(a, keyring);
        await records.set(KEY, expired);
        const signedInAgain: Connection = {
          accessToken: 'at-new-login',
          refreshToken: 'rt-new',
          expiresAt: Date.now() + 86_400_000,
        };
        const result = await new RefreshCoordinator(b, keyring).current<Connection>({
          key: KEY,
          needsRefresh,
          refresh: async () => {
            await records.set(KEY, signedInAgain);
            return { accessToken: 'at-stale', refreshToken: 'rt-stale', expiresAt: Date.now() + 86_400_000 };
          },
        });
        expect(result).toEqual(signedInAgain);
        expect((await records.get<Connection>(KEY))?.value).toEqual(signedInAgain);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    it('a waiter gives up after waitMs with a retryable error; the holder still finishes', async (context) => {
      guard(context);
      const [a, b] = await driver.open();
      try {
        await new SealedRecords(a, keyring).set(KEY, expired);
        const fake = upstream(800);
        const holder = new RefreshCoordinator(a, keyring).current<Connection>({
          key: KEY,
          needsRefresh,
          refresh: fake.refresh,
        });
        // The holder has the lock once its refresh has started.
        while (fake.calls.length === 0) await delay(5);
        const waiter = new RefreshCoordinator(b, keyring, { waitMs: 100, pollMs: 20 }).current<Connection>({
          key: KEY,
          needsRefresh,
          refresh: fake.refresh,
        });
        await expect(waiter).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', retryable: true });
        expect((await holder)?.accessToken).toBe('at-1');
        expect(fake.calls).toHaveLength(1);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    it('no record: undefined, and nothing is refreshed', async (context) => {
      guard(context);
      const [a, b] = await driver.open();
      try {
        const fake = upstream();
        expect(
          await new RefreshCoordinator(a, keyring).current({
            key: 'conn:nobody:basecamp',
            needsRefresh,
            refresh: fake.refresh,
          }),
        ).toBeUndefined();
        expect(fake.calls).toEqual([]);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    it('InvalidGrantBreaker: concurrent failures from replicas all count; opens at the threshold; the window drains', async (context) => {
      guard(context);
      const [a, b] = await driver.open();
      try {
        let now = Date.now();
        const options = { windowMs: 48 * 3600_000, threshold: 3, now: () => now };
        const breakers = [new InvalidGrantBreaker(a, options), new InvalidGrantBreaker(b, options)];
        expect(await breakers[0]?.state()).toEqual({
          failures: 0,
          pending: 0,
          open: false,
          threshold: 3,
          subjects: [],
        });
        await Promise.all([breakers[0]?.record(), breakers[1]?.record()]);
        expect(await breakers[1]?.state()).toMatchObject({ failures: 2, open: false });
        now += 47 * 3600_000;
        await breakers[1]?.record();
        expect(await breakers[0]?.state()).toMatchObject({ failures: 3, open: true });
        // 48 h after the first two, only the third still counts.
        now += 2 * 3600_000;
        expect(await breakers[0]?.state()).toMatchObject({ failures: 1, open: false });
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    it('InvalidGrantBreaker permits: failures plus refreshes in flight never pass the threshold', async (context) => {
      guard(context);
      const [a, b] = await driver.open();
      try {
        const options = { threshold: 3, waitMs: 5_000, pollMs: 10 };
        const breakers = [new InvalidGrantBreaker(a, options), new InvalidGrantBreaker(b, options)];
        // Five refreshes want to start at once on two replicas: three get a permit, two wait.
        const attempts = [0, 1, 2, 3, 4].map((index) => breakers[index % 2]?.acquire());
        const settled: Array<RefreshPermit | RefreshRefusal | undefined | 'waiting'> = attempts.map(
          () => 'waiting',
        );
        attempts.forEach((attempt, index) => {
          void attempt?.then((permit) => {
            settled[index] = permit;
          });
        });
        const isPermit = (entry: (typeof settled)[number]): entry is RefreshPermit =>
          typeof entry === 'object' && !('refused' in entry);
        while (settled.filter((entry) => entry !== 'waiting').length < 3) await delay(10);
        await delay(50);
        const granted = settled.filter(isPermit);
        expect(granted).toHaveLength(3);
        expect(await breakers[0]?.state()).toMatchObject({ failures: 0, pending: 3, open: false });
        // One succeeds: its permit goes to a waiter. Then three fail: the breaker opens, and the
        // last waiter gets no permit.
        await granted[0]?.release();
        while (settled.filter((entry) => entry !== 'waiting').length < 4) await delay(10);
        const fourth = settled.find(
          (entry): entry is RefreshPermit => isPermit(entry) && !granted.includes(entry),
        );
        await Promise.all([granted[1]?.failed(), granted[2]?.failed(), fourth?.failed()]);
        const results = await Promise.all(attempts);
        expect(results.filter((permit) => permit && 'refused' in permit)).toEqual([{ refused: 'open' }]);
        expect(await breakers[1]?.state()).toMatchObject({ failures: 3, pending: 0, open: true });
        expect(await breakers[1]?.acquire()).toEqual({ refused: 'open' });
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });
  });
}
