import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake received, as recorded. */
export interface FakeRequest {
  method: string;
  /** The full request URL (with the fake's origin). */
  url: URL;
  /** The path without the query and without the fake's `basePath`, e.g. `/tickets/FOR-1`. */
  path: string;
  query: Record<string, string>;
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The body as text (`''` when there is none). */
  text: string;
  /**
   * The parsed body: an object of fields for `application/x-www-form-urlencoded`, the JSON value
   * when the text is JSON, else the text itself; `undefined` when there is no body.
   */
  body: unknown;
  /** Whether the text parsed as JSON (`false` for an empty, form or non-JSON body). */
  json: boolean;
  /**
   * The operation it asks for, when the path alone does not say: a GraphQL request's
   * `operationName` (or the name of the operation in its `query`), a JSON-RPC request's `method`.
   * See `FakeServerOptions.operation`.
   */
  operation?: string;
  /** The status the fake answered (0 until it answered). */
  status: number;
  /** When it arrived (ms since the epoch). */
  at: number;
  /** The caller's address, e.g. `127.0.0.1`. */
  address: string;
}

/** What a route answers. A string body is sent as is; anything else as JSON. */
export interface FakeReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * A route or fallback handler. It returns the reply, or writes the answer on `response` itself
 * (a redirect, a 304, a stream) and returns nothing.
 */
export type FakeHandler = (
  request: FakeRequest,
  response: ServerResponse,
) => FakeReply | undefined | Promise<FakeReply | undefined>;

export interface FakeRoute {
  /** The method it answers; default any. */
  method?: string;
  /** The exact path, or a pattern whose groups reach the handler as `params`; default any path. */
  path?: string | RegExp;
  /** The operation it answers (`FakeRequest.operation`: a GraphQL operation, a JSON-RPC method); default any. */
  operation?: string | RegExp;
  handle: (request: FakeRequest, params: string[], response: ServerResponse) => ReturnType<FakeHandler>;
}

/** A failure injected with `fail()`: it answers matching requests before any route sees them. */
export interface FakeFault {
  method?: string;
  /** The path (as in `FakeRequest.path`) or a pattern; default any path. */
  path?: string | RegExp;
  /**
   * The operation (as in `FakeRequest.operation`) or a pattern; default any. Fails one GraphQL
   * operation or JSON-RPC method while the others on the same path keep working.
   */
  operation?: string | RegExp;
  /**
   * The status to answer with. Default 500; ignored with `reset`. An error inside a success
   * (GraphQL's `errors` in a 200) is `status: 200` with that `body`.
   */
  status?: number;
  headers?: Record<string, string>;
  /** The body: a string as is, anything else as JSON. Default empty. */
  body?: unknown;
  /** Wait this long before answering (or resetting). */
  delayMs?: number;
  /** Drop the connection without an answer (the client sees a network error). */
  reset?: boolean;
  /** How many matching requests it answers: default 1, `Infinity` for always. */
  times?: number;
}

export interface FakeServerOptions {
  /** Tried in order; the first whose method and path match answers. */
  routes?: readonly FakeRoute[];
  /** Answers what no route matches. Default: 404 `{ "error": "Not Found" }`. */
  fallback?: FakeHandler;
  /** Stripped from the start of `FakeRequest.path` (e.g. `/api`); routes and faults see the rest. */
  basePath?: string;
  /** Wait before every answer (a slow upstream); change it later with `setLatency`. */
  latencyMs?: number;
  /** Keep only the latest N requests (a long `--sandbox` session stays small). Default: all. */
  maxRecorded?: number;
  /**
   * Decides whether a request is recorded (default: every request). Runs before the faults and
   * routes, which see every request either way.
   */
  record?: (request: FakeRequest) => boolean;
  /** The answer when a handler throws. Default: 500 `{ "error": message }`. */
  onError?: (error: unknown, request: FakeRequest) => FakeReply;
  /** Headers added to every reply the fake builds (not to what handlers write themselves). */
  headers?: Record<string, string>;
  /**
   * How a request's `operation` is found, for routes and faults keyed by operation. Default
   * `requestOperation`: a GraphQL operation name, else a JSON-RPC method.
   */
  operation?: (request: FakeRequest) => string | undefined;
}

