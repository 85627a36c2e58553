import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthBrowser, TestOAuthClient } from '../testing/oauth-browser.js';
import { connectionKey } from './connections.js';
import { ALICE, BOB, type Hosted, MALLORY, REDIRECT, signIn, startHosted } from './fixture.js';

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
