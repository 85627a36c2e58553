import { createBasecampProvider } from '@x/mcp-basecamp';
import { ToolRegistry } from '@x/mcp-core';
import { createForgeProvider } from '@x/mcp-forge';
import { connection as forgeConnection } from '@x/mcp-forge/connection';
import { type FakeForge, startFakeForge } from '@x/mcp-forge/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SealedRecords } from '../store/sealed.js';
import { type BrowserPage, OAuthBrowser } from '../testing/oauth-browser.js';
import { linkedAccountKey, revokeUser } from './admin.js';
import { ALICE, BOB, type Hosted, quiet, REDIRECT, type SignedIn, signIn, startHosted } from './fixture.js';
import type { LinkRecord as ForgeLink } from './linked-accounts.js';

/** The store key of a user's Forge link. */
const forgeLinkKey = (userId: string) => linkedAccountKey(userId, 'forge');

// Per-user Forge links at /connect/forge, in process: the hosted auth in front of serveHttp, the
// fake Launchpad/Basecamp and the fake Forge (its device login), a real MCP client per user.
let env: Hosted;
let forge: FakeForge;
let offsetMs = 0;
let alice: SignedIn;
let bob: SignedIn;

beforeAll(async () => {
  forge = await startFakeForge();
  env = await startHosted({
    linked: [{ connection: forgeConnection, url: forge.url, now: () => Date.now() + offsetMs }],
    registryFor: async (userId) => {
      const links = env.hosted.linked.get('forge');
      if (!links) throw new Error('forge links are off');
      return new ToolRegistry({ logger: quiet })
        .use(
          createBasecampProvider({
            credentials: env.hosted.connections.credentialSource(userId),
            apiUrl: env.fake.url,
            contact: 'tests@example.com',
            env: {},
          }),
          { prefix: 'basecamp_' },
        )
        .use(
          createForgeProvider({ credentials: links.credentialSource(userId), apiUrl: forge.url, env: {} }),
          {
            prefix: 'forge_',
            exclude: ['get_repository_context'],
          },
        );
    },
  });
  alice = await signIn(env, ALICE);
  bob = await signIn(env, BOB);
});
afterAll(async () => {
  await alice?.close();
  await bob?.close();
  await env?.close();
  await forge?.close();
});

const connect = () => new URL('/connect/forge', env.origin);
const body = (result: unknown) =>
  JSON.parse(((result as { content: Array<{ text: string }> }).content[0] as { text: string }).text);
const polls = () => forge.requests.filter((request) => request.path === '/auth/device/token').length;

/** Opens /connect/forge in the user's browser and starts a device login: the page with the code and the ticket. */
async function startLink(browser: OAuthBrowser): Promise<BrowserPage> {
  const overview = await browser.open(connect());
  expect(overview.status).toBe(200);
  const started = await browser.submit(overview, {});
  expect(started.status).toBe(200);
  expect(started.body).toContain('name="ticket"');
  return started;
}

const ticketOf = (page: BrowserPage) => /name="ticket" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
const withTicket = (page: BrowserPage, ticket: string): BrowserPage => ({
  ...page,
  body: page.body.replace(/name="ticket" value="[^"]+"/, `name="ticket" value="${ticket}"`),
});

