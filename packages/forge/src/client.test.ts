import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolRegistry } from '@x/mcp-core';
import {
  type ConnectedClient,
  closedPort,
  connectInMemory,
  errorBody,
  resultText,
} from '@x/mcp-core/testing';
import type { CredentialSource } from '@x/mcp-core/upstream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readConfig } from './auth/config-file.js';
import type { ForgeCredentials } from './auth/credentials.js';
import { login } from './auth/login.js';
import { createForgeProvider, type ForgeSettings } from './index.js';
import { type FakeForge, startFakeForge } from './testing/index.js';

let fake: FakeForge;
let directory: string;
let configPath: string;
const connections: ConnectedClient[] = [];

beforeEach(async () => {
  fake = await startFakeForge();
  directory = mkdtempSync(join(tmpdir(), 'forge-client-'));
  configPath = join(directory, 'config.json');
});
afterEach(async () => {
  for (const connection of connections.splice(0)) await connection.close();
  await fake.close();
});

function storedLogin(overrides: Record<string, unknown> = {}) {
  return {
    accessToken: fake.accessToken,
    refreshToken: fake.refreshToken,
    expiresAt: '2026-11-22T10:00:00.000Z',
    userId: fake.userId,
    teamId: fake.teamId,
    user: { email: 'dev@example.com', displayName: 'Dana Developer' },
    addedByANewerCli: { keep: true },
    ...overrides,
  };
}

function writeLogin(content: unknown, mode = 0o600) {
  writeFileSync(configPath, typeof content === 'string' ? content : JSON.stringify(content), { mode });
  chmodSync(configPath, mode);
}

async function connect(settings: ForgeSettings = {}) {
  const provider = createForgeProvider({
    apiUrl: fake.url,
    configPath,
    retryDelayMs: 10,
    env: {},
    ...settings,
  });
  const connection = await connectInMemory(new ToolRegistry().use(provider));
  connections.push(connection);
  return (name: string, args: Record<string, unknown>) =>
    connection.client.callTool({ name, arguments: args });
}

const getTicket = { ticketId: 'FOR-1' };
const refreshCalls = () => fake.requests.filter((request) => request.path === '/auth/refresh');

