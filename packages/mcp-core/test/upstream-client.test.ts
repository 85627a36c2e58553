import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { McpToolError } from '../src/index.js';
import { closedPort } from '../src/testing/index.js';
import {
  type CredentialSource,
  createUpstreamClient,
  DEFAULT_RETRY_POLICY,
  defaultStatusError,
  redactSecrets,
  retryDelay,
  type UpstreamFailure,
} from '../src/upstream/index.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A real HTTP server on 127.0.0.1 that records what it received. */
async function serve(handle: Handler) {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body });
      handle(request, response, body);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const json = (
  response: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(value));
};

async function failure(promise: Promise<unknown>): Promise<McpToolError> {
  try {
    await promise;
  } catch (error) {
    if (McpToolError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

const client = (baseUrl: string, extra: Partial<Parameters<typeof createUpstreamClient>[0]> = {}) =>
  createUpstreamClient({
    name: 'Example',
    baseUrl,
    urlSetting: 'EXAMPLE_API_URL',
    retry: { baseDelayMs: 1, maxDelayMs: 50 },
    ...extra,
  });

describe('the time limit covers the whole exchange', () => {
  it('gives up on a body that stalls after the headers, instead of waiting for the call budget', async () => {
    const { url } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"items": [');
      // ...and never another byte.
    });
    // Collect garbage while the body stalls: a time limit held only weakly (a signal from
    // AbortSignal.any) is lost then, and the read would wait for the whole call budget.
    const collector = setInterval(collectGarbage, 20);
    const error = await failure(client(url, { timeoutMs: 200 }).request('GET', '/slow')).finally(() =>
      clearInterval(collector),
    );
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.message).toBe(
      `Example at ${url} did not answer within 200 ms (GET /slow). Try again in a moment.`,
    );
    expect(error.details.timeout_ms).toBe(200);
  });

  it("reports the caller's cancellation as the caller's, not as a time-out", async () => {
    const { url } = await serve((_request, response) => {
      response.writeHead(200);
      response.write('{');
    });
    const controller = new AbortController();
    const reason = new Error('call cancelled');
    const pending = client(url).request('GET', '/x', { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);
  });
});

describe('bounded bodies', () => {
  it('refuses a 64 MB body sent without a length, reading no more than the limit', async () => {
    let written = 0;
    const { url } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      const pump = () => {
        while (written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!response.write(chunk)) {
            response.once('drain', pump);
            return;
          }
        }
        response.end();
      };
      response.on('close', () => response.removeAllListeners('drain'));
      pump();
    });
    const error = await failure(client(url).request('GET', '/huge'));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message).toContain('Example answered GET /huge with more than 8 MiB; not reading it.');
    expect(error.retryable).toBe(false);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('refuses a declared length over the limit before reading it', async () => {
    const { url } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2048) });
      response.end('x'.repeat(2048));
    });
    const error = await failure(client(url, { maxBodyBytes: 1024 }).request('GET', '/big'));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.details.max_bytes).toBe(1024);
  });

  it('parses JSON, and calls a success that is not JSON an upstream error', async () => {
    const { url } = await serve((request, response) => {
      if (request.url === '/ok') json(response, 200, { id: 7 });
      else {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<html>login page</html>');
      }
    });
    expect((await client(url).request<{ id: number }>('GET', '/ok')).data).toEqual({ id: 7 });
    const error = await failure(client(url).request('GET', '/html'));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toContain('not JSON');
  });
});

describe('file bodies', () => {
  it('sends bytes as they are, with their Content-Type and Content-Length', async () => {
    const received: Buffer[] = [];
    const server = createServer((request, response) => {
      request.on('data', (chunk: Buffer) => received.push(chunk));
      request.on('end', () =>
        json(response, 201, {
          type: request.headers['content-type'],
          length: request.headers['content-length'],
        }),
      );
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Bytes that are not valid UTF-8, so a text round trip would change them.
    const data = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe, 0x0a]);
    const answer = await client(url).request<{ type: string; length: string }>('POST', '/attachments', {
      bytes: { data, contentType: 'image/png' },
      query: { name: 'logo.png' },
    });
    expect(answer.data).toEqual({ type: 'image/png', length: '8' });
    expect([...Buffer.concat(received)]).toEqual([...data]);
  });
});