describe('/connect/forge', () => {
  it('answers AUTH_REQUIRED with the link page while a user has no Forge link', async () => {
    const result = await bob.client.callTool({ name: 'forge_list_tickets', arguments: {} });
    expect(result.isError).toBe(true);
    const error = body(result);
    expect(error).toMatchObject({
      error_code: 'AUTH_REQUIRED',
      retryable: false,
      connect_url: connect().href,
    });
    expect(error.message).toContain(connect().href);
    expect(forge.requests.some((request) => request.path.startsWith('/tickets'))).toBe(false);
  });

  it('links Forge for the signed-in user (device login), sealed at rest, used for that user only', async () => {
    const started = await startLink(alice.browser);
    const pending = await alice.browser.submit(started, {});
    expect(pending.status).toBe(200);
    expect(pending.body).toContain('not approved this sign-in yet');
    expect(await env.store.get(forgeLinkKey('basecamp:101'))).toBeUndefined();
    const linked = await alice.browser.submit(pending, {});
    expect(linked.status).toBe(200);
    expect(linked.body).toContain('Forge linked');
    const raw = await env.store.get(forgeLinkKey('basecamp:101'));
    expect(raw?.value).toBeDefined();
    for (const secret of [forge.accessToken, forge.refreshToken]) expect(raw?.value).not.toContain(secret);

    forge.requests.length = 0;
    const tickets = await alice.client.callTool({ name: 'forge_list_tickets', arguments: {} });
    expect(tickets.isError).toBeFalsy();
    const used = forge.requests.filter((request) => request.path.startsWith('/tickets'));
    expect(used.length).toBeGreaterThan(0);
    for (const request of used) {
      expect(request.headers.authorization).toBe(`Bearer ${forge.accessToken}`);
      expect(request.headers['x-team-id']).toBe(forge.teamId);
    }
    // Bob is still not linked.
    expect(body(await bob.client.callTool({ name: 'forge_list_tickets', arguments: {} })).error_code).toBe(
      'AUTH_REQUIRED',
    );
  });

  it('refuses a replayed ticket, and stores nothing new', async () => {
    const started = await startLink(alice.browser);
    const pending = await alice.browser.submit(started, {});
    expect(pending.status).toBe(200);
    const before = await env.store.get(forgeLinkKey('basecamp:101'));
    const count = polls();
    // The first finish form (already used) sent again.
    const replay = await alice.browser.submit(started, {});
    expect(replay.status).toBe(400);
    expect(replay.body).toContain('already used');
    expect(polls()).toBe(count);
    expect((await env.store.get(forgeLinkKey('basecamp:101')))?.version).toBe(before?.version);
  });

  it('refuses a ticket from another browser (same user, no binding cookie) and from a browser not signed in', async () => {
    const started = await startLink(bob.browser);
    const count = polls();
    // Bob signs in from a second browser: signed in, but without the cookie of the first.
    const other = new OAuthBrowser({ stopAt: (url) => url.href.startsWith(REDIRECT) });
    const second = await signIn(env, BOB, { browser: other });
    try {
      const foreign = await other.submit(started, {});
      expect(foreign.status).toBe(403);
    } finally {
      await second.close();
    }
    const anonymous = await new OAuthBrowser().submit(started, {});
    expect(anonymous.status).toBe(401);
    expect(polls()).toBe(count);
    expect(await env.store.get(forgeLinkKey('basecamp:202'))).toBeUndefined();
    // The ticket was not spent by those attempts: its own browser can still use it.
    const own = await bob.browser.submit(started, {});
    expect(own.status).toBe(200);
    expect(own.body).toContain('not approved this sign-in yet');
    expect(await env.store.get(forgeLinkKey('basecamp:202'))).toBeUndefined();
  });

  it('refuses a ticket of another user, a forged signature and an expired ticket', async () => {
    const bobs = await startLink(bob.browser);
    const count = polls();
    // Alice's browser (her own session) with Bob's ticket: signed for another user.
    expect((await alice.browser.submit(bobs, {})).status).toBe(400);
    // Bob's ticket with its signature changed.
    const ticket = ticketOf(bobs);
    const forged = `${ticket.slice(0, -2)}${ticket.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await bob.browser.submit(withTicket(bobs, forged), {})).status).toBe(400);
    // A later expiry with the old signature.
    const [id, expires, signature] = ticket.split('.');
    const extended = `${id}.${Number(expires) + 3_600_000}.${signature}`;
    expect((await bob.browser.submit(withTicket(bobs, extended), {})).status).toBe(400);
    // The clock passes the ticket's end.
    offsetMs = 11 * 60_000;
    try {
      const expired = await bob.browser.submit(bobs, {});
      expect(expired.status).toBe(400);
      expect(expired.body).toContain('expired');
    } finally {
      offsetMs = 0;
    }
    expect(polls()).toBe(count);
    expect(await env.store.get(forgeLinkKey('basecamp:202'))).toBeUndefined();
  });

  it('starts a link only from its own page (CSRF) and only for a signed-in browser', async () => {
    const overview = await bob.browser.open(connect());
    const count = forge.requests.length;
    expect((await bob.browser.submit(overview, {}, ['csrf'])).status).toBe(403);
    expect((await new OAuthBrowser().open(connect())).status).toBe(401);
    expect((await new OAuthBrowser().submit(overview, {})).status).toBe(401);
    expect(forge.requests.length).toBe(count);
  });

  it('keeps using a still valid token while Forge cannot refresh it', async () => {
    const records = new SealedRecords(env.store, env.keyring);
    const entry = await records.get<ForgeLink>(forgeLinkKey('basecamp:101'));
    if (!entry) throw new Error('alice has no link');
    // Due for an early refresh (inside the margin), still valid.
    await records.set(forgeLinkKey('basecamp:101'), { ...entry.value, expiresAt: Date.now() + 30_000 });
    forge.failNext({ status: 503, path: '/auth/refresh' });
    forge.requests.length = 0;
    const result = await alice.client.callTool({ name: 'forge_list_tickets', arguments: {} });
    expect(result.isError).toBeFalsy();
    // One attempt, then a pause: the next call does not try again at once.
    expect((await alice.client.callTool({ name: 'forge_list_tickets', arguments: {} })).isError).toBeFalsy();
    expect(forge.requests.filter((request) => request.path === '/auth/refresh').length).toBe(1);
    const used = forge.requests.filter((request) => request.path.startsWith('/tickets'));
    for (const request of used)
      expect(request.headers.authorization).toBe(`Bearer ${entry.value.accessToken}`);
  });

  it('refreshes an expired Forge token once, and ends the link with AUTH_REQUIRED when Forge refuses the refresh', async () => {
    const before = forge.accessToken;
    forge.expireAccessToken();
    forge.requests.length = 0;
    const calls = await Promise.all(
      Array.from({ length: 5 }, () => alice.client.callTool({ name: 'forge_list_tickets', arguments: {} })),
    );
    for (const call of calls) expect(call.isError).toBeFalsy();
    expect(forge.requests.filter((request) => request.path === '/auth/refresh').length).toBe(1);
    expect(forge.accessToken).not.toBe(before);

    forge.expireAccessToken();
    forge.revokeRefreshToken();
    const ended = body(await alice.client.callTool({ name: 'forge_list_tickets', arguments: {} }));
    expect(ended).toMatchObject({ error_code: 'AUTH_REQUIRED', connect_url: connect().href });
    expect(await env.store.get(forgeLinkKey('basecamp:101'))).toBeUndefined();
  });

  it('is removed by users revoke', async () => {
    const started = await startLink(alice.browser);
    const linked = await alice.browser.submit(await alice.browser.submit(started, {}), {});
    expect(linked.body).toContain('Forge linked');
    expect(await env.store.get(forgeLinkKey('basecamp:101'))).toBeDefined();
    const result = await revokeUser(env.store, env.keyring, 'basecamp:101', { linked: ['forge'] });
    expect(result.forge).toBe(true);
    expect(await env.store.get(forgeLinkKey('basecamp:101'))).toBeUndefined();
    // The revoked user's browser session cannot link again until they sign in again.
    expect((await alice.browser.open(connect())).status).toBe(403);
  });
});
