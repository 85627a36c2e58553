// Two real server processes (apps/server, --auth oauth) on one real Redis behind a round-robin
// proxy: the refresh rules of HOSTED.md §3 and the store outage of §5.6, end to end. Every count
// of upstream refreshes comes from the fake Launchpad's own request log.

import { Launchpad } from '@x/mcp-basecamp/connection';
import type { FakeBasecamp, FakeIdentity } from '@x/mcp-basecamp/testing';
import { startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from '../crypto.js';
import { createStore } from '../store/create.js';
import type { KvStore } from '../store/kv.js';
import { type RedisServer, redisRequirement, startRedisServer } from '../testing/index.js';
import { Connections } from './connections.js';
import {
  ALICE,
  BOB,
  type ReplicaBins,
  type RoundRobinProxy,
  SECRET,
  type SignedIn,
  signIn,
  startReplicaBins,
} from './fixture.js';

const requirement = redisRequirement();
const keyring = Keyring.fromSecrets({ secret: SECRET });

const TEAM: FakeIdentity[] = [1, 2, 3, 4, 5].map((n) => ({
  id: 700 + n,
  firstName: `Member${n}`,
  lastName: 'Team',
  email: `member${n}@example.com`,
  accounts: [{ id: 999999999, name: 'Honcho Design' }],
}));

let redis: RedisServer | undefined;
let fake: FakeBasecamp;
let proxy: RoundRobinProxy;
let store: KvStore;
let connections: Connections;
let replicas: ReplicaBins | undefined;
let servers: ReplicaBins['servers'] = [];

beforeAll(async () => {
  if (!('path' in requirement)) return;
  redis = await startRedisServer({ path: requirement.path, persistence: true });
  // Launchpad rotates refresh tokens here: a second refresh of one user would spend a retired
  // token and fail, so "exactly one refresh" is also "no invalid_grant".
  fake = await startFakeBasecamp({ launchpad: { refreshTokenRotation: true } });
  replicas = await startReplicaBins({ store: redis.url, fake });
  ({ servers, proxy } = replicas);
  // The test's own view of the store, to age a user's upstream token as time would.
  store = await createStore(redis.url);
  connections = new Connections(
    store,
    keyring,
    new Launchpad({ clientId: 'unused', clientSecret: 'unused', url: fake.launchpadUrl, redirectUri: '' }),
  );
}, 60_000);

afterAll(async () => {
  await replicas?.stop();
  await store?.close();
  await fake?.close();
  await redis?.stop();
});

// When a test here fails, the replicas' own logs say why (which check answered 401, which refresh
// failed): printed once, after the first failure, so an intermittent failure leaves its evidence.
afterEach((context) => replicas?.showLogsOnFailure(context));

const mcpUrl = () => `${proxy.origin}/mcp`;

/** The upstream token is past its expiry (in the store, and dead at Basecamp too). */
async function expireUpstream(identity: FakeIdentity) {
  const user = `basecamp:${identity.id}`;
  const connection = await connections.get(user);
  if (!connection) throw new Error(`${user} has no connection`);
  await connections.save(user, { ...connection, expiresAt: Date.now() - 1000 });
}

function callTool(accessToken: string, id: number) {
  return fetch(mcpUrl(), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'basecamp_list_projects', arguments: {} },
    }),
  });
}

const failedRefreshes = () => fake.tokenRequests('refresh').filter((request) => request.status === 400);
const accessTokenOf = (user: SignedIn) => (user.oauth.tokens() as { access_token: string }).access_token;

