import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthBrowser, TestOAuthClient } from '../testing/oauth-browser.js';
import { connectionKey } from './connections.js';
import { ALICE, approve, BOB, type Hosted, MALLORY, REDIRECT, signIn, startHosted } from './fixture.js';

let env: Hosted;
beforeAll(async () => {
  env = await startHosted();
});
afterAll(() => env.close());

const text = (result: unknown) =>
  JSON.parse(((result as { content: Array<{ text: string }> }).content[0] as { text: string }).text);

describe('hosted OAuth, end to end with the SDK v2 client', () => {
  it('signs in through consent and Launchpad, then calls tools as that user', async () => {
    const alice = await signIn(env, ALICE);
    try {
      expect(text(await alice.client.callTool({ name: 'whoami', arguments: {} }))).toEqual({
        user: 'basecamp:101',
      });
      env.fake.resetLog();
      const projects = await alice.client.callTool({ name: 'basecamp_list_projects', arguments: {} });
      expect(projects.isError).toBeFalsy();
      const bearer = env.fake.requests.at(-1)?.headers.authorization?.replace('Bearer ', '') ?? '';
      expect(env.fake.identityOf(bearer)?.id).toBe(ALICE.id);
      // The browser went consent → Launchpad → our callback → the interaction → the client.
      const paths = alice.browser.visited.map((url) => url.pathname);
      expect(paths).toContain('/authorization/new');
      expect(paths).toContain('/oauth/callback/basecamp');
      // The upstream token is stored sealed: neither key nor value holds it in clear.
      const raw = await env.store.get(connectionKey('basecamp:101'));
      expect(raw?.value).toBeDefined();
      expect(raw?.value).not.toContain(bearer);
    } finally {
      await alice.close();
    }
  });

  it('gives two users their own upstream credentials', async () => {
    const alice = await signIn(env, ALICE);
    const bob = await signIn(env, BOB);
    try {
      for (const [who, identity] of [
        [alice, ALICE],
        [bob, BOB],
      ] as const) {
        expect(text(await who.client.callTool({ name: 'whoami', arguments: {} }))).toEqual({
          user: `basecamp:${identity.id}`,
        });
        env.fake.resetLog();
        await who.client.callTool({ name: 'basecamp_list_projects', arguments: {} });
        const used = env.fake.requests.map(
          (request) => request.headers.authorization?.replace('Bearer ', '') ?? '',
        );
        expect(used.length).toBeGreaterThan(0);
        for (const token of used) expect(env.fake.identityOf(token)?.id).toBe(identity.id);
      }
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  it('refuses an identity outside the allowed accounts, and issues nothing', async () => {
    const oauth = new TestOAuthClient(REDIRECT);
    const browser = new OAuthBrowser({ stopAt: (url) => url.href.startsWith(REDIRECT) });
    await expect(signIn(env, MALLORY, { oauth, browser })).rejects.toThrow();
    // The client was sent back with access_denied, not with a code.
    expect(browser.stoppedAt?.searchParams.get('error')).toBe('access_denied');
    expect(browser.stoppedAt?.searchParams.get('code')).toBeNull();
    expect(oauth.tokens()).toBeUndefined();
    expect(await env.store.get(connectionKey(`basecamp:${MALLORY.id}`))).toBeUndefined();
    // Launchpad's token for the refused login was revoked.
    expect(env.fake.revoked.some((token) => env.fake.identityOf(token) === undefined)).toBe(true);
  });

  it('works with a confidential client registered with client_secret_post', async () => {
    const oauth = new TestOAuthClient(REDIRECT, 'client_secret_post');
    const bob = await signIn(env, BOB, { oauth });
    try {
      expect(oauth.clientInformation()?.client_secret).toBeTruthy();
      expect(text(await bob.client.callTool({ name: 'whoami', arguments: {} }))).toEqual({
        user: 'basecamp:202',
      });
    } finally {
      await bob.close();
    }
  });

  it('remembers consent per user and client in the same browser', async () => {
    const oauth = new TestOAuthClient(REDIRECT);
    const browser = new OAuthBrowser({ stopAt: (url) => url.href.startsWith(REDIRECT) });
    await (await signIn(env, ALICE, { oauth, browser })).close();
    // A consent page shown is a consent page answered: count the decisions posted.
    const decisions = (from: number) =>
      browser.visited.slice(from).filter((url) => url.pathname.endsWith('/decision'));
    const launchpad = (from: number) =>
      browser.visited.slice(from).filter((url) => url.pathname === '/authorization/new');

    // The same client again: no consent page, no Launchpad.
    let from = browser.visited.length;
    oauth.invalidateCredentials('tokens');
    await (await signIn(env, ALICE, { oauth, browser })).close();
    expect(decisions(from)).toHaveLength(0);
    expect(launchpad(from)).toHaveLength(0);

    // Another client in the same browser: its own consent page, still no Launchpad.
    from = browser.visited.length;
    await (await signIn(env, ALICE, { oauth: new TestOAuthClient(REDIRECT), browser })).close();
    expect(decisions(from)).toHaveLength(1);
    expect(launchpad(from)).toHaveLength(0);
  });
});

describe('the sign-in interaction refuses forgery', () => {
  /** Runs the client's first leg and stops the browser at the Launchpad redirect. */
  async function toLaunchpad(omitCsrf = false) {
    const oauth = new TestOAuthClient(REDIRECT);
    const browser = new OAuthBrowser({
      stopAt: (url) => url.pathname === '/authorization/new' || url.href.startsWith(REDIRECT),
    });
    const transport = new StreamableHTTPClientTransport(new URL(env.url), { authProvider: oauth });
    await new Client({ name: 'forgery', version: '1.0.0' }).connect(transport).catch(() => undefined);
    const consent = await browser.open(oauth.authorizationUrl as URL);
    expect(consent.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(consent.headers.get('x-frame-options')).toBe('DENY');
    // Not no-referrer: that makes browsers send Origin: null on the form POST, which is refused.
    expect(consent.headers.get('referrer-policy')).toBe('same-origin');
    expect(consent.body).toContain('Test client');
    expect(consent.body).toContain('127.0.0.1:9');
    const after = await browser.submit(consent, { decision: 'approve' }, omitCsrf ? ['csrf'] : []);
    return { browser, after };
  }

  it('refuses a consent form without its CSRF token, and never goes to Launchpad', async () => {
    const { after } = await toLaunchpad(true);
    expect(after.status).toBe(403);
    expect(after.url.pathname).toMatch(/\/decision$/);
  });

  it('refuses a consent form posted from another origin', async () => {
    const oauth = new TestOAuthClient(REDIRECT);
    const browser = new OAuthBrowser({ stopAt: (url) => url.href.startsWith(REDIRECT) });
    await new Client({ name: 'origin', version: '1.0.0' })
      .connect(new StreamableHTTPClientTransport(new URL(env.url), { authProvider: oauth }))
      .catch(() => undefined);
    const consent = await browser.open(oauth.authorizationUrl as URL);
    const csrf = /name="csrf" value="([^"]+)"/.exec(consent.body)?.[1] as string;
    const cookie = browser.cookies.map((entry) => `${entry.name}=${entry.value}`).join('; ');
    const response = await fetch(new URL(`${consent.url.pathname}/decision`, env.origin), {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
        cookie,
      },
      body: new URLSearchParams({ csrf, decision: 'approve' }),
    });
    expect(response.status).toBe(403);
  });

  it('refuses a forged state without exchanging anything', async () => {
    env.fake.resetLog();
    const forged = new URL('/oauth/callback/basecamp', env.origin);
    forged.search = new URLSearchParams({ state: 'forged-state', code: 'some-code' }).toString();
    const response = await fetch(forged);
    expect(response.status).toBe(400);
    expect(env.fake.requests.filter((request) => request.path === '/authorization/token')).toHaveLength(0);
  });

  it('refuses a real state from another browser, and a state used twice', async () => {
    const { browser, after } = await toLaunchpad();
    const state = after.url.searchParams.get('state') as string;
    expect(state).toBeTruthy();
    env.fake.resetLog();
    const callback = new URL('/oauth/callback/basecamp', env.origin);
    callback.search = new URLSearchParams({ state, code: 'attacker-code' }).toString();
    // Another browser (no binding cookie) brings the victim's state: refused, nothing exchanged.
    const other = await new OAuthBrowser().open(callback);
    expect(other.status).toBe(400);
    // The state was spent by that attempt: even the right browser cannot use it now.
    const replay = await browser.open(callback);
    expect(replay.status).toBe(400);
    expect(env.fake.requests.filter((request) => request.path === '/authorization/token')).toHaveLength(0);
  });

  it('lets the user deny, and the client gets access_denied', async () => {
    const oauth = new TestOAuthClient(REDIRECT);
    const browser = new OAuthBrowser({ stopAt: (url) => url.href.startsWith(REDIRECT) });
    await new Client({ name: 'deny', version: '1.0.0' })
      .connect(new StreamableHTTPClientTransport(new URL(env.url), { authProvider: oauth }))
      .catch(() => undefined);
    const consent = await browser.open(oauth.authorizationUrl as URL);
    await browser.submit(consent, { decision: 'deny' });
    expect(browser.stoppedAt?.searchParams.get('error')).toBe('access_denied');
    expect(browser.visited.some((url) => url.pathname === '/authorization/new')).toBe(false);
  });
});

describe('operator gates', () => {
  it('refuses an identity outside MCP_ALLOWED_EMAIL_DOMAINS even in an allowed account', async () => {
    const gated = await startHosted({ allowedEmailDomains: ['example.org'] });
    try {
      const oauth = new TestOAuthClient(REDIRECT);
      const browser = new OAuthBrowser({ stopAt: (url) => url.href.startsWith(REDIRECT) });
      await expect(signIn(gated, ALICE, { oauth, browser })).rejects.toThrow();
      expect(browser.stoppedAt?.searchParams.get('error')).toBe('access_denied');
      expect(await gated.hosted.connections.get(`basecamp:${ALICE.id}`)).toBeUndefined();
      const admitted = await signIn(gated, { ...ALICE, id: 505, email: 'alice@EXAMPLE.org' });
      await admitted.close();
    } finally {
      await gated.close();
    }
  });

  it('turns dynamic registration off', async () => {
    const closed = await startHosted({ registration: false });
    try {
      const metadata = (await (
        await fetch(new URL('/.well-known/oauth-authorization-server', closed.origin))
      ).json()) as Record<string, unknown>;
      expect(metadata.registration_endpoint).toBeUndefined();
      const response = await fetch(new URL('/register', closed.origin), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
      });
      expect(response.status).toBe(404);
    } finally {
      await closed.close();
    }
  });
});

