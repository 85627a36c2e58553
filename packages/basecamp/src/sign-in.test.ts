import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { ToolRegistry } from '@x/mcp-core';
import { serveHttp } from '@x/mcp-core/node';
import { type ConnectedClient, connectHttp, connectInMemory, errorBody } from '@x/mcp-core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type BasecampSettings, createBasecampProvider } from './index.js';
import { type FakeBasecamp, startFakeBasecamp } from './testing/index.js';

let fake: FakeBasecamp;
let home: string;
beforeAll(async () => {
  fake = await startFakeBasecamp({ accounts: 'one' });
  home = mkdtempSync(join(tmpdir(), 'basecamp-sign-in-'));
});
afterAll(() => fake.close());

let files = 0;
let tokenFile = '';
let connection: ConnectedClient | undefined;
let http: { close(): Promise<void> } | undefined;
afterEach(async () => {
  await connection?.close();
  await http?.close();
  connection = undefined;
  http = undefined;
});

type Answer = 'accept' | 'decline' | 'cancel';

interface Asked {
  mode: unknown;
  url: string;
  message: unknown;
  elicitationId: unknown;
}

/**
 * A client that declares URL elicitation (unless `capabilities` says otherwise). On `accept` it
 * "opens" the URL like a browser: it follows Launchpad's redirect to the loopback callback (the
 * fake Launchpad approves at once), after `beforeOpen`; it remembers what it was asked, the pages
 * it was shown and the completion notifications it got.
 */
function browserClient(
  answer: Answer,
  options: {
    modern?: boolean;
    capabilities?: Record<string, unknown>;
    open?: boolean;
    /** Opens the page once this many questions were asked (a barrier for concurrent calls). Default 1. */
    openAfter?: number;
    beforeOpen?: (asked: Asked) => Promise<void>;
  } = {},
) {
  const asked: Asked[] = [];
  const pages: Promise<{ status: number; text: string }>[] = [];
  const completed: unknown[] = [];
  const client = new Client(
    { name: 'sign-in-test', version: '0.0.0' },
    {
      capabilities: options.capabilities ?? { elicitation: { url: {} } },
      ...(options.modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  if (options.capabilities === undefined || 'elicitation' in options.capabilities) {
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as Record<string, unknown>;
      const seen: Asked = {
        mode: params.mode,
        url: String(params.url),
        message: params.message,
        elicitationId: params.elicitationId,
      };
      asked.push(seen);
      if (answer === 'accept' && options.open !== false && asked.length === (options.openAfter ?? 1)) {
        await options.beforeOpen?.(seen);
        // The person signs in after agreeing to open the page; the client does not wait for it.
        pages.push(
          fetch(seen.url).then(async (response) => ({
            status: response.status,
            text: await response.text(),
          })),
        );
      }
      return { action: answer };
    });
  }
  if (!options.modern && options.capabilities === undefined) {
    client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
      completed.push(notification.params.elicitationId);
    });
  }
  return { client, asked, pages, completed };
}

function settings(extra: BasecampSettings = {}): BasecampSettings {
  tokenFile = join(home, `token-${++files}.json`);
  return {
    apiUrl: fake.url,
    launchpadUrl: fake.launchpadUrl,
    clientId: fake.client.id,
    clientSecret: fake.client.secret,
    tokenFile,
    rateLimitRequests: 10_000,
    env: { BASECAMP_REDIRECT_URI: 'http://127.0.0.1:0/callback' },
    ...extra,
  };
}

/** 2025-11-25: in memory, one connection. 2026-07-28: stateless HTTP, one request per round. */
async function connect(client: Client, modern: boolean, extra: BasecampSettings = {}): Promise<void> {
  const registry = new ToolRegistry().use(createBasecampProvider(settings(extra)));
  if (!modern) {
    connection = await connectInMemory(registry, { client });
    return;
  }
  const server = await serveHttp({ name: 'sign-in-test', version: '0.0.0', registry, port: 0 });
  http = server;
  connection = await connectHttp(server.url, { client });
}

