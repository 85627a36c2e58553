import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, ToolRegistry } from '../src/index.js';
import { type HttpAuth, type HttpHandle, serveHttp } from '../src/node/index.js';
import { observe } from '../src/observability/events.js';
import { hashUserId } from '../src/observability/request-context.js';
import { connectHttp, errorBody, resultData } from '../src/testing/index.js';
import { createItemsProvider, startItemsApi } from './fixtures/observed.js';

const METRICS_TOKEN = 'metrics-token-for-tests';
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function itemsServer(options: Partial<Parameters<typeof serveHttp>[0]> = {}) {
  const api = await startItemsApi();
  cleanup.push(api.close);
  const logger = options.logger ?? createLogger('observed', { level: 'silent' });
  const handle: HttpHandle = await serveHttp({
    name: 'observed',
    version: '0.1.0',
    // The registry logs handler failures: with the server's logger, as the bin runner does.
    registry: new ToolRegistry({ logger }).use(createItemsProvider(api.url)),
    port: 0,
    logger,
    ...options,
  });
  cleanup.push(handle.close);
  return { api, handle, metricsUrl: new URL('/metrics', handle.url).href };
}

/** Sample lines of one metric, as `{ labels, value }`. */
function samples(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const out: Array<{ labels: Record<string, string>; value: number }> = [];
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[3] ?? '').matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1] as string] = pair[2] as string;
    }
    out.push({ labels, value: Number(match[4]) });
  }
  return out;
}

function value(text: string, name: string, labels: Record<string, string>): number {
  const found = samples(text, name).filter((sample) =>
    Object.entries(labels).every(([key, wanted]) => sample.labels[key] === wanted),
  );
  return found.reduce((sum, sample) => sum + sample.value, 0);
}

async function scrape(url: string, token = METRICS_TOKEN): Promise<string> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