describe('two server processes on one Redis', () => {
  let alice: SignedIn;

  it('20 parallel tool calls after the upstream token expired cause exactly one refresh, 20 rounds in a row', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    alice = await signIn({ url: mcpUrl(), fake }, ALICE);
    for (let round = 0; round < 20; round++) {
      await expireUpstream(ALICE);
      fake.expireAccessTokens();
      fake.resetLog();
      const counts = [...proxy.counts];
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          alice.client.callTool({ name: 'basecamp_list_projects', arguments: {} }),
        ),
      );
      expect(
        results.filter((result) => result.isError),
        `round ${round}`,
      ).toEqual([]);
      expect(
        fake.tokenRequests('refresh').map((request) => request.status),
        `round ${round}`,
      ).toEqual([200]);
      expect((proxy.counts[0] ?? 0) - (counts[0] ?? 0)).toBeGreaterThan(5);
      expect((proxy.counts[1] ?? 0) - (counts[1] ?? 0)).toBeGreaterThan(5);
      // Every Basecamp call after the refresh used the new token, of Alice.
      const tokens = new Set(
        fake.requests
          .filter((request) => /^\/\d+\//.test(request.path) && request.status === 200)
          .map((request) => request.headers.authorization),
      );
      expect(tokens.size).toBe(1);
      expect(fake.identityOf([...tokens][0]?.replace('Bearer ', '') ?? '')?.id).toBe(ALICE.id);
      expect(fake.requests.filter((request) => request.status === 401)).toEqual([]);
    }
  }, 120_000);

  it('Redis killed: /mcp answers 503 with Retry-After, never 401; restarted: calls work with no new sign-in', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    const token = accessTokenOf(alice);
    fake.resetLog();
    await redis?.kill();
    try {
      for (let attempt = 0; attempt < 4; attempt++) {
        const response = await callTool(token, attempt);
        expect(response.status).toBe(503);
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      expect((await fetch(`${proxy.origin}/readyz`)).status).toBe(503);
    } finally {
      await redis?.start();
    }
    // The replicas reconnect by themselves (within about a second).
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      status = (await callTool(token, 100 + attempt)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(200);
    const result = await alice.client.callTool({ name: 'basecamp_list_projects', arguments: {} });
    expect(result.isError).toBeFalsy();
    // No new sign-in anywhere: no authorization at Launchpad, no code exchange.
    expect(fake.requests.filter((request) => request.path.startsWith('/authorization/new'))).toEqual([]);
    expect(fake.tokenRequests('code')).toEqual([]);
    await alice.close();
  });

  it('a revoked refresh token: exactly one failed refresh, and the user’s next request is 401', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    const bob = await signIn({ url: mcpUrl(), fake }, BOB);
    await bob.close();
    const token = accessTokenOf(bob);
    fake.revokeRefreshTokens(BOB.id);
    await expireUpstream(BOB);
    fake.resetLog();
    const answers = await Promise.all([0, 1, 2, 3, 4].map((id) => callTool(token, id)));
    expect(answers.map((response) => response.status)).toEqual([401, 401, 401, 401, 401]);
    expect(answers[0]?.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const next = await callTool(token, 9);
    expect(next.status).toBe(401);
    expect(fake.tokenRequests('refresh').map((request) => request.status)).toEqual([400]);
    expect((await connections.get(`basecamp:${BOB.id}`))?.status).toBe('needs_login');
  });

  it('five such users at once never push more than 3 failed refreshes to Launchpad; /readyz says so', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    // Five browsers sign in at the same time, each as its own Launchpad identity.
    const team = await Promise.all(
      TEAM.map((identity) => signIn({ url: mcpUrl(), fake }, identity, { identityVia: 'browser' })),
    );
    await Promise.all(team.map((member) => member.close()));
    for (const [index, identity] of TEAM.entries()) {
      expect((await connections.get(`basecamp:${identity.id}`))?.identity.email).toBe(TEAM[index]?.email);
      fake.revokeRefreshTokens(identity.id);
      await expireUpstream(identity);
    }
    const before = failedRefreshes().length;
    fake.resetLog();
    const answers = await Promise.all(team.map((member, index) => callTool(accessTokenOf(member), index)));
    // Bob's failure above and these together: the breaker's 3, Launchpad's ban is at 5.
    expect(before + failedRefreshes().length).toBe(3);
    expect(fake.launchpadBanned()).toBe(false);
    const statuses = answers.map((response) => response.status).sort();
    expect(statuses).toEqual([401, 401, 503, 503, 503]);
    // The users not refreshed are told to retry later (503), never sent to sign in by a guess.
    const retry = answers.find((response) => response.status === 503);
    expect(Number(retry?.headers.get('retry-after'))).toBeGreaterThan(0);

    // Both replicas report it (each caches its checks for up to 5 s, so ask until they have).
    type Report = {
      providers: Array<{ id: string; checks: Array<{ name: string; ok: boolean; detail?: string }> }>;
    };
    const breakerCheck = (report: Report) =>
      report.providers
        .find((provider) => provider.id === 'hosted')
        ?.checks.find((entry) => entry.name === 'launchpad-refresh');
    for (const server of servers) {
      let ready: Response | undefined;
      let check: ReturnType<typeof breakerCheck>;
      for (let attempt = 0; attempt < 40; attempt++) {
        ready = await fetch(`${server.url.replace(/\/mcp$/, '')}/readyz`);
        check = breakerCheck((await ready.json()) as Report);
        if (check?.ok === false) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(ready?.status).toBe(503);
      expect(check).toMatchObject({ ok: false });
      expect(check?.detail).toContain('paused after 3');
      // Who spent the budget: Bob and two of the team (one failure each at most).
      expect(check?.detail).toMatch(/spent by (basecamp:\d+(, )?){3}$/);
      expect(check?.detail).toContain(`basecamp:${BOB.id}`);
    }
    for (const server of servers) expect(server.stderr()).not.toContain(SECRET);
  });
});
