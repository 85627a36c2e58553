import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { ToolRegistry } from '@x/mcp-core';
import { serveHttp } from '@x/mcp-core/node';
import { type ConnectedClient, connectHttp, connectInMemory, errorBody } from '@x/mcp-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createForgeProvider } from './index.js';
import { type FakeDeviceFlowOptions, type FakeForge, startFakeForge } from './testing/index.js';

let fake: FakeForge | undefined;
let connection: ConnectedClient | undefined;
let http: { close(): Promise<void> } | undefined;
let configPath = '';
afterEach(async () => {
  await connection?.close();
  await http?.close();
  await fake?.close();
  connection = undefined;
  http = undefined;
  fake = undefined;
});

type Answer = 'accept' | 'decline' | 'cancel';

interface Asked {
  mode: unknown;
  url: string;
  message: string;
  elicitationId: unknown;
}

/**
 * A client that declares URL elicitation. On `accept` it "opens" the page like a person: loads the
 * verification page and enters the code the message shows (once `openAfter` questions were asked).
 */
function browserClient(
  answer: Answer,
  options: { modern?: boolean; openAfter?: number; open?: boolean } = {},
) {
  const asked: Asked[] = [];
  const entered: Promise<number>[] = [];
  const completed: unknown[] = [];
  const client = new Client(
    { name: 'forge-sign-in-test', version: '0.0.0' },
    {
      capabilities: { elicitation: { url: {} } },
      ...(options.modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params as Record<string, unknown>;
    const seen: Asked = {
      mode: params.mode,
      url: String(params.url),
      message: String(params.message),
      elicitationId: params.elicitationId,
    };
    asked.push(seen);
    if (answer === 'accept' && options.open !== false && asked.length === (options.openAfter ?? 1)) {
      const code = /enter the code ([A-Z0-9-]+)/.exec(seen.message)?.[1] ?? '';
      entered.push(
        (async () => {
          expect((await fetch(seen.url)).status).toBe(200);
          const approved = await fetch(seen.url, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ userCode: code }),
          });
          return approved.status;
        })(),
      );
    }
    return { action: answer };
  });
  if (!options.modern) {
    client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
      completed.push(notification.params.elicitationId);
    });
  }
  return { client, asked, entered, completed };
}

async function connect(client: Client | undefined, modern: boolean, device: FakeDeviceFlowOptions = {}) {
  fake = await startFakeForge({ device: { interval: 0.02, pendingPolls: 0, outcome: 'browser', ...device } });
  configPath = join(mkdtempSync(join(tmpdir(), 'forge-sign-in-')), 'config.json');
  await reconnect(client, modern);
  return fake;
}

/** A new client (and, for 2026-07-28, a new server) on the same fake and login file. */
async function reconnect(client: Client | undefined, modern: boolean) {
  await connection?.close();
  await http?.close();
  if (!fake) throw new Error('no fake');
  const registry = new ToolRegistry().use(createForgeProvider({ apiUrl: fake.url, configPath, env: {} }));
  if (!modern) {
    connection = await connectInMemory(registry, client ? { client } : {});
    return;
  }
  const server = await serveHttp({ name: 'forge-sign-in-test', version: '0.0.0', registry, port: 0 });
  http = server;
  connection = await connectHttp(server.url, client ? { client } : {});
}

const listTickets = () => {
  if (!connection) throw new Error('not connected');
  return connection.client.callTool({ name: 'list_tickets', arguments: {} });
};

describe.each([
  { era: '2025-11-25 (elicitation/create in URL mode, then elicitation/complete)', modern: false },
  { era: '2026-07-28 (input_required with the URL elicitation, answered on retry)', modern: true },
])('Forge sign-in from the agent, client on $era', ({ modern }) => {
  it('sends the person to the device page with the code, saves the login as the login command does, and answers the call', async () => {
    const browser = browserClient('accept', { modern });
    const forge = await connect(browser.client, modern);
    const result = await listTickets();
    expect(result.isError).toBeFalsy();
    expect(browser.asked).toHaveLength(1);
    const [asked] = browser.asked as [Asked];
    expect(asked.mode).toBe('url');
    expect(asked.url).toBe(`${forge.url.replace(/\/api$/, '')}/device`);
    expect(asked.message).toMatch(/enter the code [A-F0-9]{4}-[A-F0-9]{4}/);
    if (modern) expect(asked.elicitationId).toBeUndefined();
    else expect(browser.completed).toEqual([asked.elicitationId]);
    expect(await browser.entered[0]).toBe(200);
    const saved = JSON.parse(readFileSync(configPath, 'utf8'));
    expect(saved).toMatchObject({
      accessToken: forge.accessToken,
      refreshToken: forge.refreshToken,
      userId: forge.userId,
      teamId: forge.teamId,
      user: { email: 'dev@example.com', displayName: 'Dana Developer' },
    });
    expect(statSync(configPath).mode & 0o777).toBe(0o600);
    // The call was answered with Forge's tickets, with the new token.
    const ticketsRead = forge.requests.filter((request) => request.path === '/tickets');
    expect(ticketsRead.at(-1)?.headers.authorization).toBe(`Bearer ${forge.accessToken}`);
  });

  it('on decline answers the error as before; the next call starts a new device login', async () => {
    const browser = browserClient('decline', { modern });
    const forge = await connect(browser.client, modern);
    const body = errorBody(await listTickets());
    expect(body).toMatchObject({ error_code: 'TOOL_NOT_ENABLED' });
    expect(body.message).toContain('Not logged in to Forge. Run `forge-mcp login`');
    expect(body.message).toContain('declined the sign-in');
    expect(existsSync(configPath)).toBe(false);
    // The declined login is over: a later call starts a new one, which the person approves.
    const again = browserClient('accept', { modern });
    await reconnect(again.client, modern);
    expect((await listTickets()).isError).toBeFalsy();
    expect(forge.requests.filter((request) => request.path === '/auth/device/request')).toHaveLength(2);
    expect(again.asked[0]?.message).not.toBe(browser.asked[0]?.message);
  });

  it('answers the error with the reason when the person denies it on the page', async () => {
    const browser = browserClient('accept', { modern, open: false });
    await connect(browser.client, modern, { outcome: 'deny' });
    const body = errorBody(await listTickets());
    expect(body).toMatchObject({ error_code: 'TOOL_NOT_ENABLED' });
    expect(body.message).toContain('did not complete: The login was denied in the browser.');
    expect(existsSync(configPath)).toBe(false);
  });

  it('a client without elicitation gets the error as today', async () => {
    await connect(undefined, modern);
    const body = errorBody(await listTickets());
    expect(body.message).toMatch(/^Not logged in to Forge\. Run `forge-mcp login`.*FORGE_TEAM_ID\.$/);
    expect(fake?.requests.some((request) => request.path === '/auth/device/request')).toBe(false);
  });
});

it('Forge: calls that need sign-in at the same time share one device login', async () => {
  const browser = browserClient('accept', { openAfter: 2 });
  const forge = await connect(browser.client, false);
  const results = await Promise.all([listTickets(), listTickets()]);
  for (const result of results) expect(result.isError).toBeFalsy();
  expect(new Set(browser.asked.map((asked) => asked.message)).size).toBe(1);
  expect(forge.requests.filter((request) => request.path === '/auth/device/request')).toHaveLength(1);
});
