import { mkdtemp } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closedPort, connectHttp, resultData } from '@x/mcp-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { PROVIDER_IDS } from '../src/catalog.js';
import {
  defaultToolNames,
  type HttpServer,
  type RoundRobinProxy,
  startHttpServer,
  startRoundRobinProxy,
} from './helpers.js';

const running: { stop?: () => Promise<unknown>; close?: () => Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((item) => (item.stop ?? item.close)?.()));
});
const track = <T extends HttpServer | RoundRobinProxy>(item: T): T => {
  running.push(item);
  return item;
};

const TOKEN = 'composed-server-test-token';
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
/** POSTs an initialize with node:http, which (unlike fetch) can send any Host header; resolves with the status. */
const post = (url: string, headers: Record<string, string> = {}) =>
  new Promise<number>((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(initialize);
  });

describe('over HTTP', () => {
  it('has liveness, readiness of every provider, and the same protections as the bins', async () => {
    const server = track(await startHttpServer(['--sandbox'], { MCP_HTTP_TOKEN: TOKEN }));
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${server.base}/readyz`);
    expect(ready.status).toBe(200);
    const report = (await ready.json()) as { status: string; providers: { id: string; ready: boolean }[] };
    expect(report.status).toBe('ready');
    expect(report.providers.map((provider) => [provider.id, provider.ready])).toEqual(
      PROVIDER_IDS.map((id) => [id, true]),
    );
    expect(await post(server.url)).toBe(401);
    expect(await post(server.url, { authorization: 'Bearer wrong' })).toBe(401);
    expect(await post(server.url, { authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' })).toBe(
      403,
    );
    expect(await post(server.url, { authorization: `Bearer ${TOKEN}`, host: 'evil.example' })).toBe(403);
    expect(await post(server.url, { authorization: `Bearer ${TOKEN}` })).toBe(200);
    const { client, close } = await connectHttp(server.url, { token: TOKEN });
    try {
      expect((await client.listTools()).tools).toHaveLength((await defaultToolNames()).length);
    } finally {
      await close();
    }
  });

  it('reports a provider that is not ready, with the reason and without secrets', async () => {
    const home = await mkdtemp(join(tmpdir(), 'server-home-'));
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    const server = track(
      await startHttpServer(['--providers', 'forge,bbj-rag'], {
        HOME: home,
        FORGE_CONFIG_PATH: join(home, 'none.json'),
        FORGE_API_URL: `${nowhere}/api`,
        FORGE_ACCESS_TOKEN: '',
        BBJ_RAG_API_URL: nowhere,
        MCP_HTTP_TOKEN: TOKEN,
      }),
    );
    const response = await fetch(`${server.base}/readyz`);
    expect(response.status).toBe(503);
    const text = await response.text();
    expect(text).not.toContain(TOKEN);
    const report = JSON.parse(text) as {
      status: string;
      providers: { id: string; checks: { name: string; ok: boolean; detail: string }[] }[];
    };
    expect(report.status).toBe('not ready');
    const forge = report.providers.find((provider) => provider.id === 'forge');
    expect(forge?.checks.map((check) => [check.name, check.ok])).toEqual([
      ['credentials', false],
      ['upstream', false],
    ]);
    expect(forge?.checks[0]?.detail).toContain('forge-mcp login');
  });

  it('stays ready while one provider works: the one that is down is named and only its tools fail', async () => {
    const home = await mkdtemp(join(tmpdir(), 'server-home-'));
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    // BBj RAG served by default with nothing at its URL (decision 0027): the replica stays in rotation.
    const server = track(
      await startHttpServer(['--providers', 'context-forge,bbj-rag'], {
        HOME: home,
        CONTEXT_FORGE_DATA_DIR: home,
        BBJ_RAG_API_URL: nowhere,
        MCP_HTTP_TOKEN: TOKEN,
      }),
    );
    const response = await fetch(`${server.base}/readyz`);
    expect(response.status).toBe(200);
    const report = (await response.json()) as {
      status: string;
      unavailable: string[];
      providers: { id: string; ready: boolean; readiness: string }[];
    };
    expect(report.status).toBe('degraded');
    expect(report.unavailable).toEqual(['bbj-rag']);
    expect(report.providers.map((provider) => [provider.id, provider.ready])).toEqual([
      ['bbj-rag', false],
      ['context-forge', true],
    ]);
    const { client, close } = await connectHttp(server.url, { token: TOKEN });
    try {
      const listed = await client.callTool({ name: 'context_forge_project_list', arguments: {} });
      expect(listed.isError).toBeFalsy();
    } finally {
      await close();
    }
  });

  it('is stateless: two replicas behind a round-robin proxy serve one client session together', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'server-replicas-'));
    const env = { CONTEXT_FORGE_DATA_DIR: dataDir };
    const replicas = await Promise.all(
      [0, 1].map(async () => track(await startHttpServer(['--providers', 'context-forge'], env))),
    );
    const proxy = track(await startRoundRobinProxy(replicas.map((replica) => replica.base)));
    // The proxy is a different host:port than the replicas, so they must accept it (as behind nginx).
    const { client, close } = await connectHttp(`${proxy.url}/mcp`);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain(
        'context_forge_project_create',
      );
      for (let i = 0; i < 6; i++) {
        const created = await client.callTool({
          name: 'context_forge_project_create',
          arguments: { name: `replicated-${i}`, template: 'default', slice: '' },
        });
        expect(created.isError).toBeFalsy();
      }
      const listed = resultData<{ count: number }>(
        await client.callTool({ name: 'context_forge_project_list', arguments: {} }),
      );
      expect(listed.count).toBe(6);
    } finally {
      await close();
    }
    expect(proxy.counts[0]).toBeGreaterThanOrEqual(4);
    expect(proxy.counts[1]).toBeGreaterThanOrEqual(4);
  });
});
