import { type FakeReply, type FakeRequest, startFakeServer } from '@x/mcp-core/testing/fake-server';
import { type FakeChunk, SAMPLE_CORPUS } from './corpus.js';

export type BackendState = 'up' | 'down';

const MAX_RECORDED = 1000;

export interface FakeBbjRagOptions {
  /**
   * `current` (default) sends `display_url`, `source_type` and `source_type_counts`;
   * `legacy` answers like the service did before they existed.
   */
  shape?: 'current' | 'legacy';
  /** The indexed chunks. Default: {@link SAMPLE_CORPUS}; `[]` is an empty index. */
  corpus?: readonly FakeChunk[];
  /** The embedding backend (Ollama). Down: `/search` answers 503, health is degraded. */
  embedding?: BackendState;
  /** The database. Down: `/stats` answers 503, `/search` fails with 500, health is degraded. */
  database?: BackendState;
  /** The largest `limit` the service accepts (50 upstream); lower it to imitate a stricter deployment. */
  maxLimit?: number;
  /** Milliseconds to wait before every answer (for timeout tests). */
  delayMs?: number;
}

/**
 * A request the fake received: `method`, `path`, `headers` and the parsed `body` (the JSON value,
 * the raw text when it is not JSON, or undefined when empty): the shared record of `@x/mcp-core/testing`.
 */
export type RecordedRequest = FakeRequest;

export interface FakeBbjRag {
  /** Base URL, e.g. `http://127.0.0.1:43123`. */
  url: string;
  /** The requests received, oldest first: the latest 1,000, so a long sandbox session stays small. */
  requests: RecordedRequest[];
  /** Changes the behaviour of later requests. */
  update(options: FakeBbjRagOptions): void;
  close(): Promise<void>;
}

interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/**
 * A faithful local fake of the BBj RAG REST service (FastAPI): real HTTP on 127.0.0.1 with
 * the service's routes, status codes and bodies, including FastAPI's 422 validation bodies,
 * the 503 of a failed embedding, and `/health` answering 503 when not healthy. Ranking is
 * lexical (there is no embedding model); the generation filter, the `bbj-gui` → `bbj_gui`
 * mapping and the response shapes follow the service.
 */
