import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Socket, connect as tcpConnect } from 'node:net';
import { closedPort } from '@x/mcp-core/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../errors.js';
import { type RedisServer, redisRequirement, startRedisServer } from '../testing/index.js';
import { runKvConformance } from './conformance.js';
import { createStore } from './create.js';
import type { KvStore } from './kv.js';

// Skipped with the reason when redis-server is missing; under CI=true that throws (a failure).
const requirement = redisRequirement();
const skipReason = 'skip' in requirement ? requirement.skip : undefined;
if (skipReason) process.stderr.write(`redis.test.ts: SKIPPED: ${skipReason}\n`);
const guard = (context: { skip: (note?: string) => void }) => {
  if (skipReason) context.skip(skipReason);
};

let server: RedisServer | undefined;
beforeAll(async () => {
  if ('path' in requirement) server = await startRedisServer({ path: requirement.path });
});
afterAll(async () => {
  await server?.stop();
});

let prefix = '';
const url = () => (server as RedisServer).url;
runKvConformance('redis://', {
  guard,
  open: () => {
    prefix = `test:${randomUUID()}:`;
    return createStore(url(), { prefix });
  },
  openSecond: () => createStore(url(), { prefix }),
});

/** The error a call rejected with (or undefined when it resolved). */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('redis:// when Redis is unreachable', () => {
  it('nothing listening: every call is a StoreUnavailableError (never "not found")', async (context) => {
    guard(context);
    const store = await createStore(`redis://127.0.0.1:${await closedPort()}`);
    try {
      for (const call of [
        store.get('k'),
        store.set('k', 'v'),
        store.consume('k'),
        store.lock('k', 1000),
        store.ping(),
      ]) {
        const error = await failure(call);
        expect(StoreUnavailableError.isInstance(error), String(error)).toBe(true);
        expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', retryable: true, retryAfterSeconds: 5 });
      }
    } finally {
      await store.close();
    }
  });

  it('killed: calls fail with StoreUnavailableError; restarted: the same store works again', async (context) => {
    guard(context);
    const own = await startRedisServer();
    const store = await createStore(own.url, { prefix: 'restart:' });
    try {
      await store.set('k', 'before');
      await own.kill();
      const error = await failure(store.get('k'));
      expect(StoreUnavailableError.isInstance(error), String(error)).toBe(true);
      expect((error as Error).message).toContain(`127.0.0.1:${own.port}`);
      await own.start();
      // ioredis reconnects by itself (within about a second); poll a bounded number of times.
      let answered = false;
      for (let attempt = 0; attempt < 50 && !answered; attempt++) {
        answered = await store.ping().then(
          () => true,
          async (reason: unknown) => {
            expect(StoreUnavailableError.isInstance(reason)).toBe(true);
            await new Promise((resolve) => setTimeout(resolve, 100));
            return false;
          },
        );
      }
      expect(answered).toBe(true);
      // No persistence in this server: the data is gone, but the store works.
      expect(await store.get('k')).toBeUndefined();
      expect(await store.set('k', 'after')).toEqual(expect.any(Number));
      expect((await store.get('k'))?.value).toBe('after');
    } finally {
      await store.close();
      await own.stop();
    }
  });
});

describe('redis:// watch across a reconnection', () => {
  // A TCP relay in front of Redis that can drop its connections and hold back a command, so
  // the moment between a watch's reconnection and its re-subscription can be reached on purpose.
  async function relay(target: number) {
    const sockets = new Set<Socket>();
    let holdSubscribe: (() => void) | undefined;
    const server = createServer((client) => {
      const upstream = tcpConnect(target, '127.0.0.1');
      sockets.add(client).add(upstream);
      upstream.pipe(client);
      client.on('data', (chunk: Buffer) => {
        if (holdSubscribe && /subscribe/i.test(chunk.toString('latin1'))) {
          const held = holdSubscribe;
          holdSubscribe = undefined;
          held(); // never forwarded: the subscription stays unanswered
          return;
        }
        upstream.write(chunk);
      });
      for (const socket of [client, upstream]) {
        socket.on('error', () => undefined);
        socket.on('close', () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(socket);
        });
      }
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return {
      port: (server.address() as { port: number }).port,
      /** Resolves when the next SUBSCRIBE reaches the relay (it is swallowed). */
      nextSubscribe: () => new Promise<void>((resolve) => (holdSubscribe = resolve)),
      dropAll: () => {
        for (const socket of sockets) socket.destroy();
      },
      close: async () => {
        for (const socket of sockets) socket.destroy();
        server.close();
        await once(server, 'close');
      },
    };
  }

  it('closing while the re-subscription is unanswered leaves no unhandled rejection', async (context) => {
    guard(context);
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    const proxy = await relay((server as RedisServer).port);
    const store = await createStore(`redis://127.0.0.1:${proxy.port}`, { prefix: `resub:${randomUUID()}:` });
    try {
      let live!: () => void;
      let becameLive = new Promise<void>((resolve) => (live = resolve));
      let lost = 0;
      const stop = await store.watch?.({ changed: () => undefined, lost: () => lost++, live: () => live() });
      expect(stop).toBeDefined();
      await becameLive;
      becameLive = new Promise<void>((resolve) => (live = resolve));
      const held = proxy.nextSubscribe();
      proxy.dropAll(); // the watch reconnects and subscribes again: that SUBSCRIBE is held
      await held;
      expect(lost).toBe(1);
      await store.close(); // resolves once the watch's connection has ended (its commands rejected)
      // Unhandled rejections are reported once the microtasks of that turn are done.
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled.map(String)).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
      await store.close();
      await proxy.close();
    }
  });
});

describe('redis:// layout', () => {
  let store: KvStore | undefined;
  afterAll(async () => {
    await store?.close();
  });

  it('keeps every key under the prefix, records as hashes', async (context) => {
    guard(context);
    store = await createStore(url(), { prefix: 'layout:' });
    await store.set('conn:u1', 'v', { ttlMs: 60_000 });
    await store.sadd('idx', ['a']);
    await store.lock('refresh:u1', 60_000);
    const raw = new Redis(url());
    try {
      expect((await raw.keys('layout:*')).sort()).toEqual([
        'layout:kv:conn:u1',
        'layout:lock:refresh:u1',
        'layout:seq',
        'layout:set:idx',
      ]);
      expect(await raw.type('layout:kv:conn:u1')).toBe('hash');
      expect(await raw.pttl('layout:kv:conn:u1')).toBeGreaterThan(0);
    } finally {
      raw.disconnect();
    }
  });
});