describe('redirects', () => {
  it('never follows a POST to another origin, and says so instead of reporting success', async () => {
    const elsewhere = await serve((_request, response) => json(response, 200, { ok: true }));
    const { url, seen } = await serve((_request, response) => {
      response.writeHead(302, { location: `${elsewhere.url}/comments` });
      response.end();
    });
    const error = await failure(client(url).request('POST', '/comments', { json: { content: 'hi' } }));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toContain(`Example redirected POST /comments to ${elsewhere.url}/comments`);
    expect(error.message).toContain('EXAMPLE_API_URL');
    expect(seen).toHaveLength(1);
    expect(elsewhere.seen).toHaveLength(0);
  });

  it('does not send a write on even within the same origin', async () => {
    const { url, seen } = await serve((request, response) => {
      if (request.url === '/moved') return json(response, 200, { ok: true });
      response.writeHead(307, { location: '/moved' });
      response.end();
    });
    const error = await failure(client(url).request('PATCH', '/thing', { json: { a: 1 } }));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(seen.map((request) => request.path)).toEqual(['/thing']);
  });

  it('follows a read within the origin, and refuses one that leaves it', async () => {
    const elsewhere = await serve((_request, response) => json(response, 200, { stolen: true }));
    const { url } = await serve((request, response) => {
      if (request.url === '/new') return json(response, 200, { here: true });
      response.writeHead(301, { location: request.url === '/old' ? '/new' : `${elsewhere.url}/x` });
      response.end();
    });
    expect((await client(url).request('GET', '/old')).data).toEqual({ here: true });
    const error = await failure(client(url).request('GET', '/away'));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toContain('not following it');
    expect(elsewhere.seen).toHaveLength(0);
  });

  it('refuses a target on another origin before sending anything', async () => {
    const { url, seen } = await serve((_request, response) => json(response, 200, {}));
    const error = await failure(client(url).request('GET', 'https://evil.example.com/999/x.json'));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.message).toContain('another host');
    expect(seen).toHaveLength(0);
  });
});

describe('quoted upstream text is redacted', () => {
  it('keeps an echoed bearer token, a JWT and a known secret out of a 422 message', async () => {
    const token = 'bc-access-4f9a1c2e7b';
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXZhbHVl';
    const { url } = await serve((request, response) =>
      json(response, 422, {
        error: `Invalid request with header ${request.headers.authorization}, session ${jwt}, secret hunter2-app-secret and raw ${token}`,
      }),
    );
    const source: CredentialSource<string> = {
      current: async () => token,
      renew: async () => token,
    };
    const upstream = createUpstreamClient<string>({
      name: 'Example',
      baseUrl: url,
      urlSetting: 'EXAMPLE_API_URL',
      auth: { source, headers: (credentials) => ({ authorization: `Bearer ${credentials}` }) },
      secrets: () => ['hunter2-app-secret'],
    });
    const error = await failure(upstream.request('POST', '/todos', { json: { content: 'x' } }));
    expect(error.code).toBe('INVALID_INPUT');
    const text = JSON.stringify(error.toJSON());
    expect(error.message).toContain(
      'Example said: "Invalid request with header Bearer [redacted], session [redacted]',
    );
    expect(text).not.toContain(token);
    expect(text).not.toContain(jwt);
    expect(text).not.toContain('hunter2-app-secret');
  });

  it('redacts token shapes and leaves ordinary text alone', () => {
    expect(redactSecrets('Authorization: Basic dXNlcjpwYXNz')).toBe('Authorization: Basic [redacted]');
    expect(redactSecrets('refresh_token=abc.def&x=1')).toBe('refresh_token=[redacted]&x=1');
    expect(redactSecrets(`key ${'a1'.repeat(20)} end`)).toBe('key [redacted] end');
    expect(redactSecrets(`digest ${'0f'.repeat(20)}`)).toBe('digest [redacted]');
    expect(redactSecrets('Title is too long (maximum is 256 characters)')).toBe(
      'Title is too long (maximum is 256 characters)',
    );
  });
});

