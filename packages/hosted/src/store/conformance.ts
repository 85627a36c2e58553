// The one behaviour suite every KvStore driver runs (memory, file, redis): a driver's test
// file supplies how to open a fresh store, plus its own specifics. Not part of the package.
import { McpToolError } from '@x/mcp-core';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../errors.js';
import type { KvStore } from './kv.js';

export interface DriverHarness {
  /** A fresh, empty store for one test. */
  open(): Promise<KvStore>;
  /**
   * Another instance on the same data as the last `open()` (another replica); drivers that
   * serve a single process leave it out and the races run on one instance.
   */
  openSecond?(): Promise<KvStore>;
  /** Called before each test (e.g. to skip when Redis is missing). */
  guard?(context: { skip: (note?: string) => void }): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SHORT_TTL = 150;
const PAST_SHORT_TTL = 400;

export function runKvConformance(name: string, harness: DriverHarness): void {
  describe(`KvStore conformance: ${name}`, () => {
    const opened: KvStore[] = [];
    const open = async () => {
      const store = await harness.open();
      opened.push(store);
      return store;
    };
    const pair = async (): Promise<[KvStore, KvStore]> => {
      const first = await open();
      if (!harness.openSecond) return [first, first];
      const second = await harness.openSecond();
      opened.push(second);
      return [first, second];
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });
    const test = (title: string, body: () => Promise<void>) =>
      it(title, async (context) => {
        harness.guard?.(context);
        await body();
      });

    test('keys(prefix): the live records under a prefix, not sets, locks or expired records', async () => {
      const [a, b] = await pair();
      await a.set('user:1:x', '1');
      await a.set('user:1:y', '2', { ttlMs: 600_000 });
      await a.set('user:10:x', '3');
      await a.set('user:[*]?', '4');
      await a.sadd('user:1:set', ['m']);
      await a.lock('user:1:lock', 10_000);
      expect((await b.keys('user:1:')).sort()).toEqual(['user:1:x', 'user:1:y']);
      expect((await b.keys('user:[*]')).sort()).toEqual(['user:[*]?']);
      expect((await b.keys('')).length).toBe(4);
      // Only asserted once it has expired: how long the machine takes before then does not matter.
      await a.set('user:1:z', '5', { ttlMs: SHORT_TTL });
      await sleep(PAST_SHORT_TTL);
      expect((await b.keys('user:1:')).sort()).toEqual(['user:1:x', 'user:1:y']);
      expect(await b.keys('nobody:')).toEqual([]);
    });

    test('get / set / delete, with a new version on every write', async () => {
      const store = await open();
      expect(await store.get('a')).toBeUndefined();
      const v1 = await store.set('a', 'one');
      expect(v1).toEqual(expect.any(Number));
      expect(await store.get('a')).toEqual({ value: 'one', version: v1 });
      const v2 = await store.set('a', 'two');
      expect(v2).not.toBe(v1);
      expect(await store.get('a')).toEqual({ value: 'two', version: v2 });
      expect(await store.delete('a')).toBe(true);
      expect(await store.delete('a')).toBe(false);
      expect(await store.get('a')).toBeUndefined();
    });

    test('getMany: several records in order, undefined for absent and expired ones', async () => {
      const [a, b] = await pair();
      expect(await b.getMany([])).toEqual([]);
      const v1 = await a.set('m:1', 'one');
      const v3 = await a.set('m:3', 'three', { ttlMs: 60_000 });
      await a.set('m:gone', 'soon', { ttlMs: SHORT_TTL });
      await a.sadd('m:set', ['x']);
      await sleep(PAST_SHORT_TTL);
      const many = await b.getMany(['m:1', 'm:2', 'm:3', 'm:gone', 'm:set', 'm:1']);
      expect(many).toEqual([
        { value: 'one', version: v1 },
        undefined,
        { value: 'three', version: v3, expiresAt: expect.any(Number) },
        undefined,
        undefined,
        { value: 'one', version: v1 },
      ]);
      await expect(b.getMany(['ok', ''])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    });

    test('values round-trip exactly: empty, unicode, JSON, 64 KiB', async () => {
      const store = await open();
      const values = ['', 'zürich ✓ 日本 🙂', JSON.stringify({ a: [1, null, '"q"'] }), 'x'.repeat(65_536)];
      for (const [index, value] of values.entries()) {
        await store.set(`v${index}`, value);
        expect((await store.get(`v${index}`))?.value).toBe(value);
      }
    });

    test('a TTL sets expiresAt and the record disappears after it', async () => {
      const store = await open();
      const before = Date.now();
      await store.set('kept', 'long', { ttlMs: 60_000 });
      const entry = await store.get('kept');
      expect(entry?.value).toBe('long');
      expect(entry?.expiresAt).toBeGreaterThanOrEqual(before + 60_000 - 50);
      expect(entry?.expiresAt).toBeLessThanOrEqual(Date.now() + 60_000 + 50);
      // Only asserted once it has expired: how long the machine takes before then does not matter.
      await store.set('t', 'soon', { ttlMs: SHORT_TTL });
      await sleep(PAST_SHORT_TTL);
      expect(await store.get('t')).toBeUndefined();
      expect(await store.consume('t')).toBeUndefined();
      expect(await store.delete('t')).toBe(false);
      expect((await store.get('kept'))?.value).toBe('long');
    });

    test('a write without TTL removes an earlier expiry', async () => {
      const store = await open();
      await store.set('p', 'first', { ttlMs: SHORT_TTL });
      await store.set('p', 'second');
      expect((await store.get('p'))?.expiresAt).toBeUndefined();
      await sleep(PAST_SHORT_TTL);
      expect((await store.get('p'))?.value).toBe('second');
    });

    test('compare-and-set: ifVersion 0 creates only, a stale version writes nothing', async () => {
      const store = await open();
      const created = await store.set('c', 'first', { ifVersion: 0 });
      expect(created).toEqual(expect.any(Number));
      expect(await store.set('c', 'again', { ifVersion: 0 })).toBeUndefined();
      const updated = await store.set('c', 'second', { ifVersion: created as number });
      expect(updated).toEqual(expect.any(Number));
      expect(await store.set('c', 'stale', { ifVersion: created as number })).toBeUndefined();
      expect(await store.get('c')).toEqual({ value: 'second', version: updated });
      expect(await store.set('missing', 'x', { ifVersion: updated as number })).toBeUndefined();
      expect(await store.get('missing')).toBeUndefined();
    });

    test('a deleted and re-created record never repeats a version (no ABA)', async () => {
      const store = await open();
      const old = (await store.set('aba', 'one')) as number;
      await store.delete('aba');
      const again = (await store.set('aba', 'two')) as number;
      expect(again).not.toBe(old);
      expect(await store.set('aba', 'stale writer', { ifVersion: old })).toBeUndefined();
      expect((await store.get('aba'))?.value).toBe('two');
    });

    test('an expired record counts as absent for ifVersion 0', async () => {
      const store = await open();
      await store.set('e', 'old', { ttlMs: SHORT_TTL });
      await sleep(PAST_SHORT_TTL);
      expect(await store.set('e', 'new', { ifVersion: 0 })).toEqual(expect.any(Number));
    });

    test('consume returns the value once', async () => {
      const store = await open();
      expect(await store.consume('code')).toBeUndefined();
      await store.set('code', 'secret-code', { ttlMs: 60_000 });
      expect(await store.consume('code')).toBe('secret-code');
      expect(await store.consume('code')).toBeUndefined();
      expect(await store.get('code')).toBeUndefined();
    });

    test('lock: one holder; release only by the holder; a lapsed lock can be taken', async () => {
      const store = await open();
      const first = await store.lock('refresh:u1', 60_000);
      expect(first?.owner).toEqual(expect.any(String));
      expect(await store.lock('refresh:u1', 60_000)).toBeUndefined();
      expect(await store.lock('refresh:u2', 60_000)).toBeDefined();
      expect(await first?.release()).toBe(true);
      expect(await first?.release()).toBe(false);
      const short = await store.lock('refresh:u1', SHORT_TTL);
      expect(short).toBeDefined();
      await sleep(PAST_SHORT_TTL);
      const next = await store.lock('refresh:u1', 60_000);
      expect(next).toBeDefined();
      expect(next?.owner).not.toBe(short?.owner);
      // The lapsed holder cannot release the new holder's lock.
      expect(await short?.release()).toBe(false);
      expect(await store.lock('refresh:u1', 60_000)).toBeUndefined();
      expect(await next?.release()).toBe(true);
    });

    test('locks and records do not share a key space', async () => {
      const store = await open();
      await store.set('same', 'record');
      expect(await store.lock('same', 60_000)).toBeDefined();
      expect((await store.get('same'))?.value).toBe('record');
      await store.sadd('same', ['m']);
      expect(await store.smembers('same')).toEqual(['m']);
      expect((await store.get('same'))?.value).toBe('record');
    });

    test('sets: add, dedupe, remove; an emptied set is gone', async () => {
      const store = await open();
      expect(await store.smembers('grants')).toEqual([]);
      await store.sadd('grants', ['g1', 'g2', 'g1']);
      await store.sadd('grants', ['g3']);
      await store.sadd('grants', []);
      expect((await store.smembers('grants')).sort()).toEqual(['g1', 'g2', 'g3']);
      await store.srem('grants', ['g2', 'nope']);
      expect((await store.smembers('grants')).sort()).toEqual(['g1', 'g3']);
      await store.srem('grants', ['g1', 'g3']);
      expect(await store.smembers('grants')).toEqual([]);
      await store.srem('absent', ['x']);
    });

    test('set TTL: expires, is extended by a longer TTL, never shortened', async () => {
      const store = await open();
      await store.sadd('short', ['a'], { ttlMs: SHORT_TTL });
      await store.sadd('extended', ['a'], { ttlMs: SHORT_TTL });
      await store.sadd('extended', ['b'], { ttlMs: 60_000 });
      await store.sadd('kept', ['a'], { ttlMs: 60_000 });
      await store.sadd('kept', ['b'], { ttlMs: SHORT_TTL });
      await store.sadd('forever', ['a'], { ttlMs: SHORT_TTL });
      await store.sadd('forever', ['b']);
      await sleep(PAST_SHORT_TTL);
      expect(await store.smembers('short')).toEqual([]);
      expect((await store.smembers('extended')).sort()).toEqual(['a', 'b']);
      expect((await store.smembers('kept')).sort()).toEqual(['a', 'b']);
      expect((await store.smembers('forever')).sort()).toEqual(['a', 'b']);
    });

    test('races between replicas: exactly one compare-and-set wins', async () => {
      const [a, b] = await pair();
      const base = (await a.set('token', 'v0')) as number;
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? a : b).set('token', `writer-${i}`, { ifVersion: base }),
        ),
      );
      const winners = results.filter((version) => version !== undefined);
      expect(winners).toHaveLength(1);
      const winner = results.findIndex((version) => version !== undefined);
      expect(await b.get('token')).toEqual({ value: `writer-${winner}`, version: winners[0] });
    });