export async function startFakeBbjRag(options: FakeBbjRagOptions = {}): Promise<FakeBbjRag> {
  const state = {
    shape: options.shape ?? 'current',
    corpus: options.corpus ?? SAMPLE_CORPUS,
    embedding: options.embedding ?? 'up',
    database: options.database ?? 'up',
    maxLimit: options.maxLimit ?? 50,
    delayMs: options.delayMs ?? 0,
  };
  const server = await startFakeServer({
    latencyMs: state.delayMs,
    maxRecorded: MAX_RECORDED,
    routes: [
      { method: 'GET', path: '/health', handle: () => health() },
      { method: 'GET', path: '/stats', handle: () => stats() },
      { method: 'POST', path: '/search', handle: (request) => search(request.text) },
    ],
    // FastAPI: 405 with `Allow` for a known path and another method, else 404.
    fallback: (request) => {
      const allowed = ROUTES[request.path];
      if (allowed === undefined) return json(404, { detail: 'Not Found' });
      const reply = json(405, { detail: 'Method Not Allowed' });
      return { ...reply, headers: { ...reply.headers, allow: allowed } };
    },
    onError: () => send(500, 'Internal Server Error', 'text/plain; charset=utf-8'),
  });

  function health(): FakeReply {
    const checks = {
      database:
        state.database === 'up'
          ? 'ok'
          : 'error: connection failed: connection to server at "127.0.0.1", port 5432 failed: Connection refused',
      ollama: state.embedding === 'up' ? 'ok' : 'error: [Errno 111] Connection refused',
    };
    const ok = Object.values(checks).filter((value) => value === 'ok').length;
    const status = ok === 2 ? 'healthy' : ok > 0 ? 'degraded' : 'unhealthy';
    return json(status === 'healthy' ? 200 : 503, { status, checks });
  }

  function stats(): FakeReply {
    if (state.database === 'down') {
      return json(503, {
        detail: "Database query failed: couldn't get a connection after 30.00 sec",
      });
    }
    return json(200, {
      total_chunks: state.corpus.length,
      by_source: countBy(state.corpus.map((chunk) => chunk.doc_type)),
      by_generation: countBy(state.corpus.flatMap((chunk) => chunk.generations)),
    });
  }

  function search(raw: string): FakeReply {
    const parsed = parseSearchRequest(raw, state.maxLimit);
    if ('issues' in parsed) {
      return json(422, { detail: parsed.issues });
    }
    const { query, generation, limit } = parsed;
    // Like the service, a database failure surfaces as an unhandled error before the search runs.
    if (state.database === 'down') {
      return send(500, 'Internal Server Error', 'text/plain; charset=utf-8');
    }
    if (state.embedding === 'down') {
      return json(503, { detail: 'Ollama embedding failed: [Errno 111] Connection refused' });
    }
    // PostgreSQL rejects NUL in text, and the service does not catch it.
    if (query.includes('\u0000')) {
      return send(500, 'Internal Server Error', 'text/plain; charset=utf-8');
    }
    // The service maps `bbj-gui` to `bbj_gui`; an empty filter is no filter.
    const filter = generation ? generation.replaceAll('-', '_') : undefined;
    const ranked = rank(state.corpus, query, filter).slice(0, limit);
    const results = ranked.map(({ chunk }, index) => {
      const base = {
        content: chunk.content,
        title: chunk.title,
        source_url: chunk.source_url,
        doc_type: chunk.doc_type,
        generations: [...chunk.generations],
        context_header: chunk.context_header,
        deprecated: chunk.deprecated,
      };
      // Reciprocal rank fusion of the dense and keyword rankings (k = 50), both agreeing here.
      const score = Number((2 / (50 + index + 1)).toFixed(6));
      return state.shape === 'legacy'
        ? { ...base, score }
        : { ...base, display_url: chunk.display_url, source_type: chunk.source_type, score };
    });
    const answer: Record<string, unknown> = { query, results, count: results.length };
    if (state.shape === 'current') {
      answer.source_type_counts = countBy(
        ranked.map(({ chunk }) => chunk.source_type),
        false,
      );
    }
    return json(200, answer);
  }

  return {
    url: server.url,
    requests: server.requests,
    update(changes) {
      for (const [key, value] of Object.entries(changes)) {
        if (value !== undefined) (state as Record<string, unknown>)[key] = value;
      }
      server.setLatency(state.delayMs);
    },
    close: () => server.close(),
  };
}

