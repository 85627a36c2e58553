import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closedPort } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeBasecamp, SECOND_ACCOUNT_ID, startFakeBasecamp } from '../testing/index.js';
import { runAuthCommand } from './cli.js';
import { LoginError, type LoginOptions, login, logout } from './login.js';
import type { StoredLogin } from './token-file.js';

let fake: FakeBasecamp;
let home: string;
beforeAll(async () => {
  fake = await startFakeBasecamp();
  home = mkdtempSync(join(tmpdir(), 'basecamp-login-'));
});
afterAll(() => fake.close());

let files = 0;
/** A login that "opens the browser" by fetching the authorization URL (the fake approves at once). */
function options(extra: Partial<LoginOptions> = {}): LoginOptions & { tokenFile: string; output: string[] } {
  const output: string[] = [];
  return {
    clientId: fake.client.id,
    clientSecret: fake.client.secret,
    redirectUri: 'http://127.0.0.1:0/callback',
    launchpadUrl: fake.launchpadUrl,
    tokenFile: join(home, `token-${++files}.json`),
    env: {},
    write: (text) => output.push(text),
    onAuthorizeUrl: (url) => {
      void fetch(url).catch(() => {});
    },
    waitMs: 10_000,
    output,
    ...extra,
  };
}

describe('login with Launchpad', () => {
  it('exchanges the code, reads authorization.json and saves the chosen account with mode 0600', async () => {
    const opts = options({ accountId: fake.accountId });
    const result = await login(opts);
    const saved = JSON.parse(readFileSync(opts.tokenFile, 'utf8')) as StoredLogin;
    expect(saved).toEqual(result.login);
    expect(saved).toMatchObject({
      accountId: fake.accountId,
      accountName: 'Honcho Design',
      identity: { id: 9_999_999, name: 'Victor Cooper', email: 'victor@honchodesign.com' },
      clientId: fake.client.id,
      clientSecret: fake.client.secret,
    });
    expect(saved.accessToken).toMatch(/^bc-access-/);
    expect(saved.refreshToken).toMatch(/^bc-refresh-/);
    expect(Date.parse(saved.expiresAt ?? '')).toBeGreaterThan(Date.now() + 13 * 86_400_000);
    expect(statSync(opts.tokenFile).mode & 0o777).toBe(0o600);
    const printed = opts.output.join('');
    expect(printed).toContain(
      `${fake.launchpadUrl}/authorization/new?response_type=code&client_id=${fake.client.id}`,
    );
    expect(printed).toContain('Logged in to Basecamp as Victor Cooper, account "Honcho Design"');
    expect(printed).not.toContain(saved.accessToken);
    const exchange = fake.requests.findLast((request) => request.path === '/authorization/token');
    expect(exchange?.body).toMatchObject({ grant_type: 'authorization_code', client_id: fake.client.id });
    expect((exchange?.body as Record<string, string> | undefined)?.redirect_uri).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/callback$/,
    );
  });

  it('asks which account to use when there are several', async () => {
    const questions: string[] = [];
    const opts = options({
      prompt: async (question) => {
        questions.push(question);
        return questions.length === 1 ? 'nine' : '2';
      },
    });
    const result = await login(opts);
    expect(result.login.accountId).toBe(SECOND_ACCOUNT_ID);
    expect(questions).toHaveLength(2);
    expect(opts.output.join('')).toContain('1. Honcho Design (999999999)\n  2. Side Projects (777777777)');
  });

  it('refuses to guess between several accounts without a prompt or --account', async () => {
    const opts = options();
    await expect(login(opts)).rejects.toThrow(
      /several Basecamp accounts: 999999999 \(Honcho Design\), 777777777 \(Side Projects\)/,
    );
    expect(existsSync(opts.tokenFile)).toBe(false);
  });

  it('takes the only bc3 account without asking', async () => {
    const single = await startFakeBasecamp({ accounts: 'one' });
    try {
      const opts = options({
        launchpadUrl: single.launchpadUrl,
        clientId: single.client.id,
        clientSecret: single.client.secret,
      });
      const result = await login(opts);
      expect(result.login.accountId).toBe(single.accountId);
    } finally {
      await single.close();
    }
  });

  it('rejects an account the login does not reach', async () => {
    await expect(login(options({ accountId: '123' }))).rejects.toThrow('Account 123 is not one of');
  });

  it('ignores a callback with a foreign state, and fails on access_denied', async () => {
    let wrongState = 0;
    const opts = options({
      onAuthorizeUrl: (url) => {
        const authorize = new URL(url);
        const redirect = new URL(authorize.searchParams.get('redirect_uri') ?? '');
        void (async () => {
          const foreign = await fetch(`${redirect}?code=abc&state=not-ours`);
          wrongState = foreign.status;
          await fetch(`${redirect}?error=access_denied&state=${authorize.searchParams.get('state')}`);
        })();
      },
    });
    await expect(login(opts)).rejects.toThrow('Access was denied in the browser');
    expect(wrongState).toBe(400);
  });

  it('explains a refused client secret, in the terminal and in the browser', async () => {
    let page: Promise<{ status: number; text: string }> | undefined;
    const error = await login(
      options({
        clientSecret: 'wrong',
        accountId: fake.accountId,
        onAuthorizeUrl: (url) => {
          page = fetch(url).then(async (response) => ({
            status: response.status,
            text: await response.text(),
          }));
        },
      }),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LoginError);
    expect((error as Error).message).toContain('BASECAMP_CLIENT_SECRET');
    const browser = await page;
    expect(browser?.status).toBe(502);
    expect(browser?.text).toContain('Sign-in did not complete');
    expect(browser?.text).toContain('BASECAMP_CLIENT_SECRET');
    expect(browser?.text).not.toContain('signed in to Basecamp');
  });

  it('tells the browser it is signed in only once the login is saved', async () => {
    let page: Promise<string> | undefined;
    const opts = options({
      accountId: fake.accountId,
      onAuthorizeUrl: (url) => {
        page = fetch(url).then((response) => response.text());
      },
    });
    await login(opts);
    expect(existsSync(opts.tokenFile)).toBe(true);
    expect(await page).toContain(
      'basecamp-mcp is signed in to Basecamp as Victor Cooper, account &#34;Honcho Design&#34;.',
    );
  });

  it('needs the OAuth app and a local redirect URI', async () => {
    await expect(login(options({ clientId: undefined, clientSecret: undefined }))).rejects.toThrow(
      'launchpad.37signals.com/integrations',
    );
    await expect(login(options({ redirectUri: 'https://example.com/callback' }))).rejects.toThrow(
      'local http address',
    );
  });

  it('gives up when the browser never comes back', async () => {
    await expect(login(options({ onAuthorizeUrl: () => {}, waitMs: 50 }))).rejects.toThrow(
      'No answer from the browser',
    );
  });
});

