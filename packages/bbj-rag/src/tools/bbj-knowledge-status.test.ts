import { errorBody, resultText } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedUrl, connectProvider } from '../../test/helpers.js';
import { type FakeBbjRag, SAMPLE_CORPUS, startFakeBbjRag } from '../testing/index.js';

let fake: FakeBbjRag;
beforeAll(async () => {
  fake = await startFakeBbjRag();
});
afterAll(() => fake.close());

async function status(apiUrl: string) {
  const connection = await connectProvider({ apiUrl });
  try {
    return await connection.client.callTool({ name: 'bbj_knowledge_status', arguments: {} });
  } finally {
    await connection.close();
  }
}

describe('bbj_knowledge_status', () => {
  it('combines /health and /stats for a healthy service', async () => {
    const before = fake.requests.length;
    const result = await status(fake.url);
    expect(
      fake.requests
        .slice(before)
        .map((request) => `${request.method} ${request.path}`)
        .sort(),
    ).toEqual(['GET /health', 'GET /stats']);
    expect(result.structuredContent).toMatchObject({
      api_url: fake.url,
      status: 'healthy',
      searchable: true,
      checks: { database: 'ok', ollama: 'ok' },
      health_error: null,
      stats: { total_chunks: SAMPLE_CORPUS.length },
      stats_error: null,
    });
    const text = resultText(result);
    expect(text).toMatch(/^The BBj RAG service is healthy\. The index holds \d+ chunks/);
    expect(text).toContain('A search that finds nothing means the query matched nothing');
    expect(text).toContain(`Chunks: ${SAMPLE_CORPUS.length}`);
  });

  it('reads the 503 body of a degraded service and says what is down', async () => {
    fake.update({ embedding: 'down' });
    try {
      const result = await status(fake.url);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        status: 'degraded',
        searchable: false,
        checks: { database: 'ok', ollama: 'error: [Errno 111] Connection refused' },
        stats: { total_chunks: SAMPLE_CORPUS.length },
      });
      expect(resultText(result)).toContain('The BBj RAG service is degraded: ollama error: [Errno 111]');
    } finally {
      fake.update({ embedding: 'up' });
    }
  });

  it('still answers when the database is down and /stats fails', async () => {
    fake.update({ database: 'down', embedding: 'down' });
    try {
      const result = await status(fake.url);
      const data = result.structuredContent as Record<string, unknown>;
      expect(data).toMatchObject({ status: 'unhealthy', searchable: false, stats: null });
      expect(data.stats_error).toContain('HTTP 503');
      expect(data.stats_error).toContain('Database query failed');
      expect(resultText(result)).toContain('Index statistics are unavailable');
    } finally {
      fake.update({ database: 'up', embedding: 'up' });
    }
  });

  it('tells an empty index apart', async () => {
    const empty = await startFakeBbjRag({ corpus: [] });
    try {
      const result = await status(empty.url);
      expect(result.structuredContent).toMatchObject({
        status: 'healthy',
        searchable: false,
        stats: { total_chunks: 0 },
      });
      expect(resultText(result)).toContain('The index is empty');
    } finally {
      await empty.close();
    }
  });

  it('fails with UPSTREAM_UNAVAILABLE naming the URL when nothing listens', async () => {
    const url = await closedUrl();
    const body = errorBody(await status(url));
    expect(body).toMatchObject({ error_code: 'UPSTREAM_UNAVAILABLE', retryable: true, api_url: url });
    expect(body.message).toContain(`not reachable at ${url}`);
  });
});
