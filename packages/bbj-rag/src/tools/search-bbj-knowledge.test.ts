import type { ConnectedClient } from '@x/mcp-core/testing';
import { errorBody, resultText } from '@x/mcp-core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closedUrl, connectProvider } from '../../test/helpers.js';
import { type FakeBbjRag, startFakeBbjRag } from '../testing/index.js';

let fake: FakeBbjRag;
let connection: ConnectedClient;

beforeAll(async () => {
  fake = await startFakeBbjRag();
  connection = await connectProvider({ apiUrl: fake.url });
});
afterAll(async () => {
  await connection.close();
  await fake.close();
});
afterEach(() => fake.update({ shape: 'current', embedding: 'up', database: 'up', maxLimit: 50, delayMs: 0 }));

const search = (args: Record<string, unknown>, client = connection.client) =>
  client.callTool({ name: 'search_bbj_knowledge', arguments: args });

interface SearchData {
  query: string;
  generation: string | null;
  count: number;
  source_type_counts?: Record<string, number>;
  results: {
    rank: number;
    title: string;
    url: string;
    source_url: string;
    display_url?: string;
    source_type?: string;
    generations: string[];
    deprecated: boolean;
    context_header: string | null;
  }[];
}

describe('search_bbj_knowledge', () => {
  it('posts the query with the default limit of 5 and no generation filter', async () => {
    const before = fake.requests.length;
    const result = await search({ query: '  add a button to a window  ' });
    expect(result.isError).toBeFalsy();
    const sent = fake.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      method: 'POST',
      path: '/search',
      body: { query: 'add a button to a window', limit: 5 },
    });
    expect(sent[0]?.headers['content-type']).toBe('application/json');
    expect(sent[0]?.body).not.toHaveProperty('generation');
  });

  it('answers with Markdown for a model and the same results as structuredContent', async () => {
    const result = await search({ query: 'addButton window', limit: 2 });
    const text = resultText(result);
    const data = result.structuredContent as unknown as SearchData;
    expect(data.count).toBe(2);
    expect(data.generation).toBeNull();
    expect(data.results.map((item) => item.rank)).toEqual([1, 2]);
    const [first] = data.results;
    expect(first).toMatchObject({
      title: 'BBjWindow::addButton',
      context_header: 'BBj Objects > BBjWindow > addButton',
      source_type: 'BASIS BBj Documentation',
      url: 'https://documentation.basis.cloud/BASISHelp/WebHelp/bbjobjects/Window/bbjwindow/bbjwindow_addbutton.htm',
      source_url: 'flare://Content/bbjobjects/Window/bbjwindow/bbjwindow_addbutton.htm',
    });
    const counts = Object.entries(data.source_type_counts ?? {})
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([type, n]) => `${type}: ${n}`)
      .join(', ');
    expect(text.split('\n')[0]).toBe(`Found 2 results for: addButton window (${counts})`);
    const blocks = text.split('\n\n---\n\n');
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toContain(
      '## Result 1: BBjWindow::addButton\n*BBj Objects > BBjWindow > addButton*\n\nBBjButton addButton(',
    );
    expect(blocks[0]).toContain(
      `\n\nSource: ${first?.url}\nSource Type: BASIS BBj Documentation\nGenerations: bbj_gui, dwc`,
    );
    expect(blocks[1]).toMatch(/^## Result 2: /);
    // The text is Markdown, not the JSON of the data.
    expect(() => JSON.parse(text)).toThrow();
  });

  it('marks deprecated results', async () => {
    const result = await search({ query: "Visual PRO/5 'WINDOW' mnemonic", generation: 'vpro5' });
    expect(resultText(result)).toContain("## Result 1: 'WINDOW' mnemonic (Visual PRO/5) [DEPRECATED]");
    const data = result.structuredContent as unknown as SearchData;
    expect(data.results[0]?.deprecated).toBe(true);
  });

  it('sends the generation as its index tag and returns only results tagged with it', async () => {
    for (const [generation, tag] of [
      ['bbj-gui', 'bbj_gui'],
      ['dwc', 'dwc'],
      ['character', 'character'],
      ['vpro5', 'vpro5'],
    ] as const) {
      const before = fake.requests.length;
      const result = await search({ query: 'window control print event', generation, limit: 50 });
      expect(fake.requests[before]?.body).toEqual({
        query: 'window control print event',
        limit: 50,
        generation: tag,
      });
      const data = result.structuredContent as unknown as SearchData;
      expect(data.generation).toBe(tag);
      expect(data.count).toBeGreaterThan(0);
      for (const item of data.results) expect(item.generations).toContain(tag);
      const lines = resultText(result)
        .split('\n')
        .filter((line) => line.startsWith('Generations: '));
      expect(lines).toHaveLength(data.count);
      for (const line of lines) expect(line.slice('Generations: '.length).split(', ')).toContain(tag);
    }
  });

  it('says "1 result", not "1 results"', async () => {
    fake.update({ shape: 'legacy' });
    const text = resultText(await search({ query: 'addButton window', limit: 1 }));
    expect(text.split('\n')[0]).toBe('Found 1 result for: addButton window');
  });

  it('sends no filter for generation "all"', async () => {
    const before = fake.requests.length;
    await search({ query: 'window', generation: 'all' });
    expect(fake.requests[before]?.body).toEqual({ query: 'window', limit: 5 });
  });

  it('reads the older response shape without display_url, source_type or counts', async () => {
    fake.update({ shape: 'legacy' });
    const result = await search({ query: 'addButton window', limit: 2 });
    const text = resultText(result);
    expect(text.split('\n')[0]).toBe('Found 2 results for: addButton window');
    expect(text).toContain(
      'Source: flare://Content/bbjobjects/Window/bbjwindow/bbjwindow_addbutton.htm\nGenerations:',
    );
    expect(text).not.toContain('Source Type:');
    const data = result.structuredContent as unknown as SearchData;
    expect(data).not.toHaveProperty('source_type_counts');
    expect(data.results[0]).not.toHaveProperty('display_url');
    expect(data.results[0]?.url).toBe(data.results[0]?.source_url);
  });

  it('says so when nothing matches', async () => {
    const result = await search({ query: 'kubernetes helm chart' });
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toBe('No results found for query: kubernetes helm chart');
    expect(result.structuredContent).toMatchObject({ count: 0, results: [] });
  });

  it('rejects bad arguments before calling the service', async () => {
    const before = fake.requests.length;
    for (const args of [
      { query: '' },
      { query: '   ' },
      { query: 'x', limit: 0 },
      { query: 'x', limit: 51 },
      { query: 'x', limit: 2.5 },
      { query: 'x', generation: 'bbj_gui' },
      { query: 'x'.repeat(1001) },
      { query: 'a\u0000b' },
      { query: 'x', extra: true },
    ]) {
      expect(errorBody(await search(args)).error_code, JSON.stringify(args).slice(0, 80)).toBe(
        'INVALID_INPUT',
      );
    }
    expect(fake.requests.length).toBe(before);
  });

  it('turns a 422 of the service into INVALID_INPUT with its reason', async () => {
    fake.update({ maxLimit: 20 });
    const body = errorBody(await search({ query: 'window', limit: 30 }));
    expect(body).toMatchObject({
      error_code: 'INVALID_INPUT',
      retryable: false,
      status: 422,
      fields: [{ field: 'limit', message: 'Input should be less than or equal to 20' }],
    });
    expect(body.message).toContain('limit: Input should be less than or equal to 20');
  });

  it('turns a 503 into a retryable UPSTREAM_UNAVAILABLE carrying the detail', async () => {
    fake.update({ embedding: 'down' });
    const body = errorBody(await search({ query: 'window' }));
    expect(body).toMatchObject({
      error_code: 'UPSTREAM_UNAVAILABLE',
      retryable: true,
      status: 503,
      detail: 'Ollama embedding failed: [Errno 111] Connection refused',
    });
    expect(body.message).toContain('Ollama embedding failed');
    expect(body.message).toContain('bbj_knowledge_status');
  });

  it('turns a 500 into UPSTREAM_ERROR', async () => {
    fake.update({ database: 'down' });
    expect(errorBody(await search({ query: 'window' }))).toMatchObject({
      error_code: 'UPSTREAM_ERROR',
      status: 500,
    });
  });

  it('names the URL and how to start the service when it is not reachable', async () => {
    const url = await closedUrl();
    const offline = await connectProvider({ apiUrl: url });
    try {
      const body = errorBody(await search({ query: 'window' }, offline.client));
      expect(body).toMatchObject({ error_code: 'UPSTREAM_UNAVAILABLE', retryable: true, api_url: url });
      expect(body.message).toContain(`BBj RAG API is not reachable at ${url}`);
      expect(body.message).toContain('docker compose up -d');
      expect(body.message).toContain('BBJ_RAG_API_URL');
    } finally {
      await offline.close();
    }
  });

  it('gives up after the request timeout', async () => {
    fake.update({ delayMs: 2_000 });
    const impatient = await connectProvider({ apiUrl: fake.url, requestTimeoutMs: 200 });
    try {
      const started = Date.now();
      const body = errorBody(await search({ query: 'window' }, impatient.client));
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(body).toMatchObject({ error_code: 'UPSTREAM_UNAVAILABLE', retryable: true, timeout_ms: 200 });
      expect(body.message).toContain('did not answer within 200 ms (POST /search)');
    } finally {
      await impatient.close();
    }
  });

  it('reports a URL that points at something else', async () => {
    const elsewhere = await connectProvider({ apiUrl: `${fake.url}/api` });
    try {
      const body = errorBody(await search({ query: 'window' }, elsewhere.client));
      expect(body).toMatchObject({ error_code: 'UPSTREAM_ERROR', status: 404, retryable: false });
      expect(body.message).toContain('BBJ_RAG_API_URL');
      expect(fake.requests.at(-1)?.path).toBe('/api/search');
    } finally {
      await elsewhere.close();
    }
  });
});
