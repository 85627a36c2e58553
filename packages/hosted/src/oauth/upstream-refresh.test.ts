import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidGrantBreaker } from '../refresh.js';
import { SealedRecords } from '../store/sealed.js';
import { type BasecampConnection, connectionKey } from './connections.js';
import { ALICE, type Hosted, postToolsList, signIn, startHosted } from './fixture.js';

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

  it('refreshes within the call when Basecamp rejects the token early (the credential seam)', async () => {
    const alice = await signIn(env, ALICE);
    try {
      const before = (await env.hosted.connections.get(USER))?.accessToken;
      env.fake.expireAccessTokens();
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

  it('reportingFetch marks a token Basecamp refused, so the next request refreshes it', async () => {
    const alice = await signIn(env, ALICE);
    await alice.close();
    const current = (await env.hosted.connections.get(USER))?.accessToken as string;
    env.fake.expireAccessTokens();
    const reporting = env.hosted.connections.reportingFetch(USER);
    const response = await reporting(`${env.fake.url}/999999999/projects.json`, {
      headers: { authorization: `Bearer ${current}`, 'user-agent': 'test (tests@example.com)' },
    });
    expect(response.status).toBe(401);
    expect((await env.hosted.connections.get(USER))?.expiresAt).toBe(0);
    env.fake.resetLog();
    expect((await env.hosted.connections.basecamp(USER)).accessToken).not.toBe(current);
    expect(env.fake.refreshes.succeeded).toBe(1);
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
    expect((await new InvalidGrantBreaker(env.store).state()).failures).toBe(1);
    // Signing in again makes the user whole.
    const again = await signIn(env, ALICE);
    try {
      expect((await env.hosted.connections.get(USER))?.status).toBe('active');
    } finally {
      await again.close();
    }
  });

  it('credentials checked for a request serve its upstream calls; an ended sign-in or a 401 is never served from them', async () => {
    const alice = await signIn(env, ALICE);
    await alice.close();
    const connections = env.hosted.connections;
    const source = connections.credentialSource(USER);
    const checked = await connections.forRequest(USER, await env.store.get(connectionKey(USER)));
    expect(await source.current()).toEqual(checked);
    // Basecamp refused that token: the next current() reads the store (and refreshes).
    env.fake.resetLog();
    const renewed = await source.renew(checked);
    expect(renewed.accessToken).not.toBe(checked.accessToken);
    expect(env.fake.refreshes.succeeded).toBe(1);
    expect(await source.current()).toEqual(renewed);
    // A request that finds the sign-in ended leaves nothing behind for the next upstream call.
    await connections.forRequest(USER, await env.store.get(connectionKey(USER)));
    const connection = (await connections.get(USER)) as BasecampConnection;
    const ended = new SealedRecords(env.store, env.keyring);
    await ended.set(connectionKey(USER), { ...connection, status: 'needs_login', refreshToken: undefined });
    await expect(
      connections.forRequest(USER, await env.store.get(connectionKey(USER))),
    ).rejects.toMatchObject({
      code: 'TOKEN_EXPIRED',
    });
    await expect(source.current()).rejects.toMatchObject({ code: 'TOKEN_EXPIRED' });
  });
});