/** FastAPI + pydantic v2 validation of `SearchRequest`, with the same error bodies. */
export function parseSearchRequest(
  raw: string,
  maxLimit = 50,
): { query: string; generation: string | null; limit: number } | { issues: ValidationIssue[] } {
  if (raw.trim() === '') {
    return { issues: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }] };
  }
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch (error) {
    return {
      issues: [
        {
          type: 'json_invalid',
          loc: ['body', jsonErrorPosition(error)],
          msg: 'JSON decode error',
          input: {},
          ctx: { error: 'Expecting value' },
        },
      ],
    };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return {
      issues: [
        {
          type: 'model_attributes_type',
          loc: ['body'],
          msg: 'Input should be a valid dictionary or object to extract fields from',
          input: body,
        },
      ],
    };
  }
  const fields = body as Record<string, unknown>;
  const issues: ValidationIssue[] = [];

  let query = '';
  if (!('query' in fields)) {
    issues.push({ type: 'missing', loc: ['body', 'query'], msg: 'Field required', input: body });
  } else if (typeof fields.query !== 'string') {
    issues.push({
      type: 'string_type',
      loc: ['body', 'query'],
      msg: 'Input should be a valid string',
      input: fields.query,
    });
  } else if (fields.query.length < 1) {
    issues.push({
      type: 'string_too_short',
      loc: ['body', 'query'],
      msg: 'String should have at least 1 character',
      input: fields.query,
      ctx: { min_length: 1 },
    });
  } else {
    query = fields.query;
  }

  let generation: string | null = null;
  if (fields.generation !== undefined && fields.generation !== null) {
    if (typeof fields.generation === 'string') generation = fields.generation;
    else
      issues.push({
        type: 'string_type',
        loc: ['body', 'generation'],
        msg: 'Input should be a valid string',
        input: fields.generation,
      });
  }

  let limit = 10;
  if ('limit' in fields) {
    const value = fields.limit;
    const loc = ['body', 'limit'];
    let number: number | undefined;
    // pydantic's lax mode: integral floats, numeric strings and booleans become ints.
    if (typeof value === 'boolean') number = value ? 1 : 0;
    else if (typeof value === 'number') {
      if (Number.isInteger(value)) number = value;
      else
        issues.push({
          type: 'int_from_float',
          loc,
          msg: 'Input should be a valid integer, got a number with a fractional part',
          input: value,
        });
    } else if (typeof value === 'string') {
      if (/^\s*[+-]?\d+\s*$/.test(value)) number = Number(value);
      else
        issues.push({
          type: 'int_parsing',
          loc,
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          input: value,
        });
    } else {
      issues.push({ type: 'int_type', loc, msg: 'Input should be a valid integer', input: value });
    }
    if (number !== undefined) {
      if (number < 1)
        issues.push({
          type: 'greater_than_equal',
          loc,
          msg: 'Input should be greater than or equal to 1',
          input: value,
          ctx: { ge: 1 },
        });
      else if (number > maxLimit)
        issues.push({
          type: 'less_than_equal',
          loc,
          msg: `Input should be less than or equal to ${maxLimit}`,
          input: value,
          ctx: { le: maxLimit },
        });
      else limit = number;
    }
  }
  if (issues.length > 0) return { issues };
  return { query, generation, limit };
}

/** Lexical ranking: title and context header weigh more than body text. */
function rank(corpus: readonly FakeChunk[], query: string, filter: string | undefined) {
  const terms = [...new Set(query.toLowerCase().match(/[a-z0-9_$]+/g) ?? [])].filter(
    (term) => term.length > 1,
  );
  return corpus
    .map((chunk, position) => ({ chunk, position, score: score(chunk, terms) }))
    .filter(({ chunk, score }) => score > 0 && (filter === undefined || chunk.generations.includes(filter)))
    .sort((a, b) => b.score - a.score || a.position - b.position);
}

function score(chunk: FakeChunk, terms: readonly string[]): number {
  const title = chunk.title.toLowerCase();
  const header = chunk.context_header.toLowerCase();
  const content = chunk.content.toLowerCase();
  let total = 0;
  for (const term of terms) {
    total += 3 * occurrences(title, term) + 2 * occurrences(header, term) + occurrences(content, term);
  }
  return total;
}

function occurrences(text: string, term: string): number {
  let count = 0;
  for (let index = text.indexOf(term); index !== -1; index = text.indexOf(term, index + term.length)) count++;
  return count;
}

/** Counts per key; by default ordered by count, descending, as the service's GROUP BY ... ORDER BY does. */
function countBy(keys: readonly string[], byCount = true): Record<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  const entries = [...counts];
  if (byCount) entries.sort((a, b) => b[1] - a[1]);
  return Object.fromEntries(entries);
}

function jsonErrorPosition(error: unknown): number {
  const match = /position (\d+)/.exec(error instanceof Error ? error.message : '');
  return match ? Number(match[1]) : 0;
}

const ROUTES: Record<string, string> = { '/search': 'POST', '/health': 'GET', '/stats': 'GET' };

function json(status: number, body: unknown): FakeReply {
  return send(status, JSON.stringify(body), 'application/json');
}

function send(status: number, text: string, contentType: string): FakeReply {
  return {
    status,
    body: text,
    headers: {
      server: 'uvicorn',
      'content-type': contentType,
      'content-length': String(Buffer.byteLength(text)),
    },
  };
}
