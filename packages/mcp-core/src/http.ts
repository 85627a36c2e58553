import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AuthInfo,
  createMcpHandler,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  validateHostHeader,
  validateOriginHeader,
} from '@modelcontextprotocol/server';
import { RegistryView, type ToolAccess } from './access.js';
import { ConfigError, McpToolError } from './errors.js';
import { createLogger, type Logger, logFormatFromEnv, setLogContext } from './logger.js';
import { isLoopbackHost } from './loopback.js';
import { callContext, type ToolSource, toRegistry } from './mount.js';
import {
  NarrowingSyntaxError,
  narrowingAccesses,
  parseNarrowedPath,
  parseNarrowingHeaders,
  READONLY_HEADER,
  type RequestedNarrowing,
  TOOLS_HEADER,
  TOOLSETS_HEADER,
} from './narrowing.js';
import { toolCallLog } from './observability/call-log.js';
import { observe } from './observability/events.js';
import { Gauge, METRICS_CONTENT_TYPE, ServerMetrics } from './observability/metrics.js';
import {
  hashUserId,
  type RequestLogContext,
  requestContext,
  requestIdFrom,
  userHashKey,
} from './observability/request-context.js';
import type { RegistryReadiness, ToolRegistry } from './registry.js';
import { requestTarget } from './request-target.js';
import { createMcpServer } from './server.js';
import { CALL_TOOL, type Surface } from './surface/search.js';
import { TaskHost } from './tasks.js';
import type { RequestInfo } from './tool.js';

export interface ServeHttpOptions {
  name: string;
  version: string;
  instructions?: string;
  /**
   * What to serve. A `RegistryView` is served under its accesses on every request (e.g. the
   * operator's `--toolsets`), next to each connection's own narrowing: `<path>/x/<toolsets>`,
   * `<path>/x/<toolsets>/readonly`, `<path>/readonly` and the `X-MCP-Toolsets`, `X-MCP-Tools`
   * and `X-MCP-Readonly` headers narrow what a connection sees, never widen it; an unknown
   * toolset or tool is a 400 naming the valid ones.
   */
  registry: ToolSource;
  /**
   * `search`: every connection gets `search_tools`, `describe_tool` and `call_tool` instead of
   * the tools. With the default `list`, a connection asks for it with `/search` at the end of
   * its path (`<path>/search`, `<path>/x/<toolsets>[/readonly]/search`).
   */
  surface?: Surface;
  /** Ask the person to confirm destructive calls when the client can: see `MountOptions.confirm`. Default `true`. */
  confirm?: boolean;
  /**
   * Where the tasks of tools that declare `task` live. Default: in this process's memory; pass
   * a host over a shared store (e.g. `@x/mcp-hosted`'s) so that any replica answers a task's
   * polls and cancellation.
   */
  tasks?: TaskHost;
  /**
   * Signs the `requestState` that carries a call's earlier answers between 2026-07-28 rounds:
   * see `CreateMcpServerOptions.requestStateKey`. Give every replica the same one. Default:
   * with `token`, a key derived from it (so replicas that share the token share the key);
   * otherwise one random to this process.
   */
  requestStateKey?: string;
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default `/mcp`. */
  path?: string;
  /** When set, every MCP request needs `Authorization: Bearer <token>`. Required beyond loopback. */
  token?: string;
  /** Listen beyond loopback without a token. Only for a trusted network behind your own auth. */
  allowUnauthenticated?: boolean;
  /** Extra `Host` header names to accept (e.g. your public hostname). Loopback names are always accepted. */
  allowedHosts?: readonly string[];
  /** Extra `Origin` host names to accept. Loopback origins are always accepted. */
  allowedOrigins?: readonly string[];
  /**
   * An auth strategy in place of `token` (e.g. OAuth for many users): it may serve routes of its
   * own, and decides on every MCP request.
   */
  auth?: HttpAuth;
  /** Largest request body in bytes; larger ones get 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Socket timeouts in milliseconds (`MCP_HTTP_HEADERS_TIMEOUT`, `MCP_HTTP_REQUEST_TIMEOUT`,
   * `MCP_HTTP_KEEPALIVE_TIMEOUT` in `runBin`): a client that has not sent all its headers after
   * `headersMs`, or its whole request after `requestMs`, is disconnected (slow-header floods);
   * an idle keep-alive connection is closed after `keepAliveMs` (keep it above your load
   * balancer's idle timeout). Defaults 10 s, 30 s, 5 s. `requestMs` covers receiving the request
   * only, never a long answer.
   */
  timeouts?: HttpTimeouts;
  logger?: Logger;
  /**
   * Prometheus metrics at `/metrics` (tool calls by tool and outcome, their durations, upstream
   * requests by service, method and status class). `{ token }` requires `Authorization: Bearer
   * <token>` there (a token of its own, so a scraper never holds one that can call tools);
   * `true` serves them without one, which is allowed on loopback only. Default: off.
   */
  metrics?: boolean | { token: string };
  /**
   * OpenTelemetry spans per tool call and upstream request, exported over OTLP/HTTP to the
   * standard `OTEL_EXPORTER_OTLP_*` settings. Needs the optional `@opentelemetry/*` peers.
   * Default: on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `..._TRACES_ENDPOINT`) is set.
   */
  tracing?: boolean;
  /**
   * One log line per tool call (tool, outcome, duration), and on every line written while a
   * request is served its request id (`X-Request-Id` when the caller sent a plain one) and a
   * keyed hash of the user id. Default: on with `MCP_LOG_FORMAT=json`.
   */
  requestLog?: boolean;
  /** More gauges for `/metrics`, read at each scrape. Names must be unique `snake_case`. */
  gauges?: readonly MetricGauge[];
  /** Fields `/healthz` adds to its answer (e.g. `{ sandbox: true }` on a server against fakes). */
  health?: Readonly<Record<string, unknown>>;
  /** The key that hashes user ids in logs. Default: `MCP_LOG_USER_KEY`, else random per process. */
  userHashKey?: string | Uint8Array;
}

