import { connect } from 'node:net';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, createLogger, ToolRegistry } from '../src/index.js';
import { type HttpAuth, type HttpHandle, serveHttp } from '../src/node/index.js';
import { connectHttp, resultData } from '../src/testing/index.js';
import { createFixtureProvider } from './fixtures/tools.js';

const quiet = createLogger('http-auth-test', { level: 'silent' });
const serverLines: string[] = [];
const serverLogger = createLogger('http-auth-test', {
  level: 'error',
  write: (line) => serverLines.push(line),
});
const everyone = new ToolRegistry({ logger: quiet }).use(createFixtureProvider());
const onlyWhoami = new ToolRegistry({ logger: quiet }).use(createFixtureProvider(), {
  include: ['whoami'],
});

// A strategy with two callers: "alice-token" sees every tool, "bob-token" only whoami.
// "carol-token" is a caller whose tools cannot be built (say, the store is down).
const users: Record<string, string> = { 'alice-token': 'alice', 'bob-token': 'bob', 'carol-token': 'carol' };
const auth: HttpAuth = {
  async handle(req, res) {
    if (req.url !== '/own/route') return false;
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('served by the strategy');
    return true;
  },
  async authenticate(request) {
    const token = /^Bearer (\S+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
    const user = token === undefined ? undefined : users[token];
    if (!user || !token) {
      return new Response('{"error":"invalid_token"}', {
        status: 401,
        headers: { 'www-authenticate': 'Bearer resource_metadata="https://example.test/prm"' },
      });
    }
    return { token, clientId: 'client-1', scopes: ['mcp'], extra: { userId: user } } satisfies AuthInfo;
  },
  async registryFor(info) {
    if (info.extra?.userId === 'carol') throw new Error('connection store unreachable for carol');
    return info.extra?.userId === 'bob' ? onlyWhoami : everyone;
  },
};

let handle: HttpHandle;
beforeAll(async () => {
  handle = await serveHttp({
    name: 'auth',
    version: '1.0.0',
    registry: everyone,
    port: 0,
    auth,
    logger: serverLogger,
  });
});
afterAll(() => handle.close());

describe('serveHttp with an auth strategy', () => {
  it('answers an unauthenticated MCP request with the strategy’s response', async () => {
    const response = await fetch(handle.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it('refuses a request without a well-formed bearer token before reading its body', async () => {
    // Headers announcing 1 MiB, and no body at all: the answer can only come before the body.
    for (const authorization of [undefined, 'Basic YTpi', 'Bearer', 'Bearer a b']) {
      const head = await new Promise<string>((resolve, reject) => {
        const socket = connect(handle.port, '127.0.0.1');
        let text = '';
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('latin1');
          if (text.includes('\r\n\r\n')) {
            resolve(text);
            socket.destroy();
          }
        });
        socket.on('error', reject);
        socket.write(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${1024 * 1024}\r\n${
            authorization ? `Authorization: ${authorization}\r\n` : ''
          }\r\n`,
        );
      });
      expect(head.split('\r\n')[0], String(authorization)).toBe('HTTP/1.1 401 Unauthorized');
      expect(head.toLowerCase()).toContain('www-authenticate: bearer resource_metadata=');
      expect(head.toLowerCase()).toContain('connection: close');
    }
  });

  it('logs as an error when a caller’s tools cannot be built, and answers with a JSON-RPC error', async () => {
    serverLines.length = 0;
    const response = await fetch(handle.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: 'Bearer carol-token',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
    });
    expect(response.ok).toBe(false);
    expect(await response.text()).toContain('-32603');
    expect(serverLines.join('')).toContain("error: building the caller's tools failed");
    expect(serverLines.join('')).toContain('connection store unreachable for carol');
    expect(serverLines.join('')).not.toContain('carol-token');
  });

  it('lets the strategy serve its own routes, and still 404s the others', async () => {
    const own = await fetch(new URL('/own/route', handle.url));
    expect(await own.text()).toBe('served by the strategy');
    expect((await fetch(new URL('/elsewhere', handle.url))).status).toBe(404);
  });

  it('hands the caller to the tools and picks the caller’s registry', async () => {
    const alice = await connectHttp(handle.url, { token: 'alice-token' });
    const bob = await connectHttp(handle.url, { token: 'bob-token' });
    try {
      const seen = resultData<{ request: { auth: { extra: { userId: string } } } }>(
        await alice.client.callTool({ name: 'whoami', arguments: {} }),
      );
      expect(seen.request.auth.extra.userId).toBe('alice');
      expect((await alice.client.listTools()).tools.length).toBeGreaterThan(1);
      expect((await bob.client.listTools()).tools.map((tool) => tool.name)).toEqual(['whoami']);
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  it('refuses a token and a strategy together', async () => {
    await expect(
      serveHttp({ name: 'x', version: '1', registry: everyone, port: 0, token: 't', auth, logger: quiet }),
    ).rejects.toBeInstanceOf(ConfigError);
  });
});
