import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_CORPUS } from './corpus.js';
import { type FakeBbjRag, startFakeBbjRag } from './fake-server.js';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Body = any;
const json = async (response: Response): Promise<Body> => response.json();

let fake: FakeBbjRag;
beforeAll(async () => {
  fake = await startFakeBbjRag();
});
afterAll(() => fake.close());
afterEach(() => fake.update({ shape: 'current', embedding: 'up', database: 'up', maxLimit: 50, delayMs: 0 }));

async function post(body: unknown, raw?: string) {
  const response = await fetch(`${fake.url}/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: raw ?? JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await json(response) };
}

describe('the fake BBj RAG service', () => {
  it('answers /search in the current shape, with per-source-type counts', async () => {
    const { status, headers, body } = await post({ query: 'addButton window', limit: 3 });
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('application/json');
    expect(body).toMatchObject({ query: 'addButton window', count: 3 });
    expect(body.results).toHaveLength(3);
    expect(body.results[0]).toMatchObject({ title: 'BBjWindow::addButton', deprecated: false });
    expect(Object.keys(body.results[0]).sort()).toEqual(
      [
        'content',
        'context_header',
        'deprecated',
        'display_url',
        'doc_type',
        'generations',
        'score',
        'source_type',
        'source_url',
        'title',
      ].sort(),
    );
    const counted = Object.values(body.source_type_counts as Record<string, number>).reduce(
      (a, b) => a + b,
      0,
    );
    expect(counted).toBe(3);
    const scores = body.results.map((result: { score: number }) => result.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('answers in the legacy shape without display_url, source_type and source_type_counts', async () => {
    fake.update({ shape: 'legacy' });
    const { body } = await post({ query: 'window' });
    expect(body.results.length).toBeGreaterThan(0);
    expect(body).not.toHaveProperty('source_type_counts');
    for (const result of body.results) {
      expect(result).not.toHaveProperty('display_url');
      expect(result).not.toHaveProperty('source_type');
    }
  });

  it('defaults limit to 10 like the service', async () => {
    const { body } = await post({ query: 'the' });
    expect(body.count).toBe(10);
  });

  it('filters by exact generation tag, mapping bbj-gui to bbj_gui', async () => {
    const dwc = await post({ query: 'window control event', generation: 'dwc', limit: 50 });
    expect(dwc.body.count).toBeGreaterThan(0);
    for (const result of dwc.body.results) expect(result.generations).toContain('dwc');

    const dashed = await post({ query: 'window', generation: 'bbj-gui', limit: 50 });
    const underscored = await post({ query: 'window', generation: 'bbj_gui', limit: 50 });
    expect(dashed.body.count).toBeGreaterThan(0);
    expect(dashed.body.results).toEqual(underscored.body.results);

    // A chunk tagged only "all" does not match a specific generation: the service filters with @>.
    const character = await post({ query: 'OPEN READ RECORD channel', generation: 'character', limit: 50 });
    expect(character.body.results.map((result: { title: string }) => result.title)).not.toContain(
      'OPEN, READ RECORD and WRITE RECORD',
    );
    const unknown = await post({ query: 'window', generation: 'nonsense' });
    expect(unknown).toMatchObject({ status: 200, body: { count: 0, results: [] } });
  });

  it('rejects bad bodies with FastAPI validation errors', async () => {
    expect(await post({ query: '' })).toMatchObject({
      status: 422,
      body: {
        detail: [
          {
            type: 'string_too_short',
            loc: ['body', 'query'],
            msg: 'String should have at least 1 character',
            input: '',
            ctx: { min_length: 1 },
          },
        ],
      },
    });
    expect((await post({ limit: 5 })).body.detail).toEqual([
      { type: 'missing', loc: ['body', 'query'], msg: 'Field required', input: { limit: 5 } },
    ]);
    expect((await post({ query: 'x', limit: 51 })).body.detail[0]).toMatchObject({
      type: 'less_than_equal',
      msg: 'Input should be less than or equal to 50',
      ctx: { le: 50 },
    });
    expect((await post({ query: 'x', limit: 0 })).body.detail[0].type).toBe('greater_than_equal');
    expect((await post({ query: 'x', limit: 2.5 })).body.detail[0].type).toBe('int_from_float');
    expect((await post({ query: 'x', limit: 'many' })).body.detail[0].type).toBe('int_parsing');
    expect(
      (await post({ query: 7, generation: 3 })).body.detail.map((issue: { loc: string[] }) => issue.loc),
    ).toEqual([
      ['body', 'query'],
      ['body', 'generation'],
    ]);
    expect((await post(undefined, '{"query": ')).body.detail[0]).toMatchObject({
      type: 'json_invalid',
      msg: 'JSON decode error',
    });
    expect((await post(['query'])).body.detail[0].type).toBe('model_attributes_type');
    // pydantic's lax mode takes a numeric string.
    expect((await post({ query: 'window', limit: '2' })).body.count).toBe(2);
  });

  it('honours a lowered maxLimit, like a stricter deployment', async () => {
    fake.update({ maxLimit: 20 });
    const { status, body } = await post({ query: 'x', limit: 30 });
    expect(status).toBe(422);
    expect(body.detail[0].msg).toBe('Input should be less than or equal to 20');
  });

  it('answers 503 with a detail when the embedding backend is down, and reports degraded health', async () => {
    fake.update({ embedding: 'down' });
    const search = await post({ query: 'window' });
    expect(search.status).toBe(503);
    expect(search.body.detail).toMatch(/^Ollama embedding failed: /);
    const health = await fetch(`${fake.url}/health`);
    expect(health.status).toBe(503);
    expect(await json(health)).toEqual({
      status: 'degraded',
      checks: { database: 'ok', ollama: 'error: [Errno 111] Connection refused' },
    });
  });

  it('reports healthy with 200, unhealthy with 503, and stats of the index', async () => {
    const healthy = await fetch(`${fake.url}/health`);
    expect(healthy.status).toBe(200);
    expect(await json(healthy)).toEqual({ status: 'healthy', checks: { database: 'ok', ollama: 'ok' } });

    const stats = await json(await fetch(`${fake.url}/stats`));
    expect(stats.total_chunks).toBe(SAMPLE_CORPUS.length);
    expect(Object.keys(stats.by_generation).sort()).toEqual(['all', 'bbj_gui', 'character', 'dwc', 'vpro5']);
    const bySource = Object.values(stats.by_source as Record<string, number>);
    expect(bySource.reduce((a, b) => a + b, 0)).toBe(SAMPLE_CORPUS.length);
    expect(bySource).toEqual([...bySource].sort((a, b) => b - a));

    fake.update({ embedding: 'down', database: 'down' });
    const unhealthy = await fetch(`${fake.url}/health`);
    expect(unhealthy.status).toBe(503);
    expect((await json(unhealthy)).status).toBe('unhealthy');
    const statsDown = await fetch(`${fake.url}/stats`);
    expect(statsDown.status).toBe(503);
    expect((await json(statsDown)).detail).toMatch(/^Database query failed: /);
    const searchDown = await fetch(`${fake.url}/search`, { method: 'POST', body: '{"query":"x"}' });
    expect(searchDown.status).toBe(500);
    expect(await searchDown.text()).toBe('Internal Server Error');
  });

  it('answers unknown paths with 404 and wrong methods with 405, and records every request', async () => {
    const before = fake.requests.length;
    const missing = await fetch(`${fake.url}/nope`);
    expect(missing.status).toBe(404);
    expect(await json(missing)).toEqual({ detail: 'Not Found' });
    const wrong = await fetch(`${fake.url}/search`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    await post({ query: 'x' });
    expect(fake.requests.slice(before).map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /nope',
      'GET /search',
      'POST /search',
    ]);
    expect(fake.requests.at(-1)?.body).toEqual({ query: 'x' });
  });

  it('keeps only the latest 1,000 requests', async () => {
    const small = await startFakeBbjRag();
    try {
      for (let i = 0; i < 1005; i++) await fetch(`${small.url}/health?n=${i}`);
      expect(small.requests).toHaveLength(1000);
      expect(small.requests.at(-1)?.path).toBe('/health');
    } finally {
      await small.close();
    }
  });

  it('serves an empty index', async () => {
    const empty = await startFakeBbjRag({ corpus: [] });
    try {
      const stats = await json(await fetch(`${empty.url}/stats`));
      expect(stats).toEqual({ total_chunks: 0, by_source: {}, by_generation: {} });
      const search = await json(
        await fetch(`${empty.url}/search`, { method: 'POST', body: JSON.stringify({ query: 'window' }) }),
      );
      expect(search).toEqual({ query: 'window', results: [], count: 0, source_type_counts: {} });
    } finally {
      await empty.close();
    }
  });
});