describe('one retry policy', () => {
  it('does not retry a 502 on a POST, and maps it to UPSTREAM_UNAVAILABLE', async () => {
    const { url, seen } = await serve((_request, response) => json(response, 502, { error: 'bad gateway' }));
    const error = await failure(client(url).request('POST', '/settle', { json: {} }));
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.retryable).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it('retries a POST after a 5xx when it carries an idempotency key', async () => {
    let calls = 0;
    const { url, seen } = await serve((_request, response) =>
      ++calls === 1 ? json(response, 503, {}) : json(response, 201, { id: 1 }),
    );
    const answer = await client(url).request('POST', '/settle', { json: {}, idempotencyKey: 'k-1' });
    expect(answer.status).toBe(201);
    expect(seen.map((request) => request.headers['idempotency-key'])).toEqual(['k-1', 'k-1']);
  });

  it('retries a GET after 500/502/503/504 up to the limit, then fails', async () => {
    const { url, seen } = await serve((_request, response) => json(response, 500, {}));
    const upstream = client(url, { retry: { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 20 } });
    const error = await failure(upstream.request('GET', '/x'));
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.retryable).toBe(true);
    expect(seen).toHaveLength(4);
    expect(upstream.stats).toEqual({ requests: 4, rateLimited: 0, retries: 3 });
  });

  it('retries a 429 on any method, after Retry-After', async () => {
    let calls = 0;
    const { url, seen } = await serve((_request, response) =>
      ++calls === 1 ? json(response, 429, {}, { 'retry-after': '0' }) : json(response, 201, { id: 2 }),
    );
    const upstream = client(url);
    const answer = await upstream.request('POST', '/comments', { json: { content: 'x' } });
    expect(answer.data).toEqual({ id: 2 });
    expect(seen).toHaveLength(2);
    expect(upstream.stats.rateLimited).toBe(1);
  });

  it('answers RATE_LIMITED with retry_after_ms when Retry-After is beyond the cap', async () => {
    const { url, seen } = await serve((_request, response) =>
      json(response, 429, {}, { 'retry-after': '120' }),
    );
    const error = await failure(client(url).request('GET', '/x'));
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.details.retry_after_ms).toBe(120_000);
    expect(seen).toHaveLength(1);
  });

  it('retries a lost connection only for idempotent requests', async () => {
    const port = await closedPort();
    const upstream = client(`http://127.0.0.1:${port}`);
    const read = await failure(upstream.request('GET', '/x'));
    expect(read.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(read.message).toBe(
      `Example is not reachable at http://127.0.0.1:${port} (ECONNREFUSED). Check your connection, or EXAMPLE_API_URL.`,
    );
    expect(upstream.stats.retries).toBe(DEFAULT_RETRY_POLICY.maxRetries);
    const before = upstream.stats.retries;
    await failure(upstream.request('POST', '/x', { json: {} }));
    expect(upstream.stats.retries).toBe(before);
  });

  it('keeps every wait, jitter included, under the cap', () => {
    const policy = { maxRetries: 5, baseDelayMs: 500, maxDelayMs: 2_000 };
    for (const random of [() => 0, () => 0.5, () => 0.999999]) {
      for (let attempt = 0; attempt < 8; attempt++) {
        const backoff = retryDelay(attempt, undefined, policy, { random }) ?? Number.NaN;
        expect(backoff).toBeLessThanOrEqual(2_000);
        expect(backoff).toBeGreaterThanOrEqual(Math.min(500 * 2 ** attempt, 2_000) / 2);
      }
      // A Retry-After just under the cap plus its jitter still stays under it.
      expect(retryDelay(0, 1_990, policy, { random })).toBeLessThanOrEqual(2_000);
      expect(retryDelay(0, 1_000, policy, { random })).toBeGreaterThanOrEqual(1_000);
    }
    expect(retryDelay(0, 2_001, policy, { strict: true })).toBeUndefined();
    expect(retryDelay(0, 2_001, policy, { random: () => 1 })).toBeLessThanOrEqual(500);
  });
});

