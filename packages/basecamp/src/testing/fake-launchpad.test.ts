import { afterEach, describe, expect, it } from 'vitest';
import {
  type FakeBasecamp,
  type FakeBasecampOptions,
  type FakeIdentity,
  startFakeBasecamp,
} from './index.js';

// The fake Launchpad's knobs the hosted server's tests rely on: per-browser identities,
// rotating refresh tokens with reuse detection, the abuse tracker's ban, latency.
const ALICE: FakeIdentity = { id: 1, firstName: 'Alice', lastName: 'A', email: 'alice@example.com' };
const BOB: FakeIdentity = { id: 2, firstName: 'Bob', lastName: 'B', email: 'bob@example.com' };

let fake: FakeBasecamp | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(options: FakeBasecampOptions = {}): Promise<FakeBasecamp> {
  fake = await startFakeBasecamp(options);
  return fake;
}

function token(server: FakeBasecamp, form: Record<string, string>) {
  return fetch(`${server.launchpadUrl}/authorization/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: server.client.id, client_secret: server.client.secret, ...form }),
  });
}

async function signIn(server: FakeBasecamp, cookie?: { name: string; value: string }) {
  const redirectUri = 'http://127.0.0.1:9/callback';
  const authorize = new URL('/authorization/new', server.launchpadUrl);
  authorize.search = new URLSearchParams({
    type: 'web_server',
    client_id: server.client.id,
    redirect_uri: redirectUri,
  }).toString();
  const answer = await fetch(authorize, {
    redirect: 'manual',
    headers: cookie ? { cookie: `${cookie.name}=${cookie.value}` } : {},
  });
  const code = new URL(answer.headers.get('location') ?? '').searchParams.get('code') ?? '';
  const tokens = (await (
    await token(server, { type: 'web_server', code, redirect_uri: redirectUri })
  ).json()) as {
    access_token: string;
    refresh_token: string;
  };
  return tokens;
}

describe('fake Launchpad', () => {
  it('signs each browser in as the identity of its session cookie', async () => {
    const server = await start();
    server.signInAs(BOB);
    const alice = await signIn(server, server.sessionCookie(ALICE));
    const bob = await signIn(server);
    expect(server.identityOf(alice.access_token)?.id).toBe(ALICE.id);
    expect(server.identityOf(bob.access_token)?.id).toBe(BOB.id);
  });

  it('rotates refresh tokens and refuses a reused one with invalid_grant', async () => {
    const server = await start({ launchpad: { refreshTokenRotation: true } });
    const first = await signIn(server, server.sessionCookie(ALICE));
    const rotated = (await (
      await token(server, { type: 'refresh', refresh_token: first.refresh_token })
    ).json()) as {
      refresh_token: string;
      access_token: string;
    };
    expect(rotated.refresh_token).not.toBe(first.refresh_token);
    const reuse = await token(server, { type: 'refresh', refresh_token: first.refresh_token });
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toEqual({ error: 'invalid_grant' });
    // Without family revocation the newest token still works.
    expect((await token(server, { type: 'refresh', refresh_token: rotated.refresh_token })).status).toBe(200);
    expect(server.refreshes).toEqual({ succeeded: 2, failed: 1 });
    expect(server.tokenRequests('refresh')).toHaveLength(3);
    expect(server.tokenRequests('code')).toHaveLength(1);
  });

  it('revokes the whole family on reuse when asked to', async () => {
    const server = await start({ launchpad: { refreshTokenRotation: true, reuseRevokesFamily: true } });
    const first = await signIn(server);
    const rotated = (await (
      await token(server, { type: 'refresh', refresh_token: first.refresh_token })
    ).json()) as {
      refresh_token: string;
      access_token: string;
    };
    expect((await token(server, { type: 'refresh', refresh_token: first.refresh_token })).status).toBe(400);
    expect((await token(server, { type: 'refresh', refresh_token: rotated.refresh_token })).status).toBe(400);
    const identity = await fetch(`${server.launchpadUrl}/authorization.json`, {
      headers: { authorization: `Bearer ${rotated.access_token}` },
    });
    expect(identity.status).toBe(401);
  });

  it('revokes the refresh tokens of one identity only', async () => {
    const server = await start();
    const alice = await signIn(server, server.sessionCookie(ALICE));
    const bob = await signIn(server, server.sessionCookie(BOB));
    server.revokeRefreshTokens(ALICE.id);
    expect((await token(server, { type: 'refresh', refresh_token: alice.refresh_token })).status).toBe(400);
    expect((await token(server, { type: 'refresh', refresh_token: bob.refresh_token })).status).toBe(200);
  });

  it('bans the app and address after five failed refreshes: every token request is then 403', async () => {
    const server = await start();
    const good = await signIn(server);
    for (let attempt = 0; attempt < 4; attempt++) {
      expect((await token(server, { type: 'refresh', refresh_token: 'dead' })).status).toBe(400);
    }
    expect(server.launchpadBanned()).toBe(false);
    expect((await token(server, { type: 'refresh', refresh_token: good.refresh_token })).status).toBe(200);
    expect((await token(server, { type: 'refresh', refresh_token: 'dead' })).status).toBe(400);
    expect(server.launchpadBanned()).toBe(true);
    const banned = await token(server, { type: 'refresh', refresh_token: good.refresh_token });
    expect(banned.status).toBe(403);
    expect(((await banned.json()) as { error: string }).error).toBe('access_denied');
    expect((await token(server, { type: 'web_server', code: 'x', redirect_uri: 'y' })).status).toBe(403);
  });

  it('forgets failures older than the window', async () => {
    let now = 1_000_000;
    const server = await start({ launchpad: { now: () => now, banAfterFailures: 2, banWindowMs: 1000 } });
    await token(server, { type: 'refresh', refresh_token: 'dead' });
    now += 2000;
    await token(server, { type: 'refresh', refresh_token: 'dead' });
    expect(server.launchpadBanned()).toBe(false);
    await token(server, { type: 'refresh', refresh_token: 'dead' });
    expect(server.launchpadBanned()).toBe(true);
  });

  it('delays answers by the configured latency', async () => {
    const server = await start({ launchpad: { latency: { token: 50 } } });
    const order: string[] = [];
    server.setLatency({ token: 300 });
    await Promise.all([
      token(server, { type: 'refresh', refresh_token: server.refreshToken }).then(() => order.push('token')),
      fetch(`${server.launchpadUrl}/authorization.json`, {
        headers: { authorization: `Bearer ${server.accessToken}` },
      }).then(() => order.push('identity')),
    ]);
    expect(order).toEqual(['identity', 'token']);
  });
});

describe('the sign-in page (people)', () => {
  it('asks who signs in, and issues the code for the person picked, with the request it carried', async () => {
    const server = await start({ launchpad: { people: [ALICE, BOB] } });
    const authorize = new URL('/authorization/new', server.launchpadUrl);
    authorize.search = new URLSearchParams({
      type: 'web_server',
      client_id: server.client.id,
      redirect_uri: 'http://127.0.0.1:9/callback',
      state: 'a"<b>&c',
    }).toString();
    const page = await fetch(authorize, { redirect: 'manual' });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('alice@example.com');
    expect(html).toContain('bob@example.com');
    // The state is carried escaped, never as markup.
    expect(html).toContain('value="a&#34;&#60;b&#62;&amp;c"');
    expect(html).not.toContain('<b>');
    const pick = (person: string) =>
      fetch(new URL('/authorization/new', server.launchpadUrl), {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...Object.fromEntries(authorize.searchParams), person }),
      });
    expect((await pick('999')).status).toBe(400);
    const picked = await pick(String(BOB.id));
    expect(picked.status).toBe(302);
    const back = new URL(picked.headers.get('location') ?? '');
    expect(back.origin + back.pathname).toBe('http://127.0.0.1:9/callback');
    expect(back.searchParams.get('state')).toBe('a"<b>&c');
    const tokens = (await (
      await token(server, {
        type: 'web_server',
        code: back.searchParams.get('code') ?? '',
        redirect_uri: 'http://127.0.0.1:9/callback',
      })
    ).json()) as { access_token: string };
    expect(server.identityOf(tokens.access_token)).toEqual(BOB);
  });
});
