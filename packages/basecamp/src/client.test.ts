import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpToolError } from '@x/mcp-core';
import type { CredentialSource } from '@x/mcp-core/upstream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BasecampCredentials } from './auth/credentials.js';
import { type StoredLogin, writeLogin } from './auth/token-file.js';
import { SlidingWindowLimiter } from './client/limiter.js';
import { BasecampClient } from './runtime.js';
import type { BasecampSettings } from './settings.js';
import { type FakeBasecamp, IDS, INACTIVE_ACCOUNT_ID, startFakeBasecamp } from './testing/index.js';
import { VERSION } from './version.js';

let fake: FakeBasecamp;
beforeAll(async () => {
  fake = await startFakeBasecamp();
});
afterAll(() => fake.close());
afterEach(() => fake.resetLog());

const fast = { retryBaseMs: 5, rateLimitRequests: 10_000 } satisfies BasecampSettings;

function envClient(settings: BasecampSettings = {}) {
  return new BasecampClient({
    apiUrl: fake.url,
    accessToken: fake.accessToken,
    accountId: fake.accountId,
    ...fast,
    ...settings,
  });
}

async function failure(promise: Promise<unknown>): Promise<McpToolError> {
  try {
    await promise;
  } catch (error) {
    if (McpToolError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

const todosPath = `/todolists/${IDS.launchList}/todos.json`;

describe('requests', () => {
  it('sends the bearer token, a User-Agent with name, version and contact, and JSON', async () => {
    const client = envClient({ contact: 'ops@example.com' });
    await client.get('/projects.json');
    const [request] = fake.requests;
    expect(request?.path).toBe(`/${fake.accountId}/projects.json`);
    expect(request?.headers.authorization).toBe(`Bearer ${fake.accessToken}`);
    expect(request?.headers['user-agent']).toBe(`@x/mcp-basecamp/${VERSION} (ops@example.com)`);
    expect(request?.headers.accept).toBe('application/json');
  });

  it('sends writes as application/json; charset=utf-8', async () => {
    const client = envClient();
    await client.request('POST', `/recordings/${IDS.richMessage}/comments.json`, {
      body: { content: '<div>hi</div>' },
    });
    expect(fake.requests[0]?.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(fake.requests[0]?.body).toEqual({ content: '<div>hi</div>' });
  });
});

describe('pagination by Link header', () => {
  it('follows the geared pages (15, 30, 50) for a window and reports X-Total-Count', async () => {
    const client = envClient();
    const page = await client.list<{ content: string }>(todosPath, { page: 1, limit: 60 });
    expect(page.items).toHaveLength(60);
    expect(page.items[0]?.content).toBe('Checklist item 1');
    expect(page.items[59]?.content).toBe('Checklist item 60');
    expect(page).toMatchObject({ has_more: true, next_page: 2, total: 120 });
    // 15 + 30 + 50 items: three upstream pages, each URL taken from the previous Link header.
    expect(fake.requests.map((request) => request.query.page ?? '1')).toEqual(['1', '2', '3']);
  });

  it('serves the last window with has_more false and next_page null', async () => {
    const client = envClient();
    const page = await client.list<{ content: string }>(todosPath, { page: 2, limit: 100 });
    expect(page.items.map((item) => item.content)).toEqual(
      Array.from({ length: 20 }, (_, index) => `Checklist item ${101 + index}`),
    );
    expect(page).toMatchObject({ has_more: false, next_page: null, total: 120 });
  });

  it('stops at the first page when it covers the window', async () => {
    const client = envClient();
    const page = await client.list(todosPath, { page: 1, limit: 10 });
    expect(page.items).toHaveLength(10);
    expect(fake.requests).toHaveLength(1);
  });

  it('refuses a window deeper than one call may walk, instead of answering an empty page', async () => {
    const error = await failure(envClient().list(todosPath, { page: 3, limit: 50 }, 2));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(fake.requests).toHaveLength(2);
  });

  it('refuses a Link that points at another host', async () => {
    const client = envClient();
    fake.fail({
      path: `/${fake.accountId}${todosPath}`,
      status: 200,
      headers: { link: '<https://evil.example.com/999999999/todolists/1/todos.json?page=2>; rel="next"' },
      body: JSON.stringify(Array.from({ length: 15 }, (_, index) => ({ id: index }))),
    });
    const error = await failure(client.list(todosPath, { page: 1, limit: 20 }));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toContain('another host');
  });
});

describe('ETag cache', () => {
  it('revalidates with If-None-Match and serves a 304 from the cache', async () => {
    const client = envClient();
    const first = await client.get<{ id: number }>(`/todos/${IDS.assignedTodo}.json`);
    const second = await client.get<{ id: number }>(`/todos/${IDS.assignedTodo}.json`);
    expect(second.data).toEqual(first.data);
    expect(second.cached).toBe(true);
    expect(fake.requests[1]?.headers['if-none-match']).toMatch(/^W\/"[0-9a-f]{40}"$/);
    expect(fake.requests.map((request) => request.status)).toEqual([200, 304]);
    expect(client.stats).toMatchObject({ requests: 2, notModified: 1 });
  });

  it("never revalidates one person's cached page for another", async () => {
    let token = fake.issueTokens().accessToken;
    const client = new BasecampClient({
      apiUrl: fake.url,
      credentials: {
        current: async () => ({ accessToken: token, accountId: fake.accountId }),
        renew: async () => {
          throw new Error('not expected');
        },
      },
      ...fast,
    });
    await client.get(`/todos/${IDS.assignedTodo}.json`);
    await client.get(`/todos/${IDS.assignedTodo}.json`);
    token = fake.issueTokens().accessToken;
    await client.get(`/todos/${IDS.assignedTodo}.json`);
    expect(fake.requests.map((request) => request.headers['if-none-match'] !== undefined)).toEqual([
      false,
      true,
      false,
    ]);
  });

  it('gets a fresh 200 after the resource changed', async () => {
    const client = envClient();
    await client.get(`/recordings/${IDS.assignedTodo}/comments.json`);
    await client.request('POST', `/recordings/${IDS.assignedTodo}/comments.json`, {
      body: { content: 'more' },
    });
    const after = await client.get<unknown[]>(`/recordings/${IDS.assignedTodo}/comments.json`);
    expect(after.cached).toBe(false);
    expect(after.data).toHaveLength(2);
  });

  it('keeps pagination headers of a cached page', async () => {
    const client = envClient();
    await client.list(todosPath, { page: 1, limit: 20 });
    const again = await client.list(todosPath, { page: 1, limit: 20 });
    expect(again).toMatchObject({ has_more: true, total: 120 });
    expect(fake.requests.filter((request) => request.status === 304)).toHaveLength(2);
  });
});

describe('status mapping', () => {
  const path = `/todos/${IDS.assignedTodo}.json`;
  const full = () => `/${fake.accountId}${path}`;

  it.each([
    [403, 'PERMISSION_DENIED', false],
    [422, 'INVALID_INPUT', false],
    [400, 'INVALID_INPUT', false],
    [507, 'LIMIT_EXCEEDED', false],
  ])('maps %i to %s', async (status, code, retryable) => {
    fake.fail({ path: full(), status, body: JSON.stringify({ error: 'Title is too long' }) });
    const error = await failure(envClient().get(path));
    expect(error.code).toBe(code);
    expect(error.retryable).toBe(retryable);
    if (status === 422) expect(error.message).toContain('Basecamp said: "Title is too long"');
  });

  it("maps a 404 to NOT_FOUND with the caller's hint", async () => {
    const error = await failure(
      envClient().get('/todos/1.json', { notFound: 'To-do 1 was not found. Use list_todos.' }),
    );
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toBe('To-do 1 was not found. Use list_todos.');
  });

  it('mentions the Reason header of an inactive account', async () => {
    const client = new BasecampClient({
      apiUrl: fake.url,
      accessToken: fake.accessToken,
      accountId: INACTIVE_ACCOUNT_ID,
      ...fast,
    });
    const error = await failure(client.get('/projects.json'));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain('Reason: Account Inactive');
    expect(error.details.reason).toBe('Account Inactive');
  });

  it('retries a GET after 500, 502, 503 and 504, then succeeds', async () => {
    for (const status of [500, 502, 503]) fake.fail({ path: full(), status });
    const client = envClient();
    const response = await client.get<{ id: number }>(path);
    expect(response.data.id).toBe(IDS.assignedTodo);
    expect(client.stats.retries).toBe(3);
    fake.fail({ path: full(), status: 504 });
    await client.get(path);
  });

  it('gives up after the retries: a 503 is UPSTREAM_UNAVAILABLE, a 500 UPSTREAM_ERROR, both retryable', async () => {
    fake.fail({ path: full(), status: 503, times: 4 });
    const unavailable = await failure(envClient().get(path));
    expect(unavailable.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(unavailable.retryable).toBe(true);
    expect(fake.requests).toHaveLength(4);
    fake.resetLog();
    fake.fail({ path: full(), status: 500, times: 4 });
    const failed = await failure(envClient().get(path));
    expect(failed).toMatchObject({ code: 'UPSTREAM_ERROR', retryable: true });
    expect(fake.requests).toHaveLength(4);
  });

  it('answers a redirected write with UPSTREAM_ERROR and sends nothing to the new host', async () => {
    const elsewhere = await startFakeBasecamp();
    try {
      const comments = `/recordings/${IDS.richMessage}/comments.json`;
      fake.fail({
        method: 'POST',
        path: `/${fake.accountId}${comments}`,
        status: 302,
        headers: { location: `${elsewhere.url}/${fake.accountId}${comments}` },
      });
      const error = await failure(envClient().request('POST', comments, { body: { content: 'hi' } }));
      expect(error.code).toBe('UPSTREAM_ERROR');
      expect(error.message).toContain('Basecamp redirected POST');
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('refuses an answer larger than 8 MiB with LIMIT_EXCEEDED', async () => {
    fake.fail({ path: full(), status: 200, body: JSON.stringify({ content: 'x'.repeat(9 * 1024 * 1024) }) });
    const error = await failure(envClient().get(path));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message).toContain('more than 8 MiB');
  });

  it('keeps a token the upstream echoes out of the quoted error', async () => {
    fake.fail({
      path: full(),
      status: 422,
      body: JSON.stringify({
        error: `Invalid request from Bearer ${fake.accessToken} (token ${fake.accessToken})`,
      }),
    });
    const error = await failure(envClient().get(path));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('Basecamp said: "Invalid request from Bearer [redacted]');
    expect(JSON.stringify(error.toJSON())).not.toContain(fake.accessToken);
  });

  it('never retries a POST after a 5xx', async () => {
    fake.fail({
      method: 'POST',
      path: `/${fake.accountId}/recordings/${IDS.richMessage}/comments.json`,
      status: 500,
    });
    const error = await failure(
      envClient().request('POST', `/recordings/${IDS.richMessage}/comments.json`, { body: { content: 'x' } }),
    );
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(fake.requests).toHaveLength(1);
  });

  it('honours Retry-After on a 429 and succeeds', async () => {
    fake.fail({ path: full(), status: 429, headers: { 'retry-after': '1' } });
    const client = envClient();
    const started = Date.now();
    await client.get(path);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(client.stats).toMatchObject({ rateLimited: 1, retries: 1 });
  });

  it('fails with RATE_LIMITED and retry_after_ms when Retry-After exceeds the cap', async () => {
    fake.fail({ path: full(), status: 429, headers: { 'retry-after': '120' } });
    const error = await failure(envClient({ maxRetryWaitMs: 5_000 }).get(path));
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.retryable).toBe(true);
    expect(error.details.retry_after_ms).toBe(120_000);
    expect(fake.requests).toHaveLength(1);
  });

  it('maps a refused connection to UPSTREAM_UNAVAILABLE', async () => {
    const closed = await startFakeBasecamp();
    await closed.close();
    const error = await failure(
      new BasecampClient({ apiUrl: closed.url, accessToken: 't', accountId: '1', ...fast }).get(
        '/projects.json',
      ),
    );
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('maps a timeout to UPSTREAM_UNAVAILABLE', async () => {
    const slowFetch: typeof fetch = (_input, init) =>
      new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    const error = await failure(envClient({ fetch: slowFetch, timeoutMs: 50 }).get(path));
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.message).toContain('did not answer within 50 ms');
  });

  it('says which variable is missing when only the token is set', async () => {
    const error = await failure(
      new BasecampClient({ apiUrl: fake.url, accessToken: 'x', env: {} }).get('/projects.json'),
    );
    expect(error.code).toBe('TOOL_NOT_ENABLED');
    expect(error.message).toContain('BASECAMP_ACCOUNT_ID');
  });
});

describe('a credential source given in settings', () => {
  it('is used for every request, and no login file or variable is read', async () => {
    const renewed: string[] = [];
    const credentials: CredentialSource<BasecampCredentials> = {
      current: async () => ({ accessToken: 'bc-access-stale', accountId: fake.accountId }),
      renew: async (rejected) => {
        renewed.push(rejected.accessToken);
        return { accessToken: fake.issueTokens().accessToken, accountId: fake.accountId };
      },
    };
    const damaged = join(mkdtempSync(join(tmpdir(), 'basecamp-custom-')), 'token.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(damaged, '{ reading this would fail');
    const client = new BasecampClient({
      apiUrl: fake.url,
      credentials,
      tokenFile: damaged,
      env: { BASECAMP_ACCESS_TOKEN: 'from-env', BASECAMP_ACCOUNT_ID: '1' },
      ...fast,
    });
    await client.get('/projects.json');
    expect(renewed).toEqual(['bc-access-stale']);
    expect(fake.requests.map((request) => request.headers.authorization)).toEqual([
      'Bearer bc-access-stale',
      expect.stringMatching(/^Bearer bc-access-/),
    ]);
    expect(fake.requests.every((request) => request.path.startsWith(`/${fake.accountId}/`))).toBe(true);
  });
});

describe('client-side rate limit', () => {
  it('queues a burst so a server enforcing 10 requests per second never answers 429', async () => {
    const strict = await startFakeBasecamp({ rateLimit: { requests: 10, windowMs: 1_000 } });
    try {
      const client = new BasecampClient({
        apiUrl: strict.url,
        accessToken: strict.accessToken,
        accountId: strict.accountId,
        rateLimitRequests: 10,
        rateLimitWindowMs: 1_000,
      });
      const started = Date.now();
      const results = await Promise.all(
        Array.from({ length: 35 }, () => client.get(`/todos/${IDS.assignedTodo}.json`)),
      );
      expect(results).toHaveLength(35);
      expect(strict.rateLimited).toBe(0);
      expect(client.stats.rateLimited).toBe(0);
      // 35 requests at 10 per second need at least three full windows.
      expect(Date.now() - started).toBeGreaterThanOrEqual(3_000 - 50);
    } finally {
      await strict.close();
    }
  });

  it('lets at most N requests through per window, dated by their answers, in order', async () => {
    let now = 0;
    const limiter = new SlidingWindowLimiter(2, 1_000, () => now);
    const order: number[] = [];
    const releases: (() => void)[] = [];
    const all = [0, 1, 2, 3].map((index) =>
      limiter.acquire().then((release) => {
        order.push(index);
        releases.push(release);
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([0, 1]);
    expect(limiter.queued).toBe(2);
    // Answers arrive at t=500: the window of those two ends at t=1500, not t=1000.
    now = 500;
    releases[0]?.();
    releases[1]?.();
    now = 1_000;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual([0, 1]);
    now = 1_500;
    await Promise.all(all);
    expect(order).toEqual([0, 1, 2, 3]);
  });

  it('drops a queued request whose caller gave up', async () => {
    const limiter = new SlidingWindowLimiter(1, 60_000);
    (await limiter.acquire())();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    expect(limiter.queued).toBe(0);
  });
});

describe('tokens from the login file', () => {
  let home: string;
  let tokenFile: string;

  function fileClient(settings: BasecampSettings = {}) {
    return new BasecampClient({
      apiUrl: fake.url,
      launchpadUrl: fake.launchpadUrl,
      tokenFile,
      env: {},
      ...fast,
      ...settings,
    });
  }

  async function saveLogin(overrides: Partial<StoredLogin> = {}) {
    const tokens = fake.issueTokens();
    await writeLogin(tokenFile, {
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken,
      expiresAt: new Date(Date.now() + 14 * 86_400_000).toISOString(),
      accountId: fake.accountId,
      clientId: fake.client.id,
      clientSecret: fake.client.secret,
      ...overrides,
    });
    return tokens;
  }

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'basecamp-client-'));
  });

  it('refreshes once on a 401 for many concurrent calls, and saves the new token atomically with mode 0600', async () => {
    tokenFile = join(home, 'a', 'token.json');
    const saved = await saveLogin();
    const client = fileClient();
    await client.get('/projects.json');
    fake.expireAccessTokens();
    fake.resetLog();
    const results = await Promise.all(Array.from({ length: 5 }, () => client.get('/projects.json')));
    expect(results).toHaveLength(5);
    expect(fake.refreshes).toEqual({ succeeded: 1, failed: 0 });
    const onDisk = JSON.parse(readFileSync(tokenFile, 'utf8')) as StoredLogin;
    expect(onDisk.accessToken).not.toBe(saved.accessToken);
    expect(onDisk.accessToken).toBe(fake.accessToken);
    expect(onDisk.refreshToken).toBe(saved.refreshToken);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const refresh = fake.requests.find((request) => request.path === '/authorization/token');
    expect(refresh?.body).toEqual({
      grant_type: 'refresh_token',
      refresh_token: saved.refreshToken,
      client_id: fake.client.id,
      client_secret: fake.client.secret,
    });
  });

  it('refreshes ahead of expiry, before Basecamp would refuse the token', async () => {
    tokenFile = join(home, 'b', 'token.json');
    await saveLogin({ expiresAt: new Date(Date.now() + 60_000).toISOString() });
    const client = fileClient();
    await client.get('/projects.json');
    expect(fake.refreshes.succeeded).toBe(1);
    expect(fake.requests.filter((request) => request.status === 401)).toHaveLength(0);
    const onDisk = JSON.parse(readFileSync(tokenFile, 'utf8')) as StoredLogin;
    expect(Date.parse(onDisk.expiresAt ?? '')).toBeGreaterThan(Date.now() + 13 * 86_400_000);
  });

  it('drops a refresh token Launchpad calls invalid_grant at once and never sends it again', async () => {
    tokenFile = join(home, 'c', 'token.json');
    await saveLogin();
    const client = fileClient();
    fake.expireAccessTokens();
    fake.revokeRefreshTokens();
    const first = await failure(client.get('/projects.json'));
    expect(first.code).toBe('TOKEN_EXPIRED');
    expect(first.message).toContain('basecamp-mcp login');
    const onDisk = JSON.parse(readFileSync(tokenFile, 'utf8')) as StoredLogin;
    expect(onDisk.refreshToken).toBeUndefined();
    expect(onDisk.accessToken).toBeDefined();
    const second = await failure(client.get('/projects.json'));
    expect(second.code).toBe('TOKEN_EXPIRED');
    // One refused refresh in all: the second call did not try again.
    expect(fake.refreshes).toEqual({ succeeded: 0, failed: 1 });
  });

  it('picks up a token another process saved instead of refreshing', async () => {
    tokenFile = join(home, 'd', 'token.json');
    await saveLogin();
    const client = fileClient();
    await client.get('/projects.json');
    fake.expireAccessTokens();
    await saveLogin();
    fake.resetLog();
    await client.get('/projects.json');
    expect(fake.refreshes.succeeded).toBe(0);
  });

  it('answers TOKEN_EXPIRED for a rejected BASECAMP_ACCESS_TOKEN without trying to refresh', async () => {
    const client = envClient({ accessToken: 'bc-access-unknown' });
    const error = await failure(client.get('/projects.json'));
    expect(error.code).toBe('TOKEN_EXPIRED');
    expect(error.message).toContain('BASECAMP_ACCESS_TOKEN');
    expect(fake.requests.filter((request) => request.path === '/authorization/token')).toHaveLength(0);
  });

  it('asks for a login when there is no login file', async () => {
    tokenFile = join(home, 'none', 'token.json');
    const error = await failure(fileClient().get('/projects.json'));
    expect(error.code).toBe('TOOL_NOT_ENABLED');
    expect(error.message).toContain('Run `basecamp-mcp login`');
  });

  it('asks for a new login when the file is damaged', async () => {
    tokenFile = join(home, 'e', 'token.json');
    await saveLogin();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(tokenFile, '{ not json');
    const error = await failure(fileClient().get('/projects.json'));
    expect(error.code).toBe('TOOL_NOT_ENABLED');
    expect(error.message).toContain('damaged');
  });
});

describe('the fake Basecamp', () => {
  // Earlier tests expire every token they saw; these use their own.
  let token: string;
  beforeAll(() => {
    token = fake.issueTokens().accessToken;
  });

  it('answers 400 without a User-Agent, like Basecamp', async () => {
    const response = await fetch(`${fake.url}/${fake.accountId}/projects.json`, {
      headers: { authorization: `Bearer ${token}`, 'user-agent': '' },
    });
    expect(response.status).toBe(400);
  });

  it('answers 415 for a write without a JSON content type', async () => {
    const response = await fetch(
      `${fake.url}/${fake.accountId}/recordings/${IDS.richMessage}/comments.json`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'user-agent': 'Test (test@example.com)' },
        body: 'content=hi',
      },
    );
    expect(response.status).toBe(415);
  });

  it('serves the legacy /buckets/{project}/ routes like the flat ones, only for that project', async () => {
    const client = envClient({ accessToken: token });
    const flat = await client.get(`/todos/${IDS.assignedTodo}.json`);
    const bucket = await client.get(`/buckets/2085958504/todos/${IDS.assignedTodo}.json`);
    expect(bucket.data).toEqual(flat.data);
    const error = await failure(client.get(`/buckets/2085958505/todos/${IDS.assignedTodo}.json`));
    expect(error.code).toBe('NOT_FOUND');
  });
});
