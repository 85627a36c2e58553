import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { FakeIdentity } from '@x/mcp-basecamp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthBrowser, TestOAuthClient } from '../../testing/oauth-browser.js';
import { type Hosted, REDIRECT, startHosted } from '../fixture.js';

const TWO_ACCOUNTS: FakeIdentity = {
  id: 707,
  firstName: 'Tess',
  lastName: 'Two',
  email: 'tess@example.com',
  accounts: [
    { id: 999999999, name: 'Honcho Design' },
    { id: 555555555, name: 'Elsewhere Inc' },
  ],
};

describe('/interaction/<uid>/account: a login admitted on several accounts picks one', () => {
  let env: Hosted;
  beforeAll(async () => {
    env = await startHosted({ allowedAccounts: ['999999999', '555555555'] });
  });
  afterAll(() => env.close());

  /** A browser signed in upstream with both accounts, shown the account picker. */
  const toPicker = async () => {
    const oauth = new TestOAuthClient(REDIRECT);
    const browser = new OAuthBrowser({ stopAt: (url) => url.href.startsWith(REDIRECT) });
    await new Client({ name: 'accounts', version: '1.0.0' })
      .connect(new StreamableHTTPClientTransport(new URL(env.url), { authProvider: oauth }))
      .catch(() => undefined);
    env.fake.signInAs(TWO_ACCOUNTS);
    const consent = await browser.open(oauth.authorizationUrl as URL);
    const picker = await browser.submit(consent, { decision: 'approve' });
    return { browser, picker };
  };

  it('lists the admitted accounts and finishes the sign-in with the one chosen', async () => {
    const { browser, picker } = await toPicker();
    expect(picker.status).toBe(200);
    expect(picker.url.pathname).toMatch(/^\/interaction\/[\w-]+\/account$/);
    expect(picker.body).toContain('Honcho Design');
    expect(picker.body).toContain('Elsewhere Inc');
    await browser.submit(picker, { account: '555555555' });
    expect(browser.stoppedAt?.searchParams.get('code')).toBeTruthy();
    const saved = await env.hosted.connections.get(`basecamp:${TWO_ACCOUNTS.id}`);
    expect(saved?.accountId).toBe('555555555');
    // The sign-in is over (its interaction with it): posting the choice again is refused.
    const again = await browser.submit(picker, { account: '999999999' });
    expect(again.status).toBe(400);
    expect(again.body).toContain('This sign-in has expired or belongs to another browser.');
    expect((await env.hosted.connections.get(`basecamp:${TWO_ACCOUNTS.id}`))?.accountId).toBe('555555555');
  });

  it('refuses a choice without the page’s CSRF token, and an account it did not list', async () => {
    const { browser, picker } = await toPicker();
    const forged = await browser.submit(picker, { account: '999999999' }, ['csrf']);
    expect(forged.status).toBe(403);
    expect(forged.body).toContain('CSRF check failed');
    const unlisted = await browser.submit(picker, { account: '123' });
    expect(unlisted.status).toBe(400);
    expect(unlisted.body).toContain('Choose one of the listed accounts.');
    // Neither spent the choice: the listed account still goes through.
    await browser.submit(picker, { account: '999999999' });
    expect(browser.stoppedAt?.searchParams.get('code')).toBeTruthy();
  });

  it('refuses the picker to a browser without the interaction (another browser)', async () => {
    const { picker } = await toPicker();
    const stranger = await new OAuthBrowser().open(picker.url);
    expect(stranger.status).toBe(400);
    expect(stranger.body).toContain('This sign-in has expired or belongs to another browser.');
  });
});