export interface FakeServer {
  /** The origin, e.g. `http://127.0.0.1:43123` (without `basePath`). */
  url: string;
  port: number;
  /** The recorded requests, oldest first. */
  requests: FakeRequest[];
  /** Injects a failure for the next matching request(s). */
  fail(fault: FakeFault): void;
  /** Removes every injected failure that has not fired yet. */
  clearFaults(): void;
  setLatency(ms: number): void;
  /** Clears the request log. */
  resetLog(): void;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

const FORM = 'application/x-www-form-urlencoded';

/**
 * Starts a fake upstream on 127.0.0.1 (a free port): it records every request with its parsed
 * body, answers injected faults first, then the route table, then the fallback. The shared
 * plumbing of every provider's `./testing` fake, which keeps only its routes and state.
 */
export async function startFakeServer(options: FakeServerOptions = {}): Promise<FakeServer> {
  const routes = options.routes ?? [];
  const faults: (FakeFault & { remaining: number })[] = [];
  const requests: FakeRequest[] = [];
  let latencyMs = options.latencyMs ?? 0;
  let origin = '';
  // Ends pending waits on close, so a slow fake never holds the process open.
  const closing = new AbortController();

  const server = createServer((incoming, response) => {
    void answer(incoming, response).catch(() => {
      if (!response.headersSent) send(response, 500, { error: 'Internal Server Error' });
      else response.destroy();
    });
  });

  async function answer(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const request = await readRequest(incoming, origin, options.basePath);
    const operation = (options.operation ?? requestOperation)(request);
    if (operation !== undefined) request.operation = operation;
    const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse;
    response.writeHead = ((status: number, ...rest: unknown[]) => {
      request.status = status;
      return writeHead(status, ...rest);
    }) as ServerResponse['writeHead'];
    if (options.record?.(request) ?? true) {
      requests.push(request);
      if (options.maxRecorded !== undefined && requests.length > options.maxRecorded) {
        requests.splice(0, requests.length - options.maxRecorded);
      }
    }
    if (latencyMs > 0) await delay(latencyMs, closing.signal);
    if (response.destroyed) return;

    const fault = faults.find((candidate) => matches(candidate, request));
    if (fault) {
      fault.remaining--;
      if (fault.remaining <= 0) faults.splice(faults.indexOf(fault), 1);
      if (fault.delayMs) await delay(fault.delayMs, closing.signal);
      if (response.destroyed) return;
      if (fault.reset) {
        request.status = 0;
        response.socket?.resetAndDestroy?.() ?? response.destroy();
        return;
      }
      send(response, fault.status ?? 500, fault.body, fault.headers);
      return;
    }

    let reply: FakeReply | undefined;
    try {
      reply = await route(request, response);
    } catch (error) {
      if (response.headersSent) {
        response.end();
        return;
      }
      reply = options.onError?.(error, request) ?? {
        status: 500,
        body: { error: error instanceof Error ? error.message : String(error) },
      };
    }
    if (reply && !response.headersSent && !response.destroyed) {
      send(response, reply.status, reply.body, { ...options.headers, ...reply.headers });
    }
  }

  async function route(request: FakeRequest, response: ServerResponse): Promise<FakeReply | undefined> {
    for (const candidate of routes) {
      if (candidate.method !== undefined && candidate.method !== request.method) continue;
      if (!nameMatches(candidate.operation, request.operation)) continue;
      if (candidate.path === undefined) return candidate.handle(request, [], response);
      if (typeof candidate.path === 'string') {
        if (candidate.path === request.path) return candidate.handle(request, [], response);
        continue;
      }
      const found = candidate.path.exec(request.path);
      if (found) return candidate.handle(request, found.slice(1), response);
    }
    if (options.fallback) return options.fallback(request, response);
    return { status: 404, body: { error: 'Not Found' } };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;

  return {
    url: origin,
    port,
    requests,
    fail(fault) {
      faults.push({ ...fault, remaining: fault.times ?? 1 });
    },
    clearFaults() {
      faults.length = 0;
    },
    setLatency(ms) {
      latencyMs = ms;
    },
    resetLog() {
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function matches(fault: FakeFault, request: FakeRequest): boolean {
  if (fault.method !== undefined && fault.method !== request.method) return false;
  if (!nameMatches(fault.operation, request.operation)) return false;
  if (fault.path === undefined) return true;
  return typeof fault.path === 'string' ? fault.path === request.path : fault.path.test(request.path);
}

/** Whether a route's or fault's `operation` takes the request's; none takes any request. */
function nameMatches(wanted: string | RegExp | undefined, operation: string | undefined): boolean {
  if (wanted === undefined) return true;
  if (operation === undefined) return false;
  return typeof wanted === 'string' ? wanted === operation : wanted.test(operation);
}

/** `query Issues(...) {`, `mutation IssueCreate {`: the name of the first named operation. */
const OPERATION_NAME = /^\s*(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/m;

/**
 * The operation of a request, the default of `FakeServerOptions.operation`: a GraphQL request's
 * `operationName` (in the JSON body, or the query string of a GET), else the name of the operation
 * its `query` document declares; a JSON-RPC 2.0 request's `method`. `undefined` for anything else
 * (a REST request, a batch, an anonymous GraphQL query).
 */
export function requestOperation(request: Pick<FakeRequest, 'body' | 'query'>): string | undefined {
  const body = request.body;
  const fields: Record<string, unknown> =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : request.query;
  if (fields.jsonrpc === '2.0' && typeof fields.method === 'string') return fields.method;
  if (typeof fields.operationName === 'string' && fields.operationName) return fields.operationName;
  if (typeof fields.query === 'string') return OPERATION_NAME.exec(fields.query)?.[1];
  return undefined;
}

async function readRequest(
  incoming: IncomingMessage,
  origin: string,
  basePath: string | undefined,
): Promise<FakeRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const url = new URL(incoming.url ?? '/', origin);
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(incoming.headers)) {
    if (value !== undefined) headers[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  let path = url.pathname;
  if (basePath && (path === basePath || path.startsWith(`${basePath}/`))) {
    path = path.slice(basePath.length) || '/';
  }
  return {
    method: incoming.method ?? 'GET',
    url,
    path,
    query: Object.fromEntries(url.searchParams),
    headers,
    text,
    ...parseBody(text, headers['content-type']),
    status: 0,
    at: Date.now(),
    address: incoming.socket.remoteAddress ?? '',
  };
}

/** The body of a request: form fields, a JSON value, or the text; `undefined` when empty. */
export function parseBody(text: string, contentType: string | undefined): { body: unknown; json: boolean } {
  if (text === '') return { body: undefined, json: false };
  if ((contentType ?? '').toLowerCase().includes(FORM)) {
    return { body: Object.fromEntries(new URLSearchParams(text)), json: false };
  }
  try {
    return { body: JSON.parse(text), json: true };
  } catch {
    return { body: text, json: false };
  }
}

/** Writes one answer: no body for 204/304 or `undefined`, a string as is, anything else as JSON. */
export function send(
  response: ServerResponse,
  status: number,
  body?: unknown,
  headers: Record<string, string> = {},
): void {
  if (status === 204 || status === 304 || body === undefined) {
    response.writeHead(status, headers);
    response.end();
    return;
  }
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(text);
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
