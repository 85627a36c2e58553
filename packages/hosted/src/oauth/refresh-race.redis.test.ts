// One of our own refresh tokens sent to two replicas at once (a proxy that retries POST /token,
// two tabs refreshing together): the loser gets invalid_grant and the winner's tokens live, in
// either order of the two requests' store operations; a refresh token replayed later still
// revokes the grant (RFC 9700 reuse detection). The orders are forced with barriers on each
// replica's store, never by timing.
import type { FakeBasecamp } from '@x/mcp-basecamp/testing';
import { startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Keyring } from '../crypto.js';
import { oidcKeys } from '../oidc-adapter.js';
import { createStore } from '../store/create.js';
import type { KvSetOptions, KvStore } from '../store/kv.js';
import { type RedisServer, redisRequirement, startRedisServer } from '../testing/index.js';
import {
  ALICE,
  ageConsumedRefreshToken,
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
const TRIALS = 20;

interface Tokens {
  access_token: string;
  refresh_token: string;
}

describe('one refresh token sent to two replicas at once', () => {
  let redis: RedisServer | undefined;
  let fake: FakeBasecamp;
  let proxy: RoundRobinProxy;
  const stores: KvStore[] = [];
  const replicas: Replica[] = [];
  let clientId = '';
  let tokens: Tokens;

  beforeAll(async () => {
    if (!('path' in requirement)) return;
    redis = await startRedisServer({ path: requirement.path });
    fake = await startFakeBasecamp();
    proxy = await startRoundRobinProxy();
    for (let index = 0; index < 2; index++) {
      const store = await createStore(redis.url);
      stores.push(store);
      const replica = await startReplica({ fake, store, keyring, publicUrl: proxy.origin });
      replicas.push(replica);
      proxy.upstreams.push(new URL(replica.http.url).origin);
    }
  });
  // Each test starts from a sign-in of its own (a failed one leaves nothing for the next).
  beforeEach(async () => {
    if (!('path' in requirement)) return;
    const user = await signIn({ url: `${proxy.origin}/mcp`, fake }, ALICE);
    await user.close();
    tokens = user.oauth.tokens() as Tokens;
    clientId = user.oauth.clientInformation()?.client_id as string;
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.http.close()));
    await Promise.all(stores.map((store) => store.close()));
    await proxy?.close();
    await fake?.close();
    await redis?.stop();
  });

  const refresh = (replica: Replica, refreshToken: string) =>
    fetch(new URL('/token', replica.http.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: clientId,
        refresh_token: refreshToken,
      }),
    });

  /** Replaces `store.get` / `store.set` for one trial; `restore()` puts the originals back. */
  function hook(
    store: KvStore,
    around: {
      get?: (key: string, original: () => ReturnType<KvStore['get']>) => ReturnType<KvStore['get']>;
      set?: (
        key: string,
        options: KvSetOptions | undefined,
        original: () => ReturnType<KvStore['set']>,
      ) => ReturnType<KvStore['set']>;
    },
  ): () => void {
    const get = store.get;
    const set = store.set;
    if (around.get) {
      const wrap = around.get;
      store.get = (key) => wrap(key, () => get.call(store, key));
    }
    if (around.set) {
      const wrap = around.set;
      store.set = (key, value, options) => wrap(key, options, () => set.call(store, key, value, options));
    }
    return () => {
      store.get = get;
      store.set = set;
    };
  }

  /** A promise and its resolver. */
  function signal(): { promise: Promise<void>; resolve: () => void } {
    let resolve: () => void = () => {};
    const promise = new Promise<void>((done) => {
      resolve = done;
    });
    return { promise, resolve };
  }

  /**
   * Both requests at once; checks that exactly one got new tokens and the other invalid_grant,
   * that the winner's access token works on both replicas, and keeps the winner's tokens for
   * the next trial (whose refresh proves the new refresh token refreshes again).
   */
  async function race(hooks: Array<() => () => void>): Promise<void> {
    const restore = hooks.map((install) => install());
    let answers: Response[];
    try {
      answers = await Promise.all(replicas.map((replica) => refresh(replica, tokens.refresh_token)));
    } finally {
      for (const undo of restore) undo();
    }
    const bodies = (await Promise.all(answers.map((answer) => answer.json()))) as Array<
      Partial<Tokens> & { error?: string }
    >;
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    const winner = bodies.find((body) => body.access_token) as Tokens;
    expect(bodies.find((body) => body.error)?.error).toBe('invalid_grant');
    expect(winner.refresh_token).not.toBe(tokens.refresh_token);
    for (const replica of replicas) {
      expect((await postToolsList(replica.http.url, winner.access_token)).status).toBe(200);
    }
    tokens = winner;
  }

  it(`the winner marked it used before the loser read it: ${TRIALS} trials in a row`, async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    for (let trial = 0; trial < TRIALS; trial++) {
      const key = oidcKeys.record('RefreshToken', tokens.refresh_token);
      const [first, second] = trial % 2 === 0 ? [0, 1] : [1, 0];
      const consumed = signal();
      await race([
        // The first replica's compare-and-set that marks the token used: once it is written, the
        // second replica may read the token.
        () =>
          hook(stores[first as number] as KvStore, {
            set: async (target, options, original) => {
              const version = await original();
              if (target === key && options?.ifVersion !== undefined) consumed.resolve();
              return version;
            },
          }),
        () =>
          hook(stores[second as number] as KvStore, {
            get: async (target, original) => {
              if (target === key) await consumed.promise;
              return original();
            },
          }),
      ]);
    }
  });

  it(`both read it unused before either marked it: ${TRIALS} trials in a row`, async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    for (let trial = 0; trial < TRIALS; trial++) {
      const key = oidcKeys.record('RefreshToken', tokens.refresh_token);
      const bothRead = signal();
      let reads = 0;
      const barrier = (store: KvStore) => () =>
        hook(store, {
          get: async (target, original) => {
            const entry = await original();
            if (target === key && reads < 2) {
              reads++;
              if (reads === 2) bothRead.resolve();
              await bothRead.promise;
            }
            return entry;
          },
        });
      await race(stores.map(barrier));
    }
  });

  it('a refresh token replayed later (after the grace) still revokes the grant, on every replica', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    const [first, second] = replicas as [Replica, Replica];
    const rotated = (await (await refresh(first, tokens.refresh_token)).json()) as Tokens;
    expect(rotated.access_token).toBeTruthy();
    // At once: refused, and the grant lives (a race or a retry, not a theft).
    expect((await refresh(second, tokens.refresh_token)).status).toBe(400);
    expect((await postToolsList(second.http.url, rotated.access_token)).status).toBe(200);
    // Later: reuse detection. Everything the grant issued stops working.
    await ageConsumedRefreshToken(stores[0] as KvStore, keyring, tokens.refresh_token);
    const replay = await refresh(second, tokens.refresh_token);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
    for (const replica of replicas) {
      expect((await postToolsList(replica.http.url, rotated.access_token)).status).toBe(401);
    }
    expect((await refresh(first, rotated.refresh_token)).status).toBe(400);
  });
});
