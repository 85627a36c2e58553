// The store loses the signing keys (Redis restarted without persistence, FLUSHALL) while
// replicas run: signer and verifier of every replica stay on one key set, the store's, and a
// token issued by any replica is accepted by every replica. The replicas' periodic check is off
// here: each test says when a replica looks (its readiness check, a /token, an unknown key id).
import type { FakeBasecamp } from '@x/mcp-basecamp/testing';
import { startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from '../crypto.js';
import { loadSigningKeys } from '../signing-keys.js';
import { createStore } from '../store/create.js';
import type { KvStore } from '../store/kv.js';
import { type RedisServer, redisRequirement, startRedisServer } from '../testing/index.js';
import {
  ALICE,
  BOB,
  postToolsList,
  type Replica,
  type RoundRobinProxy,
  SECRET,
  signIn,
  startReplica,
  startRoundRobinProxy,
} from './fixture.js';

const requirement = redisRequirement();
const keyring = Keyring.fromSecrets({ secret: SECRET });

interface Tokens {
  access_token: string;
  refresh_token: string;
}

/** The key id in a JWT's header. */
const kidOf = (jwt: string): string =>
  JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString('utf8')).kid;

describe('the store loses the signing keys while replicas run', () => {
  let redis: RedisServer | undefined;
  let fake: FakeBasecamp;
  let proxy: RoundRobinProxy;
  /** The test's own view of the store. */
  let store: KvStore;
  const stores: KvStore[] = [];
  const replicas: Replica[] = [];

  /** A replica behind the proxy, on its own connection to the store. */
  async function addReplica(): Promise<Replica> {
    const own = await createStore((redis as RedisServer).url);
    stores.push(own);
    const replica = await startReplica({
      fake,
      store: own,
      keyring,
      publicUrl: proxy.origin,
      overrides: { signingKeyCheckMs: 0 },
    });
    replicas.push(replica);
    proxy.upstreams.push(new URL(replica.http.url).origin);
    return replica;
  }

  beforeAll(async () => {
    if (!('path' in requirement)) return;
    redis = await startRedisServer({ path: requirement.path });
    fake = await startFakeBasecamp();
    store = await createStore(redis.url);
  });
  afterEach(async () => {
    await Promise.all(replicas.splice(0).map((replica) => replica.http.close()));
    await Promise.all(stores.splice(0).map((own) => own.close()));
    await proxy?.close();
  });
  afterAll(async () => {
    await store?.close();
    await fake?.close();
    await redis?.stop();
  });

  const refresh = async (replica: Replica, clientId: string, refreshToken: string): Promise<Tokens> => {
    const response = await fetch(new URL('/token', replica.http.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: clientId,
        refresh_token: refreshToken,
      }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Tokens;
  };

  /**
   * A sign-in through the proxy, then a refresh at each replica in turn: every access token
   * (each signed by another replica) must be accepted by every replica.
   */
  async function everyTokenAcceptedEverywhere(identity: typeof ALICE): Promise<string[]> {
    const user = await signIn({ url: `${proxy.origin}/mcp`, fake }, identity);
    await user.close();
    const clientId = user.oauth.clientInformation()?.client_id as string;
    let tokens = user.oauth.tokens() as Tokens;
    const issued = [tokens.access_token];
    for (const replica of replicas) {
      tokens = await refresh(replica, clientId, tokens.refresh_token);
      issued.push(tokens.access_token);
    }
    for (const token of issued) {
      for (const replica of replicas) {
        expect((await postToolsList(replica.http.url, token)).status).toBe(200);
      }
    }
    return issued.map(kidOf);
  }

  /** What each replica publishes at /jwks: the keys its authorization server signs with. */
  const published = (replica: Replica) =>
    fetch(new URL('/jwks', replica.http.url))
      .then((response) => response.json() as Promise<{ keys: Array<{ kid: string }> }>)
      .then((jwks) => jwks.keys.map((key) => key.kid));

  async function waitForStore(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await Promise.all([store, ...stores].map((each) => each.ping()));
        return;
      } catch (error) {
        if (attempt >= 100) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  it('Redis restarted without persistence: the first replica to notice writes its keys back', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    proxy = await startRoundRobinProxy();
    const [first] = [await addReplica(), await addReplica()];
    const before = (await everyTokenAcceptedEverywhere(ALICE))[0] as string;

    await redis?.kill();
    await redis?.start();
    await waitForStore();
    expect(await store.get('keys:jwks')).toBeUndefined();
    // Its readiness check (or its periodic check, or a /token) notices first.
    expect(await (first as Replica).hosted.signingKeys.sync()).toMatchObject({ ok: true });
    expect((await loadSigningKeys(store, keyring))[0]?.kid).toBe(before);
    // A replica started now reads those keys, and makes none.
    await addReplica();
    const kids = await everyTokenAcceptedEverywhere(BOB);
    expect(new Set(kids)).toEqual(new Set([before]));
    for (const replica of replicas) {
      expect(await published(replica)).toEqual([before]);
      expect(await replica.hosted.signingKeys.sync()).toMatchObject({ ok: true });
    }
  });

  it('FLUSHALL, then a replica starts before the others noticed: all adopt its new keys, signer and verifier', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    proxy = await startRoundRobinProxy();
    await addReplica();
    await addReplica();
    const before = (await everyTokenAcceptedEverywhere(ALICE))[0] as string;

    const client = new Redis((redis as RedisServer).url, { lazyConnect: true });
    await client.connect();
    await client.flushall();
    client.disconnect();
    // Nobody has noticed yet: the new replica finds no keys and makes new ones.
    const late = await addReplica();
    const after = late.hosted.signingKeys.keys[0]?.kid as string;
    expect(after).not.toBe(before);
    // Every token issued from now on, by any replica, is signed with the store's new key and
    // accepted everywhere (each /token looks at the store first; a verifier meeting the new key
    // id looks too).
    const kids = await everyTokenAcceptedEverywhere(BOB);
    expect(new Set(kids)).toEqual(new Set([after]));
    for (const replica of replicas) {
      expect(await published(replica)).toEqual([after]);
      expect(replica.hosted.signingKeys.state).toMatchObject({ ok: true });
    }
  });
});
