import { afterEach, describe, expect, it } from 'vitest';
import { type FakeServer, type FakeServerOptions, startFakeServer } from '../src/testing/index.js';

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