export interface HttpTimeouts {
  headersMs?: number;
  requestMs?: number;
  keepAliveMs?: number;
}

/** A value read at each scrape of `/metrics`. */
export interface MetricGauge {
  name: string;
  help: string;
  read(): number;
}

/** How `serveHttp` authenticates MCP requests when a static `token` is not enough. */
export interface HttpAuth {
  /**
   * Routes of its own (an authorization server, metadata, callbacks), tried before the MCP
   * endpoint and after `/healthz` and `/readyz`; resolves `true` when it answered the request.
   */
  handle?(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** The caller of one MCP request, or the answer to send instead (401, 403, 503). */
  authenticate(request: Request): Promise<AuthInfo | Response>;
  /** The tools this caller sees; default: the `registry` option. */
  registryFor?(auth: AuthInfo): Promise<ToolRegistry>;
  /**
   * What `/healthz` reports as `tools` when callers get registries of their own: the number a
   * caller gets without narrowing (asked at each `/healthz`; cache it). Default: the `registry` option's.
   */
  toolCount?(): Promise<number>;
  /** The narrowings this caller's request is served under (scopes, policy), next to the URL's. */
  accessFor?(auth: AuthInfo, request: Request): readonly ToolAccess[] | Promise<readonly ToolAccess[]>;
}

export interface HttpHandle {
  /** The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  url: string;
  port: number;
  host: string;
  server: Server;
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const DEFAULT_HTTP_TIMEOUTS: Required<HttpTimeouts> = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
};
const READINESS_TTL_MS = 5_000;

/**
 * Stateless Streamable HTTP. Each request is served by a fresh server instance, so any
 * replica can answer any request. Every path first passes the Host and Origin checks (DNS
 * rebinding). `/healthz` (liveness) and `/readyz` (every provider's readiness check; 503 when
 * one fails) need no token. Guards for the MCP endpoint after that, in order: path, bearer
 * token, body size; then the SDK handles the MCP exchange.
 */
export async function serveHttp(options: ServeHttpOptions): Promise<HttpHandle> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const logger = options.logger ?? createLogger(options.name);
  const loopback = isLoopbackHost(host);
  if (options.auth && options.token) {
    throw new ConfigError('Pass either the `token` option or an auth strategy (`auth`), not both.');
  }
  if (!loopback && !options.token && !options.auth && !options.allowUnauthenticated) {
    throw new ConfigError(
      `Refusing to listen on ${host} without a bearer token: anyone who can reach it could call the tools. Pass the \`token\` option, listen on 127.0.0.1, or set \`allowUnauthenticated: true\` (only on a trusted network behind your own authentication).`,
    );
  }
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes <= 0) {
    throw new ConfigError(`maxBodyBytes must be a positive integer, got ${maxBodyBytes}.`);
  }
  const timeouts = { ...DEFAULT_HTTP_TIMEOUTS, ...options.timeouts };
  for (const [name, value] of Object.entries(timeouts)) {
    if (!Number.isInteger(value) || value <= 0) {
      throw new ConfigError(
        `timeouts.${name} must be a positive whole number of milliseconds, got ${value}.`,
      );
    }
  }
  if (timeouts.headersMs > timeouts.requestMs) {
    throw new ConfigError(
      `The headers timeout (${timeouts.headersMs} ms) must not exceed the request timeout (${timeouts.requestMs} ms).`,
    );
  }
  const metricsToken = typeof options.metrics === 'object' ? options.metrics.token : undefined;
  if (typeof options.metrics === 'object' && !metricsToken) {
    throw new ConfigError(
      'metrics.token must not be empty; pass `metrics: true` to serve /metrics without one.',
    );
  }
  if (options.metrics === true && !loopback) {
    throw new ConfigError(
      `Refusing to serve /metrics on ${host} without a token: pass \`metrics: { token }\` (MCP_METRICS_TOKEN), or listen on 127.0.0.1.`,
    );
  }
  for (const gauge of options.gauges ?? []) {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(gauge.name)) {
      throw new ConfigError(`Gauge name "${gauge.name}" is not a Prometheus metric name.`);
    }
  }
  const registry = toRegistry(options.registry);
  // A RegistryView serves every request under its accesses (e.g. the operator's --toolsets).
  const always = options.registry instanceof RegistryView ? options.registry.accesses : NO_ACCESS;
  const toolCount = registry.toMcpTools().length;
  const auth = options.auth;
  // What the server of one request is built for, found before the SDK sees the request and handed
  // to its per-request factory through the async context of that request: a narrowed request's
  // view (a challenge needs it first) and surface, and the tool a `tools/call` calls (only it is
  // mounted).
  const tasks = options.tasks ?? new TaskHost();
  const served = new AsyncLocalStorage<{ view?: RegistryView; surface?: Surface; tool?: string }>();
  const handler = createMcpHandler(
    async ({ authInfo }) => {
      const scope = served.getStore();
      const surface = scope?.surface ?? options.surface;
      return createMcpServer({
        name: options.name,
        version: options.version,
        ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
        registry:
          scope?.view ??
          (authInfo && auth?.registryFor ? await userRegistry(auth.registryFor, authInfo) : registry),
        transport: 'http',
        ...(surface ? { surface } : {}),
        ...(scope?.tool === undefined ? {} : { only: scope.tool }),
        ...(options.confirm === false ? { confirm: false } : {}),
        ...(requestStateKey === undefined ? {} : { requestStateKey }),
        tasks,
      });
    },
    { maxRequestBodySize: maxBodyBytes, onerror: (error) => logger.debug('request rejected', { error }) },
  );
  // The SDK answers a failed factory with a bare -32603 and reports it only to `onerror` (debug):
  // a caller's tools that cannot be built is the operator's problem, so it is logged as one.
  async function userRegistry(build: NonNullable<HttpAuth['registryFor']>, authInfo: AuthInfo) {
    try {
      return await build(authInfo);
    } catch (error) {
      logger.error("building the caller's tools failed", { error });
      throw error;
    }
  }
  // Beyond loopback with a token, any Host is fine unless the operator pinned names.
  const allowedHosts =
    loopback || options.allowedHosts?.length
      ? [...localhostAllowedHostnames(), ...(options.allowedHosts ?? [])]
      : undefined;
  const allowedOrigins = [...localhostAllowedOrigins(), ...(options.allowedOrigins ?? [])];
  const expectedToken = options.token ? digest(options.token) : undefined;
  // Replicas behind one static token take a retry's carried answers from each other.
  const requestStateKey =
    options.requestStateKey ??
    (options.token
      ? createHmac('sha256', 'x-mcp request state').update(options.token).digest('base64url')
      : undefined);
  // Load balancers poll often; upstream checks run at most once per READINESS_TTL_MS.
  let lastReadiness: { at: number; result: Promise<RegistryReadiness> } | undefined;
  const readiness = (): Promise<RegistryReadiness> => {
    if (!lastReadiness || Date.now() - lastReadiness.at > READINESS_TTL_MS) {
      lastReadiness = { at: Date.now(), result: registry.readiness() };
    }
    return lastReadiness.result;
  };

  // Observers are per process (like the metrics a scrape sees); each is removed on close.
  const unsubscribe: Array<() => void> = [];
  const metrics = options.metrics
    ? new ServerMetrics(
        (options.gauges ?? []).map((gauge) => new Gauge(gauge.name, gauge.help, () => gauge.read())),
      )
    : undefined;
  if (metrics) unsubscribe.push(observe(metrics.observer));
  const expectedMetricsToken = metricsToken ? digest(metricsToken) : undefined;
  const requestLog = options.requestLog ?? logFormatFromEnv() === 'json';
  const hashKey = requestLog ? (options.userHashKey ?? userHashKey()) : undefined;
  // A user's pseudonym is the same on every request: an HMAC once per user, not per request.
  const pseudonyms = new Map<string, string>();
  const pseudonym = (userId: string): string => {
    let hashed = pseudonyms.get(userId);
    if (hashed === undefined) {
      if (pseudonyms.size >= 10_000) pseudonyms.clear();
      hashed = hashUserId(userId, hashKey as string);
      pseudonyms.set(userId, hashed);
    }
    return hashed;
  };
  let previousLogContext: ReturnType<typeof setLogContext> | undefined;
  if (requestLog) {
    previousLogContext = setLogContext(() => requestContext.getStore());
    unsubscribe.push(observe(toolCallLog(logger.child('calls'))));
  }
  const tracing =
    (options.tracing ?? tracingRequested())
      ? await (await import('./observability/tracing.js')).startTracing({
          serviceName: options.name,
          serviceVersion: options.version,
          logger,
        })
      : undefined;
  if (tracing) unsubscribe.push(observe(tracing.observer));

  const serve = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      logger.error('HTTP request failed', { error });
      if (!res.headersSent) sendJson(res, 500, jsonRpcError(-32603, 'Internal server error'));
      else res.destroy();
    });
  };
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      // Node checks the two timeouts every 30 s by default, which would let a slow-header
      // socket live that much longer than its timeout.
      connectionsCheckingInterval: Math.min(1_000, Math.max(10, Math.floor(timeouts.headersMs / 4))),
    },
    // An auth strategy (many users) always gets request ids: its audit log records them.
    requestLog || auth
      ? (req, res) => {
          const context: RequestLogContext = { request_id: requestIdFrom(req.headers['x-request-id']) };
          res.setHeader('x-request-id', context.request_id);
          requestContext.run(context, serve, req, res);
        }
      : serve,
  );

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Every path, the probes included: a DNS-rebinding page must not read /readyz either.
    const hostCheck = allowedHosts ? validateHostHeader(req.headers.host, allowedHosts) : undefined;
    const originCheck = validateOriginHeader(req.headers.origin, allowedOrigins);
    const rejected = hostCheck?.ok === false ? hostCheck : originCheck.ok === false ? originCheck : undefined;
    if (rejected) {
      sendJson(res, 403, jsonRpcError(-32000, `Forbidden: ${rejected.message}`));
      return;
    }
    // Origin-form targets only: `//`, an absolute-form `http://h/mcp` or `*` address nothing here.
    const url = requestTarget(req.url);
    if (!url) {
      sendJson(res, 404, jsonRpcError(-32000, `Not found. The MCP endpoint is ${path}.`));
      return;
    }
    if (url.pathname === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
      const tools = auth?.toolCount ? await auth.toolCount() : toolCount;
      sendJson(res, 200, {
        status: 'ok',
        name: options.name,
        version: options.version,
        tools,
        ...options.health,
      });
      return;
    }
    if (url.pathname === '/readyz' && (req.method === 'GET' || req.method === 'HEAD')) {
      const report = await readiness();
      const status = report.ready ? (report.unavailable.length > 0 ? 'degraded' : 'ready') : 'not ready';
      sendJson(res, report.ready ? 200 : 503, { status, ...report });
      return;
    }
    if (url.pathname === '/metrics' && metrics && (req.method === 'GET' || req.method === 'HEAD')) {
      if (expectedMetricsToken && !tokenMatches(req.headers.authorization, expectedMetricsToken)) {
        res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
        sendJson(res, 401, { error: 'Unauthorized: send Authorization: Bearer <MCP_METRICS_TOKEN>.' });
        return;
      }
      const text = metrics.render();
      res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE, 'content-length': Buffer.byteLength(text) });
      res.end(req.method === 'HEAD' ? undefined : text);
      return;
    }
    // Narrowing per connection: `<path>/x/<toolsets>[/readonly]`, `<path>/readonly` and the
    // X-MCP-* headers. A request without any costs one comparison and three header lookups.
    let requested: RequestedNarrowing | undefined;
    try {
      if (url.pathname !== path) {
        const narrowed = parseNarrowedPath(path, url.pathname);
        if (!narrowed) {
          if (auth?.handle && (await auth.handle(req, res))) return;
          sendJson(res, 404, jsonRpcError(-32000, `Not found. The MCP endpoint is ${path}.`));
          return;
        }
        requested = { path: narrowed };
      }
      const headers = req.headers;
      if (
        headers[TOOLSETS_HEADER] !== undefined ||
        headers[TOOLS_HEADER] !== undefined ||
        headers[READONLY_HEADER] !== undefined
      ) {
        requested = { ...requested, ...parseNarrowingHeaders((name) => headerValue(headers[name])) };
      }
    } catch (error) {
      if (!(error instanceof NarrowingSyntaxError)) throw error;
      sendJson(res, 400, jsonRpcError(-32602, error.message));
      return;
    }
    if (expectedToken && !tokenMatches(req.headers.authorization, expectedToken)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="mcp"');
      sendJson(res, 401, jsonRpcError(-32001, 'Unauthorized: send Authorization: Bearer <token>.'));
      return;
    }
    // An auth strategy's answer to a request without a well-formed bearer token needs no body:
    // refuse it before reading up to maxBodyBytes from an unauthenticated client.
    if (auth && !BEARER.test(req.headers.authorization ?? '')) {
      const decision = await auth.authenticate(
        new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? path}`, {
          method: req.method ?? 'GET',
          headers: toHeaders(req),
        }),
      );
      if (decision instanceof Response) {
        if (req.method === 'POST' || req.headers['content-length'] || req.headers['transfer-encoding']) {
          res.setHeader('connection', 'close');
        }
        await sendResponse(res, decision);
        return;
      }
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBodyBytes) {
      sendJson(res, 413, jsonRpcError(-32000, `Request body larger than ${maxBodyBytes} bytes.`));
      req.resume();
      return;
    }
    const body = req.method === 'POST' ? await readBody(req, maxBodyBytes) : undefined;
    if (body === 'too-large') {
      sendJson(res, 413, jsonRpcError(-32000, `Request body larger than ${maxBodyBytes} bytes.`));
      return;
    }
    // Abort only when the client goes away mid-exchange; 'close' also fires after every
    // finished response, and aborting then sends each request down the cancellation path.
    const abort = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    // Parsed here once: the SDK takes it as `parsedBody` rather than cloning the request (a tee of
    // its body stream) to read and parse it again. A body that does not parse goes to the SDK as
    // is, which answers it.
    const parsed = body === undefined ? undefined : parseJson(body);
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? path}`, {
      method: req.method ?? 'GET',
      headers: toHeaders(req),
      ...(body !== undefined && parsed === undefined ? { body } : {}),
      signal: abort.signal,
    });
    let authInfo: AuthInfo | undefined = expectedToken
      ? { token: 'bearer', clientId: 'bearer-token', scopes: [] as string[] }
      : undefined;
    if (auth) {
      const decision = await auth.authenticate(request);
      if (decision instanceof Response) {
        await sendResponse(res, decision);
        return;
      }
      authInfo = decision;
    }
    const logContext = hashKey && authInfo && auth ? requestContext.getStore() : undefined;
    if (logContext && authInfo) {
      const userId = authInfo.extra?.userId;
      logContext.user = pseudonym(typeof userId === 'string' ? userId : authInfo.clientId);
    }
    const granted =
      auth?.accessFor && authInfo ? [...always, ...(await auth.accessFor(authInfo, request))] : always;
    // The tool a `tools/call` calls: its challenge, and a server that mounts only that tool.
    const call = parsed ? toolCall(parsed.message) : undefined;
    if (requested || granted.length > 0) {
      const base = authInfo && auth?.registryFor ? await userRegistry(auth.registryFor, authInfo) : registry;
      let accesses = granted;
      if (requested) {
        try {
          // The connection's own narrowing first: its refusals name the URL or header.
          accesses = [...narrowingAccesses(base, requested), ...granted];
        } catch (error) {
          if (!McpToolError.isInstance(error)) throw error;
          sendJson(res, 400, {
            jsonrpc: '2.0',
            error: { code: -32602, message: error.message, data: error.details },
            id: null,
          });
          return;
        }
      }
      const view = new RegistryView(base, accesses, { logger });
      const surface = requested?.path?.search ? 'search' : options.surface;
      // Only a refusal with a challenge answers in HTTP (on the search surface, for the tool that
      // call_tool names).
      const called = call && (surface === 'search' && call.name === CALL_TOOL ? call.inner : call.name);
      const challenge =
        called !== undefined && accesses.some((access) => access.challenge)
          ? view.challenge(called, { request: httpCaller(authInfo) })
          : undefined;
      if (challenge) {
        await sendResponse(res, challenge);
        return;
      }
      const fetchOptions = mcpFetchOptions(authInfo, parsed);
      const scope = { view, surface, ...(call ? { tool: call.name } : {}) };
      await sendResponse(res, await served.run(scope, () => handler.fetch(request, fetchOptions)));
      return;
    }
    const fetchOptions = mcpFetchOptions(authInfo, parsed);
    await sendResponse(
      res,
      await (call === undefined
        ? handler.fetch(request, fetchOptions)
        : served.run({ tool: call.name }, () => handler.fetch(request, fetchOptions))),
    );
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}${path}`,
    port: address.port,
    host: address.address,
    server,
    close: async () => {
      await handler.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      for (const stop of unsubscribe) stop();
      if (requestLog) setLogContext(previousLogContext);
      await tracing?.shutdown();
    },
  };
}

/** Whether the environment asks for traces: `OTEL_EXPORTER_OTLP_ENDPOINT` (or the traces-only one). */
function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const NO_ACCESS: readonly ToolAccess[] = Object.freeze([]);

/** A request body's JSON, or `undefined` when it is not JSON. */
function parseJson(body: Buffer): { message: unknown } | undefined {
  try {
    return { message: JSON.parse(body.toString('utf8')) };
  } catch {
    return undefined;
  }
}

/** What the SDK's handler is told besides the request: the caller, and the body parsed here. */
function mcpFetchOptions(
  authInfo: AuthInfo | undefined,
  parsed: { message: unknown } | undefined,
): { authInfo?: AuthInfo; parsedBody?: unknown } | undefined {
  if (!authInfo && !parsed) return undefined;
  return { ...(authInfo ? { authInfo } : {}), ...(parsed ? { parsedBody: parsed.message } : {}) };
}

/**
 * The tool a JSON-RPC `tools/call` message calls, and the tool named by its `name` argument
 * (which `call_tool` of the search surface calls); `undefined` for anything else (a batch,
 * another method).
 */
function toolCall(message: unknown): { name: string; inner: string | undefined } | undefined {
  const { method, params } = (message ?? {}) as {
    method?: unknown;
    params?: { name?: unknown; arguments?: { name?: unknown } };
  };
  if (method !== 'tools/call' || typeof params?.name !== 'string') return undefined;
  const inner = params.arguments?.name;
  return { name: params.name, inner: typeof inner === 'string' ? inner : undefined };
}

function tokenMatches(header: string | undefined, expected: Buffer): boolean {
  const match = BEARER.exec(header ?? '');
  return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected);
}

/** The caller of an HTTP request as tools see it (`context.request`). */
function httpCaller(authInfo: AuthInfo | undefined): RequestInfo {
  return callContext(authInfo ? { authInfo } : undefined, 'http').request ?? { transport: 'http' };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function toHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(key, item);
    else headers.set(key, value);
  }
  return headers;
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Keep draining so the 413 can still be written on this connection.
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      if (!tooLarge) chunks.push(chunk);
    });
    req.once('end', () => resolve(tooLarge ? 'too-large' : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

function jsonRpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    const existing = headers[key];
    if (existing === undefined) headers[key] = value;
    else headers[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.on('close', () => {
    reader.cancel().catch(() => {});
  });
  for (;;) {
    const { done, value } = await reader.read();
    if (done || res.destroyed) break;
    if (!res.write(value)) {
      await new Promise<void>((resolve) => {
        res.once('drain', resolve);
        res.once('close', resolve);
      });
    }
  }
  res.end();
}