describe('/metrics', () => {
  it('counts tool calls by outcome, their durations and upstream requests, as calls succeed and fail', async () => {
    const { api, handle, metricsUrl } = await itemsServer({ metrics: { token: METRICS_TOKEN } });
    const before = await scrape(metricsUrl);
    expect(value(before, 'mcp_tool_calls_total', { tool: 'get_item' })).toBe(0);

    const connection = await connectHttp(handle.url);
    try {
      const { client } = connection;
      expect(resultData(await client.callTool({ name: 'get_item', arguments: { id: 'ok-1' } }))).toEqual({
        id: 'ok-1',
        name: 'Item ok-1',
      });
      await client.callTool({ name: 'get_item', arguments: { id: 'ok-2' } });
      const missing = await client.callTool({ name: 'get_item', arguments: { id: 'missing-1' } });
      expect(errorBody(missing).error_code).toBe('NOT_FOUND');
      const invalid = await client.callTool({ name: 'get_item', arguments: { id: '' } });
      expect(errorBody(invalid).error_code).toBe('INVALID_INPUT');
      const crashed = await client.callTool({ name: 'crash', arguments: {} });
      expect(errorBody(crashed).error_code).toBe('INTERNAL_ERROR');
    } finally {
      await connection.close();
    }

    const after = await scrape(metricsUrl);
    expect(value(after, 'mcp_tool_calls_total', { tool: 'get_item', outcome: 'ok' })).toBe(2);
    expect(value(after, 'mcp_tool_calls_total', { tool: 'get_item', outcome: 'NOT_FOUND' })).toBe(1);
    expect(value(after, 'mcp_tool_calls_total', { tool: 'get_item', outcome: 'INVALID_INPUT' })).toBe(1);
    expect(value(after, 'mcp_tool_calls_total', { tool: 'crash', outcome: 'INTERNAL_ERROR' })).toBe(1);
    expect(value(after, 'mcp_tool_call_duration_seconds_count', { tool: 'get_item' })).toBe(4);
    expect(value(after, 'mcp_tool_call_duration_seconds_bucket', { tool: 'get_item', le: '+Inf' })).toBe(4);
    expect(value(after, 'mcp_tool_call_duration_seconds_sum', { tool: 'get_item' })).toBeGreaterThan(0);
    // Invalid input never reached the upstream: three requests, two answered 200 and one 404.
    expect(api.requests()).toBe(3);
    const upstream = { service: 'Items API', method: 'GET' };
    expect(value(after, 'mcp_upstream_requests_total', { ...upstream, status_class: '2xx' })).toBe(2);
    expect(value(after, 'mcp_upstream_requests_total', { ...upstream, status_class: '4xx' })).toBe(1);
    expect(value(after, 'mcp_upstream_request_duration_seconds_count', { service: 'Items API' })).toBe(3);
    expect(value(after, 'mcp_tool_calls_in_flight', {})).toBe(0);
    expect(value(after, 'process_resident_memory_bytes', {})).toBeGreaterThan(0);
  });

  it('keeps label sets to tool and outcome (and service, method, status class): arguments never become series', async () => {
    const { handle, metricsUrl } = await itemsServer({ metrics: { token: METRICS_TOKEN } });
    const connection = await connectHttp(handle.url);
    try {
      for (let index = 0; index < 20; index++) {
        await connection.client.callTool({ name: 'get_item', arguments: { id: `ok-secret-arg-${index}` } });
        await connection.client.callTool({ name: 'get_item', arguments: { id: `gone-secret-arg-${index}` } });
      }
    } finally {
      await connection.close();
    }
    const text = await scrape(metricsUrl);
    expect(text).not.toContain('secret-arg');
    expect(text).not.toContain(METRICS_TOKEN);
    const labelSets = (name: string) => [
      ...new Set(samples(text, name).map((sample) => Object.keys(sample.labels).sort().join(','))),
    ];
    expect(labelSets('mcp_tool_calls_total')).toEqual(['outcome,tool']);
    expect(labelSets('mcp_tool_call_duration_seconds_count')).toEqual(['tool']);
    expect(labelSets('mcp_upstream_requests_total')).toEqual(['method,service,status_class']);
    // 40 calls with 40 different arguments: two series (ok, NOT_FOUND), two upstream series.
    expect(samples(text, 'mcp_tool_calls_total')).toHaveLength(2);
    expect(samples(text, 'mcp_upstream_requests_total')).toHaveLength(2);
    expect(value(text, 'mcp_tool_calls_total', { tool: 'get_item' })).toBe(40);
  });

  it('answers 401 without the metrics token, and with the MCP token or a wrong one', async () => {
    const { handle, metricsUrl } = await itemsServer({ metrics: { token: METRICS_TOKEN } });
    const none = await fetch(metricsUrl);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect(await none.text()).not.toContain('mcp_tool_calls_total');
    const wrong = await fetch(metricsUrl, { headers: { authorization: 'Bearer not-the-token' } });
    expect(wrong.status).toBe(401);
    expect((await fetch(new URL('/healthz', handle.url))).status).toBe(200);
    await scrape(metricsUrl);
  });

  it('serves the gauges a mode adds, read at each scrape, and rejects names Prometheus cannot take', async () => {
    let users = 3;
    const gauge = { name: 'mcp_test_users', help: 'Users held.', read: () => users };
    const { metricsUrl } = await itemsServer({ metrics: { token: METRICS_TOKEN }, gauges: [gauge] });
    expect(await scrape(metricsUrl)).toContain('# TYPE mcp_test_users gauge\nmcp_test_users 3\n');
    users = 5;
    expect(value(await scrape(metricsUrl), 'mcp_test_users', {})).toBe(5);
    await expect(
      serveHttp({
        name: 'x',
        version: '1',
        registry: [],
        port: 0,
        metrics: true,
        gauges: [{ ...gauge, name: 'bad-name' }],
      }),
    ).rejects.toThrow(/not a Prometheus metric name/);
  });

  it('is absent unless turned on, and refuses to open beyond loopback without a token', async () => {
    const { metricsUrl } = await itemsServer();
    expect((await fetch(metricsUrl)).status).toBe(404);
    await expect(
      serveHttp({
        name: 'x',
        version: '1',
        registry: [],
        port: 0,
        host: '0.0.0.0',
        token: 'mcp-token',
        metrics: true,
      }),
    ).rejects.toThrow(/Refusing to serve \/metrics on 0\.0\.0\.0 without a token/);
  });
});