describe('credentials', () => {
  it("uses the forge CLI's login file: bearer token and x-team-id on every request", async () => {
    writeLogin(storedLogin());
    const call = await connect();
    expect((await call('get_ticket_context', getTicket)).isError).toBeFalsy();
    expect(fake.requests.at(-1)?.headers).toMatchObject({
      authorization: `Bearer ${fake.accessToken}`,
      'x-team-id': fake.teamId,
      'content-type': 'application/json',
    });
  });

  it('uses FORGE_ACCESS_TOKEN and FORGE_TEAM_ID from the environment over the file', async () => {
    writeLogin('{ not json');
    const call = await connect({ env: { FORGE_ACCESS_TOKEN: fake.accessToken, FORGE_TEAM_ID: fake.teamId } });
    expect((await call('get_ticket_context', getTicket)).isError).toBeFalsy();
  });

  it('names the missing variable when only one of the pair is set', async () => {
    const call = await connect({ env: { FORGE_ACCESS_TOKEN: 'x' } });
    const body = errorBody(await call('get_ticket_context', getTicket));
    expect(body.error_code).toBe('TOOL_NOT_ENABLED');
    expect(body.message).toContain('FORGE_TEAM_ID');
  });

  it('tells the user to log in when there is no login', async () => {
    const call = await connect();
    const body = errorBody(await call('list_tickets', {}));
    expect(body).toMatchObject({ error_code: 'TOOL_NOT_ENABLED' });
    expect(body.message).toContain('forge-mcp login');
    // A command that works from a checkout too (the root script runs this package's bin).
    expect(body.message).toContain('`pnpm -s forge-mcp login`');
    expect(fake.requests).toHaveLength(0);
  });

  it('is ready with a login and a reachable API, and says which part is missing otherwise', async () => {
    const readiness = (settings: ForgeSettings = {}) =>
      createForgeProvider({ apiUrl: fake.url, configPath, env: {}, ...settings }).checkReadiness?.({
        signal: AbortSignal.timeout(5_000),
      });
    const loggedOut = await readiness();
    expect(loggedOut?.ready).toBe(false);
    expect(loggedOut?.checks[0]).toMatchObject({ name: 'credentials', ok: false });
    expect(loggedOut?.checks[0]?.detail).toContain('forge-mcp login');
    expect(loggedOut?.checks[1]).toMatchObject({ name: 'upstream', ok: true });
    writeLogin(storedLogin());
    const ready = await readiness();
    expect(ready).toMatchObject({ ready: true, checks: [{ ok: true }, { ok: true }] });
    expect(JSON.stringify(ready)).not.toContain(fake.accessToken);
    expect(fake.requests.filter((request) => request.path.startsWith('/tickets'))).toHaveLength(0);
    const port = await closedPort();
    const down = await readiness({ apiUrl: `http://127.0.0.1:${port}/api` });
    expect(down?.checks[1]).toEqual({
      name: 'upstream',
      ok: false,
      detail: `http://127.0.0.1:${port} did not answer`,
    });
  });

  it('reports a malformed or invalid login file without rewriting it', async () => {
    const call = await connect();
    for (const [content, word] of [
      ['{ "accessToken": ', 'malformed'],
      [JSON.stringify({ accessToken: 'a' }), 'invalid'],
    ] as const) {
      writeLogin(content);
      const body = errorBody(await call('get_ticket_context', getTicket));
      expect(body.error_code).toBe('TOOL_NOT_ENABLED');
      expect(body.message).toContain(word);
      expect(body.message).toContain('forge-mcp login');
      expect(readFileSync(configPath, 'utf8')).toBe(content);
    }
  });

  it('warns (but works) when the login file is readable by others', async () => {
    writeLogin(storedLogin(), 0o644);
    const warnings: string[] = [];
    await readConfig(configPath, (warning) => warnings.push(warning));
    expect(warnings[0]).toContain('chmod 600');
  });

  it('reads nothing when the provider is built; settings and environment are read on the first call', async () => {
    const env: Record<string, string | undefined> = { FORGE_API_URL: 'not a url at all' };
    const provider = createForgeProvider({ env, configPath: join(directory, 'missing', 'config.json') });
    expect(provider.tools).toHaveLength(11);
    expect(fake.requests).toHaveLength(0);
    env.FORGE_API_URL = fake.url;
    env.FORGE_ACCESS_TOKEN = fake.accessToken;
    env.FORGE_TEAM_ID = fake.teamId;
    const connection = await connectInMemory(new ToolRegistry().use(provider));
    connections.push(connection);
    expect((await connection.client.callTool({ name: 'list_tickets', arguments: {} })).isError).toBeFalsy();
    // The tickets, then the team's members once for the assignee names.
    expect(fake.requests.map((request) => request.path)).toEqual([
      '/tickets',
      `/teams/${fake.teamId}/members`,
    ]);
  });

  it('refuses an invalid FORGE_API_URL with a configuration error', async () => {
    const call = await connect({ apiUrl: 'ftp://nowhere' });
    expect(errorBody(await call('list_tickets', {})).error_code).toBe('TOOL_NOT_ENABLED');
  });
});

