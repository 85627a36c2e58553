// Two replicas of the hosted server on one Redis behind a round-robin proxy: every step of the
// sign-in (registration, consent, Launchpad callback, interaction, token, MCP) may land on
// either replica, and the user's tools still work; refresh tokens rotate across replicas.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeIdentity } from '@x/mcp-basecamp/testing';
import { type FakeBasecamp, startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from '../crypto.js';
import { createStore } from '../store/create.js';
import type { KvStore, KvWatcher } from '../store/kv.js';
import { SealedRecords } from '../store/sealed.js';
import { type RedisServer, redisRequirement, startRedisServer } from '../testing/index.js';
import { forgetUser, revokeUser } from './admin.js';
import { connectionKey, type SignInRecord } from './connections.js';
import { ALICE, BOB, postToolsList, type Replica, SECRET, signIn, startReplica } from './fixture.js';

const requirement = redisRequirement();

describe('two replicas on one Redis', () => {
  let redis: RedisServer | undefined;
  let fake: FakeBasecamp;
  let proxy: Server;
  let origin: string;
  const upstreams: string[] = [];
  const counts = [0, 0];
  const stores: KvStore[] = [];
  const replicas: Replica[] = [];
  /** Per replica: the changes its store's watch has reported to it, and who waits for one. */
  const heard: Array<{ keys: Set<string>; waiters: Set<() => void> }> = [];
  /** Resolves once replica `index` has been told that `key` changed. */
  const hearOf = (index: number, key: string) =>
    new Promise<void>((resolve) => {
      const ears = heard[index] as (typeof heard)[number];
      if (ears.keys.has(key)) return resolve();
      const waiter = () => {
        if (!ears.keys.has(key)) return;
        ears.waiters.delete(waiter);
        resolve();
      };
      ears.waiters.add(waiter);
    });
  /**
   * The store a replica is given, reporting to the test what its watch tells the replica. Every
   * other call goes to the store itself.
   */
  const listened = (store: KvStore, index: number): KvStore => {
    const ears = { keys: new Set<string>(), waiters: new Set<() => void>() };
    heard[index] = ears;
    return new Proxy(store, {
      get(target, property) {
        if (property === 'watch') {
          return (watcher: KvWatcher) =>
            target.watch?.({
              ...watcher,
              changed: (key) => {
                watcher.changed(key);
                ears.keys.add(key);
                for (const waiter of [...ears.waiters]) waiter();
              },
            });
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };

  beforeAll(async () => {
    if (!('path' in requirement)) return;
    redis = await startRedisServer({ path: requirement.path });
    fake = await startFakeBasecamp();
    let next = 0;
    proxy = createServer((incoming, outgoing) => {
      const index = next++ % upstreams.length;
      counts[index] = (counts[index] ?? 0) + 1;
      const target = new URL(incoming.url ?? '/', upstreams[index]);
      const forwarded = request(
        target,
        { method: incoming.method, headers: incoming.headers },
        (response) => {
          outgoing.writeHead(response.statusCode ?? 502, response.headers);
          response.pipe(outgoing);
        },
      );
      forwarded.on('error', () => {
        if (!outgoing.headersSent) outgoing.writeHead(502);
        outgoing.end();
      });
      incoming.pipe(forwarded);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const keyring = Keyring.fromSecrets({ secret: SECRET });
    for (let index = 0; index < 2; index++) {
      const store = await createStore(redis.url);
      stores.push(store);
      const replica = await startReplica({ fake, store: listened(store, index), keyring, publicUrl: origin });
      replicas.push(replica);
      upstreams.push(new URL(replica.http.url).origin);
    }
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.http.close()));
    await Promise.all(stores.map((store) => store.close()));
    if (proxy) await new Promise((resolve) => proxy.close(resolve));
    await fake?.close();
    await redis?.stop();
  });

  it('signs users in and serves them through either replica', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    const env = { url: `${origin}/mcp`, fake };
    for (const identity of [ALICE, BOB]) {
      const user = await signIn(env, identity);
      try {
        for (let call = 0; call < 4; call++) {
          const result = await user.client.callTool({ name: 'whoami', arguments: {} });
          expect(JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? '{}')).toEqual({
            user: `basecamp:${identity.id}`,
          });
        }
      } finally {
        await user.close();
      }
    }
    expect(counts[0]).toBeGreaterThan(5);
    expect(counts[1]).toBeGreaterThan(5);
  });

  it('counts dynamic registrations per address across replicas, not per process', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    const keyring = Keyring.fromSecrets({ secret: SECRET });
    const limited: Replica[] = [];
    const limitedStores: KvStore[] = [];
    try {
      for (let index = 0; index < 2; index++) {
        const store = await createStore((redis as RedisServer).url, { prefix: 'dcr-limit:' });
        limitedStores.push(store);
        limited.push(
          await startReplica({
            fake,
            store,
            keyring,
            overrides: { registrationLimit: { requests: 3, windowMs: 60_000 } },
          }),
        );
      }
      const register = (replica: Replica) =>
        fetch(new URL('/register', replica.http.url), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            redirect_uris: ['http://127.0.0.1:9/callback'],
            token_endpoint_auth_method: 'none',
          }),
        });
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 4; attempt++) {
        statuses.push((await register(limited[attempt % 2] as Replica)).status);
      }
      expect(statuses).toEqual([201, 201, 201, 429]);
    } finally {
      await Promise.all(limited.map((replica) => replica.http.close()));
      await Promise.all(limitedStores.map((store) => store.close()));
    }
  });

  it('rotates a refresh token at one replica; the replayed old one fails at the other', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    const user = await signIn({ url: `${origin}/mcp`, fake }, ALICE);
    await user.close();
    const tokens = user.oauth.tokens() as { refresh_token: string };
    const clientId = user.oauth.clientInformation()?.client_id as string;
    const refresh = (base: string, refreshToken: string) =>
      fetch(new URL('/token', base), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          client_id: clientId,
          refresh_token: refreshToken,
        }),
      });
    const [first, second] = upstreams as [string, string];
    const rotated = await refresh(first, tokens.refresh_token);
    expect(rotated.status).toBe(200);
    const replay = await refresh(second, tokens.refresh_token);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
  });

  // Each replica caches what it verified of an access token (its signature and claims), and keeps
  // the grant and the connection the request check reads in memory; Redis publishes every change
  // of them in the same step as the write, and a replica's next request after the report reaches
  // it is refused. The report is not awaited by the writer (Redis may answer the writer a moment
  // before it writes to the subscribers): the test waits until each replica has heard of a probe
  // written after the change, which the channel delivers after it, then asks with no pause.
  const ended: Array<[string, (store: KvStore, user: string) => Promise<unknown>]> = [
    ['users revoke (every grant)', (store, user) => revokeUser(store, keyring, user)],
    [
      'the upstream sign-in ended (needs_login, e.g. a revoked Basecamp refresh token)',
      async (store, user) => {
        const records = new SealedRecords(store, keyring);
        const entry = await records.get<SignInRecord>(connectionKey(user));
        if (!entry) throw new Error('no connection');
        await records.set(connectionKey(user), {
          ...entry.value,
          status: 'needs_login',
          refreshToken: undefined,
        });
      },
    ],
    ['users forget', (store, user) => forgetUser(store, keyring, user)],
  ];
  const keyring = Keyring.fromSecrets({ secret: SECRET });
  for (const [index, [name, end]] of ended.entries()) {
    it(`a token cached on both replicas is refused by both on the next request: ${name}`, async (context) => {
      if ('skip' in requirement) context.skip(requirement.skip);
      const identity: FakeIdentity = {
        id: 400 + index,
        firstName: 'Cached',
        lastName: String(index),
        email: `cached${index}@example.com`,
        accounts: [{ id: 999999999, name: 'Honcho Design' }],
      };
      const user = await signIn({ url: `${origin}/mcp`, fake }, identity);
      await user.close();
      const token = (user.oauth.tokens() as { access_token: string }).access_token;
      const direct = (replica: Replica) => postToolsList(replica.http.url, token);
      for (const replica of replicas) {
        expect((await direct(replica)).status).toBe(200);
        const cached = replica.hosted.resourceServer.verifiedTokens;
        expect(cached).toBeGreaterThan(0);
        expect((await direct(replica)).status).toBe(200);
        expect(replica.hosted.resourceServer.verifiedTokens).toBe(cached);
      }
      await end(stores[0] as KvStore, `basecamp:${identity.id}`);
      const probe = `probe:${identity.id}`;
      await (stores[0] as KvStore).set(probe, '1', { ttlMs: 60_000 });
      await Promise.all(replicas.map((_, replica) => hearOf(replica, probe)));
      const after = await Promise.all(replicas.map(direct));
      expect(after.map((response) => response.status)).toEqual([401, 401]);
      for (const response of after)
        expect(response.headers.get('www-authenticate')).toContain('invalid_token');
      // Still refused on the requests after (nothing was cached the other way).
      expect((await Promise.all(replicas.map(direct))).map((response) => response.status)).toEqual([
        401, 401,
      ]);
    });
  }
});