describe('request logs (MCP_LOG_FORMAT=json)', () => {
  it('write one JSON object per line with the request id and a keyed hash of the user, never the user id, token or arguments', async () => {
    const lines: string[] = [];
    const key = 'log-user-key-for-tests';
    const auth: HttpAuth = {
      authenticate: async (request) => {
        if (request.headers.get('authorization') !== 'Bearer user-token-secret') {
          return new Response('no', { status: 401 });
        }
        return {
          token: 'user-token-secret',
          clientId: 'client-1',
          scopes: [],
          expiresAt: Math.floor(Date.now() / 1000) + 3600,
          extra: { userId: 'basecamp:4242' },
        };
      },
    };
    const { handle } = await itemsServer({
      auth,
      requestLog: true,
      userHashKey: key,
      logger: createLogger('observed', { format: 'json', write: (line) => lines.push(line) }),
    });
    const transport = new StreamableHTTPClientTransport(new URL(handle.url), {
      requestInit: { headers: { authorization: 'Bearer user-token-secret', 'x-request-id': 'req-abc.123' } },
    });
    const client = new Client({ name: 'test', version: '0' });
    await client.connect(transport);
    try {
      await client.callTool({ name: 'get_item', arguments: { id: 'ok-argument-value' } });
      await client.callTool({ name: 'get_item', arguments: { id: 'missing-argument-value' } });
      await client.callTool({ name: 'crash', arguments: {} });
    } finally {
      await client.close();
    }
    const text = lines.join('');
    for (const secret of ['basecamp:4242', '4242', 'user-token-secret', 'argument-value', key]) {
      expect(text).not.toContain(secret);
    }
    const entries = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const calls = entries.filter((entry) => entry.message === 'tool call');
    expect(calls.map((entry) => [entry.tool, entry.outcome])).toEqual([
      ['get_item', 'ok'],
      ['get_item', 'NOT_FOUND'],
      ['crash', 'INTERNAL_ERROR'],
    ]);
    const user = hashUserId('basecamp:4242', key);
    for (const entry of calls) {
      expect(entry).toMatchObject({ level: 'info', request_id: 'req-abc.123', user });
      expect(typeof entry.duration_ms).toBe('number');
      expect(typeof entry.time).toBe('string');
    }
    // The handler's own failure is logged inside the same request: it carries the same fields.
    const failure = entries.find((entry) => String(entry.message).startsWith('unexpected failure'));
    expect(failure).toMatchObject({ level: 'error', request_id: 'req-abc.123', user });
  });

  it('give each request a fresh id when the caller sent none or an unusable one, and echo it', async () => {
    const lines: string[] = [];
    const { handle } = await itemsServer({
      requestLog: true,
      logger: createLogger('observed', { format: 'json', write: (line) => lines.push(line) }),
    });
    const post = (headers: Record<string, string>) =>
      fetch(handle.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          ...headers,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'get_item', arguments: { id: 'ok-1' } },
        }),
      });
    const plain = await post({});
    const hostile = await post({ 'x-request-id': 'has spaces and "quotes"' });
    const ids = [plain.headers.get('x-request-id'), hostile.headers.get('x-request-id')];
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[0]).not.toBe(ids[1]);
    await plain.text();
    await hostile.text();
    const calls = lines.map((line) => JSON.parse(line)).filter((entry) => entry.message === 'tool call');
    expect(calls.map((entry) => entry.request_id)).toEqual(ids);
    expect(calls.every((entry) => entry.user === undefined)).toBe(true);
  });
});

describe('the telemetry hooks', () => {
  it('report nothing once the server closed, and an observer that throws changes no result', async () => {
    const seen: string[] = [];
    const stop = observe({
      toolCall: (event) => {
        seen.push(event.tool);
        throw new Error('observer bug');
      },
      upstreamRequest: () => ({
        end: () => {
          throw new Error('observer bug');
        },
      }),
    });
    cleanup.push(async () => stop());
    const { handle } = await itemsServer();
    const connection = await connectHttp(handle.url);
    try {
      const result = await connection.client.callTool({ name: 'get_item', arguments: { id: 'ok-7' } });
      expect(resultData(result)).toEqual({ id: 'ok-7', name: 'Item ok-7' });
    } finally {
      await connection.close();
    }
    expect(seen).toEqual(['get_item']);
    stop();
  });
});