describe('several Basecamp accounts', () => {
  let several: Hosted;
  beforeAll(async () => {
    several = await startHosted({ allowedAccounts: [] });
  });
  afterAll(() => several.close());

  it('asks which account to use and stores the choice', async () => {
    const carol = {
      id: 404,
      firstName: 'Carol',
      lastName: 'Chen',
      email: 'carol@example.com',
      accounts: [
        { id: 999999999, name: 'Honcho Design' },
        { id: 2085958500, name: 'Side Projects' },
        { id: 2345678, name: 'Old Basecamp 2', product: 'bcx' },
      ],
    };
    const oauth = new TestOAuthClient(REDIRECT);
    const browser = new OAuthBrowser({ stopAt: (url) => url.href.startsWith(REDIRECT) });
    await new Client({ name: 'picker', version: '1.0.0' })
      .connect(new StreamableHTTPClientTransport(new URL(several.url), { authProvider: oauth }))
      .catch(() => undefined);
    several.fake.signInAs(carol);
    const picker = await approve(browser, await browser.open(oauth.authorizationUrl as URL));
    expect(picker.url.pathname).toMatch(/\/account$/);
    expect(picker.body).toContain('Side Projects');
    expect(picker.body).not.toContain('Old Basecamp 2');
    await browser.submit(picker, { account: '999999999' });
    expect(browser.stoppedAt?.searchParams.get('code')).toBeTruthy();
    const connection = await several.hosted.connections.get('basecamp:404');
    expect(connection?.accountId).toBe('999999999');
    expect(connection?.identity.email).toBe('carol@example.com');
  });
});
