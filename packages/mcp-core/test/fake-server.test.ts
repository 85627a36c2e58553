import { afterEach, describe, expect, it } from 'vitest';
import {
  type FakeServer,
  type FakeServerOptions,
  requestOperation,
  startFakeServer,
} from '../src/testing/index.js';

let fake: FakeServer | undefined;

async function start(options: FakeServerOptions = {}): Promise<FakeServer> {
  fake = await startFakeServer(options);
  return fake;
}

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const echo: FakeServerOptions = {
  routes: [
    { method: 'GET', path: '/hello', handle: () => ({ status: 200, body: { hello: 'world' } }) },
    {
      method: 'POST',
      path: /^\/items\/(\d+)$/,
      handle: (request, params) => ({ status: 201, body: { id: Number(params[0]), got: request.body } }),
    },
  ],
};

describe('startFakeServer', () => {
  it('listens on 127.0.0.1 on a free port and answers the route table', async () => {
    const server = await start(echo);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.port).toBeGreaterThan(0);
    const response = await fetch(`${server.url}/hello`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(await response.json()).toEqual({ hello: 'world' });
    const created = await fetch(`${server.url}/items/42`, { method: 'POST', body: '{"a":1}' });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ id: 42, got: { a: 1 } });
  });

  it('matches the method too, and answers 404 (or the fallback) for what no route takes', async () => {
    const server = await start(echo);
    expect((await fetch(`${server.url}/hello`, { method: 'DELETE' })).status).toBe(404);
    await server.close();
    const withFallback = await start({
      ...echo,
      fallback: (request) => ({ status: 418, body: request.path }),
    });
    const response = await fetch(`${withFallback.url}/nowhere`);
    expect(response.status).toBe(418);
    expect(await response.text()).toBe('/nowhere');
  });

  it('records method, path, query, headers, status and the parsed body (JSON, form, text)', async () => {
    const server = await start(echo);
    await fetch(`${server.url}/items/7?x=1&y=two`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-custom': 'yes' },
      body: JSON.stringify({ name: 'n' }),
    });
    await fetch(`${server.url}/form`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&code=a%20b',
    });
    await fetch(`${server.url}/text`, { method: 'PUT', body: 'not json' });
    await fetch(`${server.url}/hello`);
    const [json, form, text, empty] = server.requests;
    expect(json).toMatchObject({
      method: 'POST',
      path: '/items/7',
      query: { x: '1', y: 'two' },
      body: { name: 'n' },
      json: true,
      text: '{"name":"n"}',
      status: 201,
    });
    expect(json?.headers['x-custom']).toBe('yes');
    expect(json?.at).toBeGreaterThan(0);
    expect(json?.address).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    expect(form).toMatchObject({
      body: { grant_type: 'refresh_token', code: 'a b' },
      json: false,
      status: 404,
    });
    expect(text).toMatchObject({ method: 'PUT', body: 'not json', json: false });
    expect(empty).toMatchObject({ body: undefined, text: '', status: 200 });
    server.resetLog();
    expect(server.requests).toHaveLength(0);
  });

  it('strips the base path, and keeps only the latest requests when asked', async () => {
    const server = await start({ ...echo, basePath: '/api', maxRecorded: 2 });
    await fetch(`${server.url}/api/hello`);
    await fetch(`${server.url}/api/hello?n=2`);
    await fetch(`${server.url}/other`);
    expect(server.requests.map((request) => request.path)).toEqual(['/hello', '/other']);
    expect(server.requests[0]?.status).toBe(200);
  });

  it('records only what the record filter keeps, while still answering the rest', async () => {
    const server = await start({ ...echo, record: (request) => request.path !== '/hello' });
    expect((await fetch(`${server.url}/hello`)).status).toBe(200);
    await fetch(`${server.url}/items/1`, { method: 'POST' });
    expect(server.requests.map((request) => request.path)).toEqual(['/items/1']);
  });

  it('injects a fault once by default, matched by method and path, with status, headers and body', async () => {
    const server = await start(echo);
    server.fail({
      method: 'GET',
      path: '/hello',
      status: 503,
      headers: { 'retry-after': '2' },
      body: { e: 1 },
    });
    expect((await fetch(`${server.url}/hello`, { method: 'HEAD' })).status).toBe(404);
    const failed = await fetch(`${server.url}/hello`);
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('2');
    expect(await failed.json()).toEqual({ e: 1 });
    expect(server.requests.at(-1)?.status).toBe(503);
    expect((await fetch(`${server.url}/hello`)).status).toBe(200);
  });

  it('fails N times, or always until cleared, and a pattern matches paths', async () => {
    const server = await start(echo);
    server.fail({ path: /^\/items\//, status: 429, times: 2, body: 'slow down' });
    const statuses: number[] = [];
    for (let index = 0; index < 3; index++) {
      statuses.push((await fetch(`${server.url}/items/1`, { method: 'POST' })).status);
    }
    expect(statuses).toEqual([429, 429, 201]);
    server.fail({ status: 500, times: Number.POSITIVE_INFINITY });
    for (let index = 0; index < 3; index++) expect((await fetch(`${server.url}/hello`)).status).toBe(500);
    server.clearFaults();
    expect((await fetch(`${server.url}/hello`)).status).toBe(200);
  });

  it('resets the connection when asked, so the client sees a network error', async () => {
    const server = await start(echo);
    server.fail({ path: '/hello', reset: true });
    await expect(fetch(`${server.url}/hello`)).rejects.toThrow(TypeError);
    expect((await fetch(`${server.url}/hello`)).status).toBe(200);
  });

  it('delays an answer, so a client time limit fires', async () => {
    const server = await start(echo);
    server.fail({ path: '/hello', status: 200, body: 'late', delayMs: 2_000 });
    await expect(fetch(`${server.url}/hello`, { signal: AbortSignal.timeout(50) })).rejects.toThrow();
    server.setLatency(2_000);
    await expect(
      fetch(`${server.url}/items/1`, { method: 'POST', signal: AbortSignal.timeout(50) }),
    ).rejects.toThrow();
  });

  it('lets a handler write the answer itself, and turns a throw into a 500', async () => {
    const server = await start({
      routes: [
        {
          path: '/redirect',
          handle: (_request, _params, response) => {
            response.writeHead(302, { location: '/elsewhere' });
            response.end();
            return undefined;
          },
        },
        {
          path: '/boom',
          handle: () => {
            throw new Error('broken fixture');
          },
        },
      ],
    });
    const redirect = await fetch(`${server.url}/redirect`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('/elsewhere');
    expect(server.requests[0]?.status).toBe(302);
    const boom = await fetch(`${server.url}/boom`);
    expect(boom.status).toBe(500);
    expect(await boom.json()).toEqual({ error: 'broken fixture' });
  });

  it('closes cleanly, also with a request still open', async () => {
    const server = await start(echo);
    server.setLatency(60_000);
    const pending = fetch(`${server.url}/hello`).catch((error: unknown) => error);
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await server.close();
    expect(await pending).toBeInstanceOf(TypeError);
    await expect(fetch(`${server.url}/hello`)).rejects.toThrow(TypeError);
    fake = undefined;
  });
});

describe('routes and faults keyed by operation (GraphQL, JSON-RPC)', () => {
  const post = (server: FakeServer, path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const graphql: FakeServerOptions = {
    routes: [
      {
        path: '/graphql',
        operation: 'Viewer',
        handle: () => ({ status: 200, body: { data: { viewer: 1 } } }),
      },
      {
        path: '/graphql',
        operation: /^Issue/,
        handle: (request) => ({ status: 200, body: { op: request.operation } }),
      },
      {
        path: '/graphql',
        handle: () => ({ status: 200, body: { data: null, errors: [{ message: 'no op' }] } }),
      },
    ],
  };

  it('finds the operation from operationName, the query document, a GET query string, or a JSON-RPC method', () => {
    const of = (body: unknown, query: Record<string, string> = {}) => requestOperation({ body, query });
    expect(of({ query: 'query A { x }', operationName: 'B' })).toBe('B');
    expect(of({ query: '  mutation IssueCreate($t: String!) { issueCreate(title: $t) { id } }' })).toBe(
      'IssueCreate',
    );
    expect(of({ query: 'fragment F on Issue { id }\nquery Issues { issues { ...F } }' })).toBe('Issues');
    expect(of({ query: '{ viewer { id } }' })).toBeUndefined();
    expect(of({ query: 'find query results about pumps' })).toBeUndefined();
    expect(of(undefined, { query: 'query Viewer { viewer { id } }' })).toBe('Viewer');
    expect(of({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBe('tools/list');
    expect(of([{ jsonrpc: '2.0', id: 1, method: 'a' }])).toBeUndefined();
    expect(of({ name: 'rest body' })).toBeUndefined();
  });

  it('routes one path by operation, with a route without one taking the rest', async () => {
    const server = await start(graphql);
    const viewer = await post(server, '/graphql', { query: 'query Viewer { viewer { id } }' });
    expect(await viewer.json()).toEqual({ data: { viewer: 1 } });
    const issue = await post(server, '/graphql', { query: '{ x }', operationName: 'IssueUpdate' });
    expect(await issue.json()).toEqual({ op: 'IssueUpdate' });
    const anonymous = await post(server, '/graphql', { query: '{ x }' });
    expect(await anonymous.json()).toEqual({ data: null, errors: [{ message: 'no op' }] });
    expect(server.requests.map((request) => request.operation)).toEqual(['Viewer', 'IssueUpdate', undefined]);
  });

  it('fails one operation (401, 429, 5xx, errors in a 200) while the others on the path keep working', async () => {
    const server = await start(graphql);
    server.fail({ operation: 'Viewer', status: 401, body: { message: 'Bad credentials' } });
    server.fail({ operation: /^Issue/, status: 429, headers: { 'retry-after': '3' }, times: 2 });
    server.fail({
      operation: 'Viewer',
      status: 200,
      body: { data: null, errors: [{ message: 'slow down', extensions: { code: 'RATE_LIMITED' } }] },
    });
    const issueBody = { query: 'mutation IssueCreate { x }' };
    const viewerBody = { query: 'query Viewer { x }' };
    const first = await post(server, '/graphql', issueBody);
    expect([first.status, first.headers.get('retry-after')]).toEqual([429, '3']);
    expect((await post(server, '/graphql', viewerBody)).status).toBe(401);
    expect(await (await post(server, '/graphql', viewerBody)).json()).toEqual({
      data: null,
      errors: [{ message: 'slow down', extensions: { code: 'RATE_LIMITED' } }],
    });
    expect(await (await post(server, '/graphql', viewerBody)).json()).toEqual({ data: { viewer: 1 } });
    expect((await post(server, '/graphql', issueBody)).status).toBe(429);
    expect((await post(server, '/graphql', issueBody)).status).toBe(200);
    // A fault keyed by operation never takes a request without one.
    server.fail({ operation: /.*/, status: 503 });
    expect((await post(server, '/graphql', { query: '{ x }' })).status).toBe(200);
    expect((await post(server, '/graphql', viewerBody)).status).toBe(503);
  });

  it('takes a JSON-RPC method as the operation, and a provider rule of its own', async () => {
    const rpc = await start({
      routes: [
        { path: '/rpc', operation: 'eth_chainId', handle: () => ({ status: 200, body: { result: '0x1' } }) },
      ],
    });
    rpc.fail({
      operation: 'eth_chainId',
      status: 200,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'x' } },
    });
    expect(
      await (await post(rpc, '/rpc', { jsonrpc: '2.0', id: 1, method: 'eth_chainId' })).json(),
    ).toMatchObject({
      error: { code: -32603 },
    });
    expect(await (await post(rpc, '/rpc', { jsonrpc: '2.0', id: 2, method: 'eth_chainId' })).json()).toEqual({
      result: '0x1',
    });
    await rpc.close();
    const custom = await start({
      operation: (request) => request.headers['x-action'],
      routes: [{ operation: 'Ping', handle: () => ({ status: 200, body: 'pong' }) }],
    });
    const pong = await fetch(`${custom.url}/anything`, { headers: { 'x-action': 'Ping' } });
    expect(await pong.text()).toBe('pong');
    expect((await fetch(`${custom.url}/anything`)).status).toBe(404);
  });
});
