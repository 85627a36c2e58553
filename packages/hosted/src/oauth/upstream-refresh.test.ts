import { connection as basecampConnection } from '@x/mcp-basecamp/connection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidGrantBreaker } from '../refresh.js';
import { connectionKey } from './connections.js';
import { ALICE, BOB, type Hosted, postToolsList, signIn, startHosted } from './fixture.js';

// The user's Basecamp token, refreshed lazily when a request needs it: once, with the new token
// used at once; a dead refresh token ends the sign-in (401 → the client signs in again); a
// Launchpad outage keeps serving the current token while it is valid.
let env: Hosted;
beforeAll(async () => {
  env = await startHosted({ accessTokenTtl: 120 });
});
afterAll(() => env.close());

const USER = `basecamp:${ALICE.id}`;

async function expireSoon(inMs: number) {
  const connection = await env.hosted.connections.get(USER);
  if (!connection) throw new Error('no connection');
  await env.hosted.connections.save(USER, { ...connection, expiresAt: Date.now() + inMs });
}

async function lastBasecampToken() {
  return env.fake.requests.filter((request) => /^\/\d+\//.test(request.path)).at(-1)?.headers.authorization;
}

describe('upstream refresh', () => {
  it('issues access tokens with the configured lifetime', async () => {
    const alice = await signIn(env, ALICE);
    try {
      const tokens = alice.oauth.tokens() as { expires_in?: number; access_token: string };
      expect(tokens.expires_in).toBe(120);
    } finally {
      await alice.close();
    }
  });

  it('refreshes a token that expires within the margin, once, and uses the new one', async () => {
    const alice = await signIn(env, ALICE);
    try {
      const before = (await env.hosted.connections.get(USER))?.accessToken;
      await expireSoon(60_000);
      env.fake.resetLog();
      const result = await alice.client.callTool({ name: 'basecamp_list_projects', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(env.fake.refreshes.succeeded).toBe(1);
      const after = (await env.hosted.connections.get(USER))?.accessToken;
      expect(after).not.toBe(before);
      expect(await lastBasecampToken()).toBe(`Bearer ${after}`);
    } finally {
      await alice.close();
    }
  });

  it('a token Basecamp refuses before it is due ends the sign-in: no refresh, the call says so, the next request is 401', async () => {
    const alice = await signIn(env, ALICE);
    const token = (alice.oauth.tokens() as { access_token: string }).access_token;
    try {
      // The app was removed at Launchpad: the access and refresh tokens are both dead.
      env.fake.expireAccessTokens();
      env.fake.revokeRefreshTokens(ALICE.id);
      env.fake.resetLog();
      const result = await alice.client.callTool({ name: 'basecamp_list_projects', arguments: {} });
      expect(result.isError).toBe(true);
      const text = (result.content as Array<{ type: string; text: string }>)[0]?.text ?? '';
      expect(JSON.parse(text)).toMatchObject({ error_code: 'TOKEN_EXPIRED' });
      // No refresh reached Launchpad: an early 401 never spends the shared invalid_grant budget.
      expect(env.fake.tokenRequests('refresh')).toEqual([]);
      expect(
        (await new InvalidGrantBreaker(env.store, basecampConnection.refreshBudget).state()).failures,
      ).toBe(0);
      expect((await env.hosted.connections.get(USER))?.status).toBe('needs_login');
      expect((await postToolsList(env.url, token)).status).toBe(401);
    } finally {
      await alice.close();
    }
  });

  it('one identity never spends more than one failure of the budget: sign in, app removed, call — three rounds', async () => {
    const breaker = new InvalidGrantBreaker(env.store, basecampConnection.refreshBudget);
    const bob = `basecamp:${BOB.id}`;
    const before = (await breaker.state()).failures;
    env.fake.resetLog();
    for (let round = 0; round < 3; round++) {
      const signedIn = await signIn(env, BOB);
      await signedIn.close();
      const token = (signedIn.oauth.tokens() as { access_token: string }).access_token;
      env.fake.revokeRefreshTokens(BOB.id);
      env.fake.expireAccessTokens();
      // Each round the token is also due (past its own expires_at). Round 1: one refresh,
      // refused. Rounds 2 and 3: this user spent a failure in the window already: no refresh.
      const connection = await env.hosted.connections.get(bob);
      if (!connection) throw new Error('no connection');
      await env.hosted.connections.save(bob, { ...connection, expiresAt: Date.now() - 1000 });
      expect((await postToolsList(env.url, token)).status).toBe(401);
      expect((await env.hosted.connections.get(bob))?.status).toBe('needs_login');
    }
    expect(env.fake.tokenRequests('refresh').map((request) => request.status)).toEqual([400]);
    const state = await breaker.state();
    expect(state.failures - before).toBe(1);
    expect(state.subjects).toEqual([bob]);
  });

  it('a token due for a refresh and refused by Basecamp is refreshed once within the call', async () => {
    const alice = await signIn(env, ALICE);
    try {
      const before = (await env.hosted.connections.get(USER))?.accessToken;
      await expireSoon(60_000);
      const connection = await env.hosted.connections.get(USER);
      env.fake.expireAccessTokens();
      env.fake.resetLog();
      // Basecamp refuses the due token: reported, nothing is marked (the refresh handles it).
      const reporting = env.hosted.connections.reportingFetch(USER);
      const response = await reporting(`${env.fake.url}/999999999/projects.json`, {
        headers: { authorization: `Bearer ${before}`, 'user-agent': 'test (tests@example.com)' },
      });
      expect(response.status).toBe(401);
      expect(await env.hosted.connections.get(USER)).toEqual(connection);
      const result = await alice.client.callTool({ name: 'basecamp_list_projects', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(env.fake.refreshes.succeeded).toBe(1);
      const after = (await env.hosted.connections.get(USER))?.accessToken;
      expect(after).not.toBe(before);
      expect(await lastBasecampToken()).toBe(`Bearer ${after}`);
    } finally {
      await alice.close();
    }
  });

  it('keeps serving the current token while Launchpad is down', async () => {
    const alice = await signIn(env, ALICE);
    try {
      const current = (await env.hosted.connections.get(USER))?.accessToken;
      await expireSoon(60_000);
      env.fake.fail({ path: '/authorization/token', status: 503, times: 1 });
      env.fake.resetLog();
      const result = await alice.client.callTool({ name: 'basecamp_list_projects', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(await lastBasecampToken()).toBe(`Bearer ${current}`);
      const refreshAttempts = env.fake.requests.filter((request) => request.path === '/authorization/token');
      expect(refreshAttempts.map((request) => request.status)).toEqual([503]);
    } finally {
      await alice.close();
    }
  });

  it('ends the sign-in when the refresh token is dead: 401 and needs_login, counted store-wide', async () => {
    const breaker = new InvalidGrantBreaker(env.store, basecampConnection.refreshBudget);
    const before = (await breaker.state()).failures;
    const alice = await signIn(env, ALICE);
    const token = (alice.oauth.tokens() as { access_token: string }).access_token;
    await alice.close();
    await expireSoon(60_000);
    env.fake.revokeRefreshTokens();
    const response = await postToolsList(env.url, token);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('invalid_token');
    const connection = await env.hosted.connections.get(USER);
    expect(connection?.status).toBe('needs_login');
    expect(connection?.refreshToken).toBeUndefined();
    expect((await breaker.state()).failures - before).toBe(1);
    // Signing in again makes the user whole.
    const again = await signIn(env, ALICE);
    try {
      expect((await env.hosted.connections.get(USER))?.status).toBe('active');
    } finally {
      await again.close();
    }
  });

  it('credentialSource: renew of a due token refreshes it; an ended sign-in is never served', async () => {
    // Alice's refresh failed in an earlier test: a fresh window, or she would not be refreshed.
    await env.store.delete('budget:launchpad:invalid_grant');
    const alice = await signIn(env, ALICE);
    await alice.close();
    const connections = env.hosted.connections;
    const source = connections.credentialSource(USER);
    const checked = await connections.forRequest(USER, await env.store.get(connectionKey(USER)));
    expect(await source.current()).toEqual(checked);
    await expireSoon(60_000);
    env.fake.resetLog();
    const renewed = await source.renew(checked);
    expect(renewed.accessToken).not.toBe(checked.accessToken);
    expect(env.fake.refreshes.succeeded).toBe(1);
    expect(await source.current()).toEqual(renewed);
    // Renewing a token that was not due (Basecamp refused it early) ends the sign-in.
    await expect(source.renew(renewed)).rejects.toMatchObject({ code: 'TOKEN_EXPIRED' });
    expect(env.fake.refreshes.succeeded).toBe(1);
    await expect(source.current()).rejects.toMatchObject({ code: 'TOKEN_EXPIRED' });
    await expect(
      connections.forRequest(USER, await env.store.get(connectionKey(USER))),
    ).rejects.toMatchObject({ code: 'TOKEN_EXPIRED' });
  });
});