describe('a credential source given in settings', () => {
  it('is used for every request and the login file is never read', async () => {
    writeLogin('{ not json: reading this would fail');
    const renewed: string[] = [];
    let token = 'stale-user-token';
    const credentials: CredentialSource<ForgeCredentials> = {
      current: async () => ({ accessToken: token, teamId: fake.teamId }),
      renew: async (rejected) => {
        renewed.push(rejected.accessToken);
        token = fake.accessToken;
        return { accessToken: token, teamId: fake.teamId };
      },
    };
    const call = await connect({ credentials, configPath: join(directory, 'config.json') });
    expect((await call('get_ticket_context', getTicket)).isError).toBeFalsy();
    expect(renewed).toEqual(['stale-user-token']);
    expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${fake.accessToken}`);
    expect(refreshCalls()).toHaveLength(0);
    expect(readFileSync(configPath, 'utf8')).toBe('{ not json: reading this would fail');
  });
});

describe('401: refresh once, save, retry', () => {
  it('refreshes an expired token, saves it atomically with mode 0600 and retries', async () => {
    writeLogin(storedLogin());
    const call = await connect();
    fake.expireAccessToken();
    const result = await call('get_ticket_context', getTicket);
    expect(result.isError).toBeFalsy();
    expect(refreshCalls()).toHaveLength(1);
    expect(refreshCalls()[0]?.body).toEqual({ refreshToken: fake.refreshToken });
    const saved = JSON.parse(readFileSync(configPath, 'utf8'));
    expect(saved.accessToken).toBe(fake.accessToken);
    expect(saved.refreshToken).toBe(fake.refreshToken);
    expect(saved.addedByANewerCli).toEqual({ keep: true });
    expect(statSync(configPath).mode & 0o777).toBe(0o600);
    expect(readdirSync(directory)).toEqual(['config.json']);
    expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${saved.accessToken}`);
  });

  it('shares one refresh between concurrent calls', async () => {
    writeLogin(storedLogin());
    const call = await connect();
    fake.expireAccessToken();
    fake.setLatency(20);
    const results = await Promise.all(
      ['FOR-1', 'FOR-2', 'FOR-3', 'T-001', 'FOR-1'].map((ticketId) => call('get_file_changes', { ticketId })),
    );
    expect(results.every((result) => !result.isError)).toBe(true);
    expect(refreshCalls()).toHaveLength(1);
  });

  it('answers TOKEN_EXPIRED with the login command when the refresh fails, and keeps the file', async () => {
    writeLogin(storedLogin());
    const before = readFileSync(configPath, 'utf8');
    const call = await connect();
    fake.expireAccessToken();
    fake.revokeRefreshToken();
    const body = errorBody(await call('list_tickets', {}));
    expect(body).toMatchObject({ error_code: 'TOKEN_EXPIRED', retryable: false });
    expect(body.message).toContain('forge-mcp login');
    expect(readFileSync(configPath, 'utf8')).toBe(before);

    // A login made meanwhile (here through the device flow) is picked up by the next call.
    await login({ apiUrl: fake.url, configPath, pollIntervalMs: 5, write: () => {} });
    expect((await call('list_tickets', {})).isError).toBeFalsy();
  });

  it('never refreshes an environment token', async () => {
    const call = await connect({ env: { FORGE_ACCESS_TOKEN: 'stale-token', FORGE_TEAM_ID: fake.teamId } });
    const body = errorBody(await call('list_tickets', {}));
    expect(body.error_code).toBe('TOKEN_EXPIRED');
    expect(body.message).toContain('FORGE_ACCESS_TOKEN');
    expect(body.message).not.toContain('stale-token');
    expect(refreshCalls()).toHaveLength(0);
  });
});