describe('logout', () => {
  it('revokes the token at Launchpad and deletes the file', async () => {
    const opts = options({ accountId: fake.accountId });
    const { login: saved } = await login(opts);
    const result = await logout({ tokenFile: opts.tokenFile, launchpadUrl: fake.launchpadUrl, env: {} });
    expect(result).toEqual({ removed: true, revoked: true, tokenFile: opts.tokenFile });
    expect(fake.revoked).toContain(saved.accessToken);
    expect(existsSync(opts.tokenFile)).toBe(false);
    const again = await logout({ tokenFile: opts.tokenFile, launchpadUrl: fake.launchpadUrl, env: {} });
    expect(again.removed).toBe(false);
  });

  it('still deletes the file when Launchpad cannot be reached', async () => {
    const opts = options({ accountId: fake.accountId });
    await login(opts);
    const launchpadUrl = `http://127.0.0.1:${await closedPort()}`;
    const result = await logout({ tokenFile: opts.tokenFile, launchpadUrl, env: {} });
    expect(result).toMatchObject({ removed: true, revoked: false });
  });
});

describe('basecamp-mcp login / logout arguments', () => {
  const io = () => {
    const output: string[] = [];
    return { output, write: (text: string) => output.push(text), env: {} };
  };

  it('prints help', async () => {
    const login = io();
    expect(await runAuthCommand('login', ['--help'], login)).toBe(0);
    expect(login.output.join('')).toContain('basecamp-mcp login [--account <id>]');
  });

  it('rejects unknown flags and a bad --account with exit 2', async () => {
    const unknown = io();
    expect(await runAuthCommand('logout', ['--account', '1'], unknown)).toBe(2);
    const bad = io();
    expect(await runAuthCommand('login', ['--account', 'abc'], bad)).toBe(2);
    expect(bad.output.join('')).toContain('--account takes the account number');
  });

  it('whoami names the person, account, expiry and file, and exits 1 when signed out', async () => {
    const opts = options({ accountId: fake.accountId });
    const env = { BASECAMP_TOKEN_FILE: opts.tokenFile };
    const before = io();
    expect(await runAuthCommand('whoami', [], { ...before, env })).toBe(1);
    expect(before.output.join('')).toContain(`Not signed in to Basecamp (no login at ${opts.tokenFile})`);
    const { login: saved } = await login(opts);
    const after = io();
    expect(await runAuthCommand('whoami', [], { ...after, env })).toBe(0);
    const shown = after.output.join('');
    expect(shown).toContain(
      `Signed in to Basecamp as Victor Cooper, victor@honchodesign.com, account "Honcho Design" (${fake.accountId}).`,
    );
    expect(shown).toContain(`Access token expires ${saved.expiresAt}`);
    expect(shown).toContain(`Login stored in ${opts.tokenFile}.`);
    expect(shown).not.toContain(saved.accessToken);
  });

  it('exits 1 with the reason when the OAuth app is not configured', async () => {
    const missing = io();
    expect(await runAuthCommand('login', [], missing)).toBe(1);
    expect(missing.output.join('')).toContain('BASECAMP_CLIENT_ID and BASECAMP_CLIENT_SECRET are needed');
  });
});