const listProjects = () => {
  if (!connection) throw new Error('not connected');
  return connection.client.callTool({ name: 'list_projects', arguments: {} });
};

const savedLogin = () => JSON.parse(readFileSync(tokenFile, 'utf8')) as Record<string, unknown>;

/** The loopback callback a sign-in URL sends the browser back to. */
const callbackOf = (url: string) => new URL(new URL(url).searchParams.get('redirect_uri') ?? '');

describe.each([
  { era: '2025-11-25 (elicitation/create in URL mode, then elicitation/complete)', modern: false },
  { era: '2026-07-28 (input_required with the URL elicitation, answered on retry)', modern: true },
])('sign-in from the agent, client on $era', ({ modern }) => {
  it('sends the person to Launchpad, saves the login as `basecamp-mcp login` does, and answers the call', async () => {
    const browser = browserClient('accept', { modern });
    await connect(browser.client, modern);
    expect(existsSync(tokenFile)).toBe(false);
    const result = await listProjects();
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.structuredContent)).toContain('The Leto Laptop');
    expect(browser.asked).toHaveLength(1);
    const [asked] = browser.asked as [Asked];
    expect(asked.mode).toBe('url');
    expect(asked.message).toContain('Sign in to Basecamp');
    const url = new URL(asked.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.launchpadUrl}/authorization/new`);
    expect(url.searchParams.get('client_id')).toBe(fake.client.id);
    expect(url.searchParams.get('state')).toMatch(/^[0-9a-f]{32}$/);
    expect(callbackOf(asked.url).hostname).toBe('127.0.0.1');
    // No secret in the URL the client shows.
    expect(asked.url).not.toContain(fake.client.secret);
    if (modern) {
      expect(asked.elicitationId).toBeUndefined();
    } else {
      expect(asked.elicitationId).toMatch(/^[0-9a-f]{24}$/);
      expect(browser.completed).toEqual([asked.elicitationId]);
    }
    const page = await browser.pages[0];
    expect(page?.status).toBe(200);
    expect(page?.text).toContain('signed in to Basecamp as Victor Cooper');
    // The login file: the login command's shape, mode 0600.
    const saved = savedLogin();
    expect(saved).toMatchObject({
      accountId: fake.accountId,
      accountName: 'Honcho Design',
      identity: { id: 9_999_999, name: 'Victor Cooper', email: 'victor@honchodesign.com' },
      clientId: fake.client.id,
      clientSecret: fake.client.secret,
    });
    expect(saved.accessToken).toMatch(/^bc-access-/);
    expect(saved.refreshToken).toMatch(/^bc-refresh-/);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    // The listener is closed: the callback (code and state included) cannot be replayed.
    await expect(
      fetch(new URL(`${callbackOf(asked.url).pathname}?code=x&state=y`, callbackOf(asked.url))),
    ).rejects.toThrow();
  });

  it.each(['decline', 'cancel'] as const)(
    'on %s answers the error as before, naming the login command',
    async (answer) => {
      const browser = browserClient(answer, { modern });
      await connect(browser.client, modern);
      const result = await listProjects();
      const body = errorBody(result);
      expect(body).toMatchObject({ error_code: 'TOOL_NOT_ENABLED' });
      expect(body.message).toContain('Not logged in to Basecamp. Run `basecamp-mcp login` in a terminal');
      expect(body.message).toContain(answer === 'decline' ? 'declined the sign-in' : 'dismissed the sign-in');
      expect(browser.asked).toHaveLength(1);
      expect(existsSync(tokenFile)).toBe(false);
      // The flow was stopped: its listener is gone.
      await expect(fetch(callbackOf(browser.asked[0]?.url ?? ''))).rejects.toThrow();
    },
  );

  it('answers the error with the reason when the browser never comes back in time', async () => {
    const browser = browserClient('accept', { modern, open: false });
    await connect(browser.client, modern, { signInWaitMs: 300 });
    const body = errorBody(await listProjects());
    expect(body).toMatchObject({ error_code: 'TOOL_NOT_ENABLED' });
    expect(body.message).toContain('Run `basecamp-mcp login` in a terminal');
    expect(body.message).toContain('did not complete: No answer from the browser in time');
    expect(existsSync(tokenFile)).toBe(false);
  });

  it('signs in again when the saved login is dead (no refresh token, token refused)', async () => {
    const browser = browserClient('accept', { modern });
    await connect(browser.client, modern);
    writeFileSync(
      tokenFile,
      JSON.stringify({ accessToken: 'bc-access-dead', accountId: fake.accountId, clientId: fake.client.id }),
      { mode: 0o600 },
    );
    const result = await listProjects();
    expect(result.isError).toBeFalsy();
    expect(browser.asked).toHaveLength(1);
    expect(savedLogin().accessToken).not.toBe('bc-access-dead');
  });

  it('a client without elicitation, or with form mode only, gets the error as today and is asked nothing', async () => {
    for (const capabilities of [{}, { elicitation: { form: {} } }]) {
      const browser = browserClient('accept', { modern, capabilities });
      await connect(browser.client, modern);
      const body = errorBody(await listProjects());
      expect(body).toMatchObject({ error_code: 'TOOL_NOT_ENABLED' });
      expect(body.message).toBe(
        'Not logged in to Basecamp. Run `basecamp-mcp login` in a terminal, or set BASECAMP_ACCESS_TOKEN and BASECAMP_ACCOUNT_ID.',
      );
      expect(browser.asked).toEqual([]);
      await connection?.close();
      await http?.close();
      connection = undefined;
      http = undefined;
    }
  });
});

describe('sign-in from the agent, hostile browsers', () => {
  it('refuses a callback with a foreign state (no token written) and still completes the real one', async () => {
    let forged: { status: number; text: string } | undefined;
    const browser = browserClient('accept', {
      beforeOpen: async (asked) => {
        // A page elsewhere sends the browser to the callback with a code of its own.
        const attacker = new URL(callbackOf(asked.url));
        attacker.searchParams.set('code', fake.issueTokens().accessToken);
        attacker.searchParams.set('state', 'f'.repeat(32));
        const response = await fetch(attacker);
        forged = { status: response.status, text: await response.text() };
        expect(existsSync(tokenFile)).toBe(false);
      },
    });
    await connect(browser.client, false);
    const exchangesBefore = fake.tokenRequests('code').length;
    const result = await listProjects();
    expect(forged?.status).toBe(400);
    expect(forged?.text).toContain('does not belong to the running login');
    expect(result.isError).toBeFalsy();
    // Only the real code was exchanged.
    expect(fake.tokenRequests('code').length - exchangesBefore).toBe(1);
  });

  it('runs one flow for calls that need it at the same time: one URL, one exchange, every call answered', async () => {
    const browser = browserClient('accept', { openAfter: 3 });
    await connect(browser.client, false);
    const exchangesBefore = fake.tokenRequests('code').length;
    const results = await Promise.all([listProjects(), listProjects(), listProjects()]);
    for (const result of results) expect(result.isError).toBeFalsy();
    expect(browser.asked).toHaveLength(3);
    expect(new Set(browser.asked.map((asked) => asked.url)).size).toBe(1);
    expect(fake.tokenRequests('code').length - exchangesBefore).toBe(1);
  });

  it('a replayed callback after the sign-in reaches nothing, and the saved login stays', async () => {
    let callback: URL | undefined;
    const browser = browserClient('accept', {
      beforeOpen: async (asked) => {
        callback = callbackOf(asked.url);
      },
    });
    await connect(browser.client, false);
    expect((await listProjects()).isError).toBeFalsy();
    const saved = readFileSync(tokenFile, 'utf8');
    const code = fake.tokenRequests('code').at(-1)?.body as Record<string, string>;
    const replay = new URL(callback?.toString() ?? '');
    replay.searchParams.set('code', code.code ?? '');
    replay.searchParams.set('state', new URL(browser.asked[0]?.url ?? '').searchParams.get('state') ?? '');
    await expect(fetch(replay)).rejects.toThrow();
    expect(readFileSync(tokenFile, 'utf8')).toBe(saved);
  });
});
