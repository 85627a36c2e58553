import { readFileSync } from 'node:fs';
import { closedPort, describeToolProvider, errorBody } from '@x/mcp-core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compilers, connectProvider } from '../test/helpers.js';
import { createBbjRagProvider, VERSION } from './index.js';
import { type FakeBbjRag, startFakeBbjRag } from './testing/index.js';

let fake: FakeBbjRag;
beforeAll(async () => {
  fake = await startFakeBbjRag();
});
afterAll(() => fake.close());

describeToolProvider(() => createBbjRagProvider({ apiUrl: fake.url, compilerPath: compilers.valid }), {
  name: 'bbj-rag',
});

describe('createBbjRagProvider', () => {
  afterEach(() => {
    delete process.env.BBJ_RAG_API_URL;
  });

  it('has the package version and the three tools', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const provider = createBbjRagProvider();
    expect(provider.version).toBe(manifest.version);
    expect(VERSION).toBe(manifest.version);
    expect(provider.tools.map((tool) => tool.name)).toEqual([
      'search_bbj_knowledge',
      'validate_bbj_syntax',
      'bbj_knowledge_status',
    ]);
  });

  it('does no I/O and reads no settings until a tool runs', async () => {
    const calls: string[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      calls.push(String(input));
      return fetch(input, init);
    };
    process.env.BBJ_RAG_API_URL = 'not a url';
    const provider = createBbjRagProvider({ fetch: recordingFetch });
    expect(calls).toEqual([]);
    // The environment is read on first use, so fixing it before the first call is enough.
    process.env.BBJ_RAG_API_URL = `${fake.url}/`;
    const connection = await connectProvider({ fetch: recordingFetch });
    try {
      const result = await connection.client.callTool({
        name: 'search_bbj_knowledge',
        arguments: { query: 'x' },
      });
      expect(result.isError).toBeFalsy();
      expect(calls).toEqual([`${fake.url}/search`]);
    } finally {
      await connection.close();
    }
    expect(provider.tools).toHaveLength(3);
  });

  it('is ready when the service is healthy, and says why not otherwise', async () => {
    const provider = createBbjRagProvider({ apiUrl: fake.url });
    const check = () => provider.checkReadiness?.({ signal: AbortSignal.timeout(5_000) });
    try {
      expect(await check()).toEqual({
        ready: true,
        checks: [{ name: 'service', ok: true, detail: 'healthy (database: ok, ollama: ok)' }],
      });
      fake.update({ embedding: 'down' });
      expect(await check()).toMatchObject({
        ready: false,
        checks: [{ ok: false, detail: expect.stringMatching(/^degraded \(/) }],
      });
    } finally {
      fake.update({ embedding: 'up' });
    }
    const port = await closedPort();
    const unreachable = await createBbjRagProvider({ apiUrl: `http://127.0.0.1:${port}` }).checkReadiness?.({
      signal: AbortSignal.timeout(5_000),
    });
    expect(unreachable?.ready).toBe(false);
    expect(unreachable?.checks[0]?.detail).toContain(`http://127.0.0.1:${port}`);
  });

  it('answers a bad BBJ_RAG_API_URL with TOOL_NOT_ENABLED naming the variable', async () => {
    process.env.BBJ_RAG_API_URL = 'ftp://docs.example.com';
    const connection = await connectProvider({});
    try {
      const body = errorBody(
        await connection.client.callTool({ name: 'search_bbj_knowledge', arguments: { query: 'x' } }),
      );
      expect(body.error_code).toBe('TOOL_NOT_ENABLED');
      expect(body.message).toMatch(/^BBJ_RAG_API_URL must be an http\(s\) URL/);
    } finally {
      await connection.close();
    }
  });

  it('keeps a path prefix of the API URL', async () => {
    const before = fake.requests.length;
    const connection = await connectProvider({ apiUrl: `${fake.url}/rag/` });
    try {
      await connection.client.callTool({ name: 'bbj_knowledge_status', arguments: {} });
      expect(
        fake.requests
          .slice(before)
          .map((request) => request.path)
          .sort(),
      ).toEqual(['/rag/health', '/rag/stats']);
    } finally {
      await connection.close();
    }
  });
});