    test('races between replicas: exactly one create (ifVersion 0) wins', async () => {
      const [a, b] = await pair();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).set('jwks', `keys-${i}`, { ifVersion: 0 })),
      );
      expect(results.filter((version) => version !== undefined)).toHaveLength(1);
    });

    test('races between replicas: exactly one consume gets the code', async () => {
      const [a, b] = await pair();
      await a.set('code:1', 'payload', { ttlMs: 60_000 });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).consume('code:1')),
      );
      expect(results.filter((value) => value !== undefined)).toEqual(['payload']);
    });

    test('races between replicas: exactly one takes the lock', async () => {
      const [a, b] = await pair();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).lock('refresh:u', 60_000)),
      );
      const holders = results.filter((lock) => lock !== undefined);
      expect(holders).toHaveLength(1);
      expect(
        await (results.find((lock) => lock !== undefined) as NonNullable<(typeof results)[number]>).release(),
      ).toBe(true);
      expect(await b.lock('refresh:u', 60_000)).toBeDefined();
    });

    test('bad arguments are typed INVALID_INPUT errors', async () => {
      const store = await open();
      const invalid = expect.objectContaining({ code: 'INVALID_INPUT' });
      await expect(store.get('')).rejects.toEqual(invalid);
      await expect(store.set('k', 'v', { ttlMs: 0 })).rejects.toEqual(invalid);
      await expect(store.set('k', 'v', { ttlMs: -5 })).rejects.toEqual(invalid);
      await expect(store.set('k', 'v', { ttlMs: 1.5 })).rejects.toEqual(invalid);
      await expect(store.set('k', 'v', { ifVersion: -1 })).rejects.toEqual(invalid);
      await expect(store.set('k', 42 as unknown as string)).rejects.toEqual(invalid);
      await expect(store.lock('k', 0)).rejects.toEqual(invalid);
      await expect(store.sadd('k', [1 as unknown as string])).rejects.toEqual(invalid);
      await expect(store.get('x'.repeat(2000))).rejects.toSatisfy(McpToolError.isInstance);
      expect(await store.get('k')).toBeUndefined();
    });

    test('watch: every write, consume and delete by any client is reported (by key, or as lost then live)', async () => {
      const [a, b] = await pair();
      if (!b.watch) return;
      // A key, or '*' for "everything may have changed" (lost() then live()).
      const events: string[] = [];
      let arrived: (() => void) | undefined;
      let live!: () => void;
      const ready = new Promise<void>((resolve) => {
        live = resolve;
      });
      const stop = await b.watch({
        changed: (key) => {
          events.push(key);
          arrived?.();
        },
        lost: () => undefined,
        live: () => {
          events.push('*');
          live();
          arrived?.();
        },
      });
      await ready;
      /** Does `write`, then waits until a report covers `key`. */
      const reported = async (key: string, write: () => Promise<unknown>) => {
        const mark = events.length;
        const covered = () => events.slice(mark).some((event) => event === key || event === '*');
        await write();
        await new Promise<void>((resolve) => {
          arrived = () => {
            if (covered()) resolve();
          };
          arrived();
        });
      };
      await reported('grant:1', () => a.set('grant:1', 'v1'));
      await reported('code:1', () => a.set('code:1', 'c'));
      await reported('code:1', () => a.consume('code:1'));
      await reported('grant:1', () => a.delete('grant:1'));
      await reported('conn:1', () => a.set('conn:1', 'x', { ttlMs: 60_000 }));
      await stop();
    });

    test('a closed store rejects every call with StoreUnavailableError', async () => {
      const store = await open();
      await store.set('k', 'v');
      await store.close();
      for (const call of [
        () => store.get('k'),
        () => store.set('k', 'v'),
        () => store.consume('k'),
        () => store.lock('k', 1000),
        () => store.smembers('k'),
        () => store.ping(),
      ]) {
        const error = await call().then(
          () => undefined,
          (reason: unknown) => reason,
        );
        expect(StoreUnavailableError.isInstance(error), String(error)).toBe(true);
        expect((error as StoreUnavailableError).retryable).toBe(true);
      }
    });
  });
}
