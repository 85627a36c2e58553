import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, createLogger, ToolRegistry } from '../src/index.js';
import { type HttpHandle, serveHttp } from '../src/node/index.js';
import { closedPort, connectHttp, errorBody, resultData } from '../src/testing/index.js';
import { checkReachable } from '../src/upstream/index.js';
import { createFixtureProvider } from './fixtures/tools.js';

const TOKEN = 'test-token-0123456789';
const quiet = createLogger('http-test', { level: 'silent' });
const openLines: string[] = [];
const registry = new ToolRegistry({ logger: quiet }).use(createFixtureProvider());
let open: HttpHandle;
let secured: HttpHandle;

beforeAll(async () => {
  open = await serveHttp({
    name: 'open',
    version: '1.0.0',
    registry,
    port: 0,
    maxBodyBytes: 4096,
    logger: createLogger('http-test', { level: 'warn', write: (line) => openLines.push(line) }),
  });
  secured = await serveHttp({
    name: 'secured',
    version: '1.0.0',
    registry,
    port: 0,
    token: TOKEN,
    logger: quiet,
  });
});
afterAll(async () => {
  await open.close();
  await secured.close();
});

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('serveHttp', () => {
  it('answers /healthz with 200', async () => {
    const response = await fetch(new URL('/healthz', open.url));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', name: 'open', version: '1.0.0', tools: 9 });
  });

  it('answers /readyz from every provider check, without a token, cached for a few seconds', async () => {
    let upstreamUp = true;
    let checks = 0;
    const provider = {
      ...createFixtureProvider(),
      checkReadiness: async () => {
        checks++;
        return {
          ready: upstreamUp,
          checks: [{ name: 'upstream', ok: upstreamUp, detail: upstreamUp ? 'reachable' : 'no answer' }],
        };
      },
    };
    const withCheck = new ToolRegistry({ logger: quiet })
      .use(provider, { prefix: 'a_' })
      .use({ ...createFixtureProvider(), id: 'plain' }, { prefix: 'b_' });
    const handle = await serveHttp({
      name: 'r',
      version: '1',
      registry: withCheck,
      port: 0,
      token: TOKEN,
      logger: quiet,
    });
    try {
      const ready = await fetch(`http://127.0.0.1:${handle.port}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({
        status: 'ready',
        ready: true,
        unavailable: [],
        providers: [
          {
            id: 'fixture',
            readiness: 'required',
            ready: true,
            checks: [{ name: 'upstream', ok: true, detail: 'reachable' }],
          },
          { id: 'plain', readiness: 'required', ready: true, checks: [] },
        ],
      });
      upstreamUp = false;
      expect((await fetch(`http://127.0.0.1:${handle.port}/readyz`)).status).toBe(200);
      expect(checks).toBe(1);
    } finally {
      await handle.close();
    }
    const report = await withCheck.readiness();
    expect(report.ready).toBe(false);
    expect(report.providers[0]?.checks).toEqual([{ name: 'upstream', ok: false, detail: 'no answer' }]);
  });

  it('reports a readiness check that throws or hangs as not ready, without its message', async () => {
    const failing = (id: string, check: () => Promise<never>) => ({
      ...createFixtureProvider(),
      id,
      checkReadiness: check,
    });
    const registry = new ToolRegistry({ logger: quiet })
      .use(
        failing('throws', () => Promise.reject(new Error('token=abc123 leaked'))),
        { prefix: 'a_' },
      )
      .use(
        failing('hangs', () => new Promise<never>(() => {})),
        { prefix: 'b_' },
      );
    const report = await registry.readiness({ timeoutMs: 50 });
    expect(report).toEqual({
      ready: false,
      unavailable: ['throws', 'hangs'],
      providers: [
        {
          id: 'throws',
          readiness: 'required',
          ready: false,
          checks: [{ name: 'readiness', ok: false, detail: 'the readiness check failed' }],
        },
        {
          id: 'hangs',
          readiness: 'required',
          ready: false,
          checks: [{ name: 'readiness', ok: false, detail: 'no answer within 50 ms' }],
        },
      ],
    });
  });

  it("stays ready while a provider used with readiness: 'reported' is not, names it, logs each change once", async () => {
    let upstreamUp = false;
    const lines: string[] = [];
    const logger = createLogger('readiness-test', { level: 'info', write: (line) => lines.push(line) });
    const shared = {
      ...createFixtureProvider(),
      id: 'shared',
      checkReadiness: async () => ({
        ready: upstreamUp,
        checks: [
          { name: 'service', ok: upstreamUp, detail: upstreamUp ? 'healthy' : 'no answer from the service' },
        ],
      }),
    };
    const own = {
      ...createFixtureProvider(),
      id: 'own',
      checkReadiness: async () => ({ ready: true, checks: [] }),
    };
    const mixed = new ToolRegistry({ logger })
      .use(shared, { prefix: 'a_', readiness: 'reported' })
      .use(own, { prefix: 'b_' });
    const handle = await serveHttp({
      name: 'r',
      version: '1',
      registry: mixed,
      port: 0,
      token: TOKEN,
      logger: quiet,
    });
    try {
      const response = await fetch(`http://127.0.0.1:${handle.port}/readyz`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        status: 'degraded',
        ready: true,
        unavailable: ['shared'],
        providers: [
          {
            id: 'shared',
            readiness: 'reported',
            ready: false,
            checks: [{ name: 'service', ok: false, detail: 'no answer from the service' }],
          },
          { id: 'own', readiness: 'required', ready: true, checks: [] },
        ],
      });
    } finally {
      await handle.close();
    }
    // A second check finds the same: nothing more is logged. Then it recovers, once.
    await mixed.readiness();
    upstreamUp = true;
    expect((await mixed.readiness()).unavailable).toEqual([]);
    await mixed.readiness();
    expect(lines.map((line) => line.replace(/^.*?readiness-test\S*\s*/, ''))).toEqual([
      expect.stringContaining(
        'shared is not available (service: no answer from the service): its tools fail until it is; the server stays ready without it',
      ),
      expect.stringContaining('shared is ready again'),
    ]);
    // A required provider that is not ready still makes the server unready.
    const required = new ToolRegistry({ logger: quiet }).use({
      ...shared,
      checkReadiness: async () => ({ ready: false, checks: [] }),
    });
    expect((await required.readiness()).ready).toBe(false);
    // Every provider 'reported' and none ready: nothing can be served, so not ready either.
    upstreamUp = false;
    const allDown = new ToolRegistry({ logger: quiet })
      .use(shared, { prefix: 'a_', readiness: 'reported' })
      .use({ ...shared, id: 'other' }, { prefix: 'c_', readiness: 'reported' });
    expect(await allDown.readiness()).toMatchObject({ ready: false, unavailable: ['shared', 'other'] });
    upstreamUp = true;
    expect(await allDown.readiness()).toMatchObject({ ready: true, unavailable: [] });
  });

  it('serves a real client: list and call', async () => {
    const connection = await connectHttp(open.url);
    try {
      const { tools } = await connection.client.listTools();
      expect(tools).toEqual(registry.toMcpTools());
      expect(
        resultData(await connection.client.callTool({ name: 'add', arguments: { a: 20, b: 22 } })),
      ).toEqual({ sum: 42 });
      expect(
        errorBody(await connection.client.callTool({ name: 'add', arguments: { a: 'x', b: 1 } })).error_code,
      ).toBe('INVALID_INPUT');
    } finally {
      await connection.close();
    }
  });

  it('answers a body parsed here and one left to the SDK alike', async () => {
    const call = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'add', arguments: { a: 1, b: 2 } },
    };
    const answer = async (response: Response) => {
      const text = await response.text();
      // The legacy exchange answers as one SSE event (or JSON).
      const data = text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)?.[1];
      return { status: response.status, message: JSON.parse(data ?? 'null') };
    };
    const headers = { 'mcp-protocol-version': '2025-11-25' };
    const parsed = await answer(await post(open.url, call, headers));
    expect(parsed.status).toBe(200);
    expect(parsed.message).toMatchObject({ id: 7, result: { structuredContent: { sum: 3 } } });
    // A byte-order mark: not JSON to JSON.parse, so the SDK reads the body itself (and skips it).
    const withBom = await answer(await post(open.url, `\uFEFF${JSON.stringify(call)}`, headers));
    expect(withBom).toEqual(parsed);
    // Not JSON at all, and an empty body: the SDK's own answers.
    const broken = await answer(await post(open.url, '{"jsonrpc": "2.0", "id": 1,', headers));
    expect(broken.status).toBe(400);
    expect(broken.message).toMatchObject({ error: { code: -32700 } });
    const empty = await post(open.url, '', headers);
    expect(empty.status).toBe(400);
  });

  it('rejects a foreign Origin with 403', async () => {
    const response = await post(open.url, initialize, { origin: 'https://evil.example' });
    expect(response.status).toBe(403);
  });

  it('rejects a foreign Host with 403 (DNS rebinding)', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        open.url,
        { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(initialize));
    });
    expect(status).toBe(403);
  });

  it('answers an oversized body with 413', async () => {
    const big = JSON.stringify({
      ...initialize,
      params: { ...initialize.params, padding: 'x'.repeat(10_000) },
    });
    const response = await post(open.url, big);
    expect(response.status).toBe(413);
  });

  it('answers an oversized chunked body (no Content-Length) with 413', async () => {
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let index = 0; index < 10; index++)
          controller.enqueue(new TextEncoder().encode('x'.repeat(1000)));
        controller.close();
      },
    });
    const response = await fetch(open.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: chunks,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
  });

  it('answers other paths with 404', async () => {
    expect((await fetch(new URL('/other', open.url))).status).toBe(404);
  });

  it('answers odd request targets with 404 and logs nothing', async () => {
    openLines.length = 0;
    for (const target of [
      '//',
      '//x',
      '/%',
      '/%zz',
      'http://h/mcp',
      `http://127.0.0.1:${open.port}/mcp`,
      '*',
    ]) {
      const answer = await raw(
        open.port,
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
      );
      expect(answer.split('\r\n')[0], target).toBe('HTTP/1.1 404 Not Found');
    }
    expect(openLines).toEqual([]);
  });

  it('closes a socket that sends its headers too slowly (headers timeout)', async () => {
    const slow = await serveHttp({
      name: 'slow',
      version: '1.0.0',
      registry,
      port: 0,
      timeouts: { headersMs: 200, requestMs: 400 },
      logger: quiet,
    });
    try {
      // Half a request line, then nothing: the server must hang up (408 or a bare close).
      const answer = await raw(slow.port, 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n', { end: false });
      expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);
    } finally {
      await slow.close();
    }
  });

  it('refuses timeouts that are not positive or a headers timeout beyond the request timeout', async () => {
    for (const timeouts of [{ headersMs: 0 }, { requestMs: 1.5 }, { headersMs: 5000, requestMs: 1000 }]) {
      await expect(
        serveHttp({ name: 'x', version: '1', registry, port: 0, timeouts, logger: quiet }),
      ).rejects.toThrow(ConfigError);
    }
  });

  it('requires the bearer token when one is set: 401 without it', async () => {
    const missing = await post(secured.url, initialize);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await post(secured.url, initialize, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post(secured.url, initialize, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  it('passes the authenticated caller to handlers, never the token', async () => {
    const connection = await connectHttp(secured.url, { token: TOKEN });
    try {
      const result = await connection.client.callTool({ name: 'whoami', arguments: {} });
      expect(JSON.stringify(result)).not.toContain(TOKEN);
      expect(resultData<{ request: unknown }>(result).request).toEqual({
        transport: 'http',
        auth: { clientId: 'bearer-token', scopes: [] },
      });
    } finally {
      await connection.close();
    }
  });

  it('refuses to listen beyond loopback without a token', async () => {
    await expect(
      serveHttp({ name: 'x', version: '1', registry, host: '0.0.0.0', port: 0, logger: quiet }),
    ).rejects.toThrow(ConfigError);
  });

  it('listens beyond loopback when explicitly allowed', async () => {
    const handle = await serveHttp({
      name: 'x',
      version: '1',
      registry,
      host: '0.0.0.0',
      port: 0,
      allowUnauthenticated: true,
      logger: quiet,
    });
    try {
      expect((await fetch(`http://127.0.0.1:${handle.port}/healthz`)).status).toBe(200);
    } finally {
      await handle.close();
    }
  });
});

/**
 * Writes `text` on a raw socket and resolves with everything the server sent once it closes the
 * connection (`end: false` keeps our side open, as a slow client does).
 */
function raw(port: number, text: string, options: { end?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.write(text);
    if (options.end !== false) socket.end();
  });
}

describe('checkReachable', () => {
  it('is ok for any HTTP answer and names only the origin', async () => {
    const check = await checkReachable('upstream', `http://user:pw@127.0.0.1:${open.port}/nowhere?token=x`, {
      signal: AbortSignal.timeout(5_000),
    });
    expect(check).toEqual({
      name: 'upstream',
      ok: true,
      detail: `http://127.0.0.1:${open.port} answered (HTTP 404)`,
    });
  });

  it('is not ok when nothing listens', async () => {
    const port = await closedPort();
    const check = await checkReachable('upstream', `http://127.0.0.1:${port}/`, {
      signal: AbortSignal.timeout(5_000),
    });
    expect(check).toEqual({ name: 'upstream', ok: false, detail: `http://127.0.0.1:${port} did not answer` });
  });
});