describe('credentials', () => {
  it('renews once on a 401 and retries with the new credentials; a second 401 is TOKEN_EXPIRED', async () => {
    let valid = 'fresh-token-2';
    const { url, seen } = await serve((request, response) =>
      request.headers.authorization === `Bearer ${valid}`
        ? json(response, 200, { ok: 1 })
        : json(response, 401, {}),
    );
    const renewed: string[] = [];
    const source: CredentialSource<string> = {
      current: async () => 'old-token-1',
      renew: async (rejected) => {
        renewed.push(rejected);
        return 'fresh-token-2';
      },
      refused: () => defaultStatusError(failureOf(401)),
    };
    const upstream = createUpstreamClient<string>({
      name: 'Example',
      baseUrl: url,
      urlSetting: 'EXAMPLE_API_URL',
      auth: { source, headers: (token) => ({ authorization: `Bearer ${token}` }) },
    });
    const answer = await upstream.request('GET', '/me');
    expect(answer.credentials).toBe('fresh-token-2');
    expect(renewed).toEqual(['old-token-1']);
    expect(seen.map((request) => request.headers.authorization)).toEqual([
      'Bearer old-token-1',
      'Bearer fresh-token-2',
    ]);
    valid = 'nobody';
    const error = await failure(upstream.request('GET', '/me'));
    expect(error.code).toBe('TOKEN_EXPIRED');
    expect(renewed).toEqual(['old-token-1', 'old-token-1']);
  });
});

function failureOf(status: number, overrides: Partial<UpstreamFailure> = {}): UpstreamFailure {
  return {
    service: 'Example',
    method: 'GET',
    path: '/x',
    status,
    headers: new Headers(),
    body: undefined,
    message: undefined,
    notFound: undefined,
    retryAfterMs: undefined,
    redact: (text) => text,
    ...overrides,
  };
}

describe('the default status map', () => {
  it.each([
    [400, 'INVALID_INPUT', false],
    [422, 'INVALID_INPUT', false],
    [401, 'TOKEN_EXPIRED', false],
    [403, 'PERMISSION_DENIED', false],
    [404, 'NOT_FOUND', false],
    [409, 'CONFLICT', false],
    [429, 'RATE_LIMITED', true],
    [500, 'UPSTREAM_ERROR', true],
    [501, 'UPSTREAM_ERROR', true],
    [502, 'UPSTREAM_UNAVAILABLE', true],
    [503, 'UPSTREAM_UNAVAILABLE', true],
    [504, 'UPSTREAM_UNAVAILABLE', true],
    [418, 'UPSTREAM_ERROR', false],
  ])('maps %i to %s (retryable %s)', (status, code, retryable) => {
    const error = defaultStatusError(failureOf(status));
    expect(error.code).toBe(code);
    expect(error.retryable).toBe(retryable);
  });

  it("uses the caller's 404 hint and carries retry_after_ms", () => {
    expect(
      defaultStatusError(failureOf(404, { notFound: 'Note n9 not found. Use list_notes.' })).message,
    ).toBe('Note n9 not found. Use list_notes.');
    expect(defaultStatusError(failureOf(429, { retryAfterMs: 7_000 })).details.retry_after_ms).toBe(7_000);
  });

  it('lets a provider override single statuses', async () => {
    const { url } = await serve((_request, response) => json(response, 507, { error: 'plan limit' }));
    const upstream = client(url, {
      statusError: (failure) =>
        failure.status === 507 ? new McpToolError('LIMIT_EXCEEDED', `plan: ${failure.message}`) : undefined,
    });
    const error = await failure(upstream.request('POST', '/projects', { json: {} }));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.message).toBe('plan: plan limit');
  });
});