describe('failures mapped by status code', () => {
  const token = () => ({ accessToken: fake.accessToken, teamId: fake.teamId });

  it('retries a 5xx once, then succeeds', async () => {
    const call = await connect(token());
    fake.failNext({ status: 503, path: '/tickets/FOR-1' });
    expect((await call('get_ticket_context', getTicket)).isError).toBeFalsy();
    expect(fake.requests.filter((request) => request.path === '/tickets/FOR-1')).toHaveLength(2);
  });

  it('gives UPSTREAM_ERROR, retryable, after a second 5xx', async () => {
    const call = await connect(token());
    fake.failNext({ status: 500, times: 2 });
    const body = errorBody(await call('get_ticket_context', getTicket));
    expect(body).toMatchObject({ error_code: 'UPSTREAM_ERROR', retryable: true, status: 500 });
    expect(fake.requests).toHaveLength(2);
  });

  it('never retries a write after a 5xx, so a risk is not recorded twice', async () => {
    const call = await connect(token());
    fake.failNext({ status: 502, method: 'POST', path: '/tickets/FOR-1/execution-events' });
    const body = errorBody(
      await call('report_risk', { ticketId: 'FOR-1', summary: 'Quota', severity: 'high' }),
    );
    expect(body).toMatchObject({ error_code: 'UPSTREAM_UNAVAILABLE', retryable: true, status: 502 });
    expect(
      fake.requests.filter((request) => request.path === '/tickets/FOR-1/execution-events'),
    ).toHaveLength(1);
  });

  it('retries a write once after a 429, which the server did not process', async () => {
    const call = await connect(token());
    fake.failNext({ status: 429, method: 'POST', retryAfter: '0' });
    const result = await call('start_implementation', { ticketId: 'FOR-1', branchName: 'forge/FOR-1-reset' });
    expect(result.isError, resultText(result)).toBeFalsy();
    expect(
      fake.requests.filter((request) => request.path === '/tickets/FOR-1/start-implementation'),
    ).toHaveLength(2);
  });

  it('does not quote a token the upstream echoes in an error', async () => {
    writeLogin(storedLogin());
    const call = await connect();
    fake.failNext({
      status: 422,
      body: {
        statusCode: 422,
        message: `bad header: Bearer ${fake.accessToken}; refresh ${fake.refreshToken}`,
      },
    });
    const body = errorBody(await call('list_tickets', {}));
    expect(body.error_code).toBe('INVALID_INPUT');
    expect(body.message).toContain('Forge said: "bad header: Bearer [redacted]');
    expect(JSON.stringify(body)).not.toContain(fake.accessToken);
  });

  it('maps 403 to PERMISSION_DENIED, for a foreign team too', async () => {
    const call = await connect(token());
    fake.failNext({
      status: 403,
      body: { statusCode: 403, message: 'Ticket does not belong to your workspace', error: 'Forbidden' },
    });
    const body = errorBody(await call('get_ticket_context', getTicket));
    expect(body.error_code).toBe('PERMISSION_DENIED');
    expect(body.message).toContain('Ticket does not belong to your workspace');

    const other = await connect({ accessToken: fake.accessToken, teamId: 'team_other' });
    const foreign = errorBody(await other('list_tickets', {}));
    expect(foreign.error_code).toBe('PERMISSION_DENIED');
    expect(foreign.message).toContain('team_other');
  });

  it('maps 404 to NOT_FOUND whatever the error text says', async () => {
    const call = await connect(token());
    fake.failNext({
      status: 404,
      body: { statusCode: 404, message: 'AEC with id x not found', error: 'Not Found' },
    });
    expect(
      errorBody(
        await call('submit_review_session', { ticketId: 'FOR-1', qaItems: [{ question: 'q', answer: 'a' }] }),
      ),
    ).toMatchObject({
      error_code: 'NOT_FOUND',
      message: 'Ticket not found: FOR-1. Use list_tickets to see ticket IDs.',
    });
  });

  it('hints at FORGE_API_URL when a 404 is a web page rather than the API', async () => {
    const call = await connect(token());
    fake.failNext({ status: 404, body: '<!doctype html><h1>404</h1>' });
    const body = errorBody(await call('get_ticket_context', getTicket));
    expect(body.error_code).toBe('NOT_FOUND');
    expect(body.message).toContain('Ticket not found: FOR-1.');
    expect(body.message).toContain('FORGE_API_URL ends in /api');
  });

  it('maps 429 to RATE_LIMITED with retry_after_ms from Retry-After', async () => {
    const call = await connect(token());
    fake.failNext({ status: 429, retryAfter: '7' });
    expect(errorBody(await call('list_tickets', {}))).toMatchObject({
      error_code: 'RATE_LIMITED',
      retryable: true,
      retry_after_ms: 7000,
    });
  });

  it('names the URL when Forge cannot be reached', async () => {
    const closed = await startFakeForge();
    const url = closed.url;
    await closed.close();
    const call = await connect({ ...token(), apiUrl: url });
    const body = errorBody(await call('list_tickets', {}));
    expect(body).toMatchObject({ error_code: 'UPSTREAM_UNAVAILABLE', retryable: true });
    expect(body.message).toContain(url);
  });

  it('gives up on a slow Forge after the request time limit', async () => {
    const call = await connect({ ...token(), timeoutMs: 100 });
    fake.setLatency(1_000);
    const body = errorBody(await call('get_ticket_context', getTicket));
    expect(body.error_code).toBe('UPSTREAM_UNAVAILABLE');
    expect(body.message).toContain('did not answer within 100 ms');
  });

  it('never puts a token into a result', async () => {
    writeLogin(storedLogin());
    const call = await connect();
    fake.failNext({ status: 400, body: { statusCode: 400, message: ['property x should not exist'] } });
    const texts = [
      resultText(await call('list_tickets', {})),
      resultText(await call('get_ticket_context', getTicket)),
      resultText(await call('get_ticket_context', { ticketId: 'NOPE-1' })),
    ].join('\n');
    expect(texts).not.toContain(fake.accessToken);
    expect(texts).not.toContain(fake.refreshToken);
  });
});
