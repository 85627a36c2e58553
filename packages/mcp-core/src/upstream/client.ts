import {
  LimitExceededError,
  McpToolError,
  TokenExpiredError,
  UpstreamError,
  UpstreamUnavailableError,
} from '../errors.js';
import { observed, startUpstreamRequest, type UpstreamRequestEnd } from '../observability/events.js';
import type { CredentialSource } from './credentials.js';
import type { UpstreamErrorFinding, UpstreamErrorReader } from './error-reader.js';
import { networkErrorCode, parseRetryAfter, sleep } from './helpers.js';
import { redactSecrets, upstreamMessage } from './redact.js';
import {
  DEFAULT_RETRY_POLICY,
  isIdempotent,
  RETRYABLE_SERVER_STATUSES,
  type RetryPolicy,
  retryDelay,
} from './retry.js';
import { defaultStatusError, type StatusErrorMap, type UpstreamFailure } from './status.js';

export const DEFAULT_UPSTREAM_TIMEOUT_MS = 30_000;
/** Upstream answers larger than this are refused rather than buffered (8 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
const MAX_SAME_ORIGIN_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** How the client signs requests, and where it gets and renews the credentials. */
export interface UpstreamAuth<C> {
  source: CredentialSource<C>;
  /** The headers that carry the credentials, e.g. `authorization` and a team header. */
  headers(credentials: C): Record<string, string>;
  /** Secret values beyond those headers to redact from quoted upstream text. */
  secrets?(credentials: C): Iterable<string | undefined>;
}

export interface UpstreamClientOptions<C = never> {
  /** The service as messages name it: "Basecamp", "Forge", "The BBj RAG API". */
  name: string;
  /** The API base; requests go to `baseUrl + path` and never leave its origin. */
  baseUrl: string;
  /** The setting to check when the service cannot be reached, e.g. `BASECAMP_API_URL`. */
  urlSetting: string;
  /** Replace the last sentence of the unreachable and time-out messages (e.g. how to start the service). */
  hints?: { unreachable?: string; timeout?: string };
  /** Sent with every request, e.g. `user-agent`. */
  headers?: Record<string, string>;
  /** Time limit of one exchange, from sending to the last byte of the body. Default 30000 ms. */
  timeoutMs?: number;
  /** Largest body read. Default 8 MiB. */
  maxBodyBytes?: number;
  /** `Content-Type` of a JSON body. Default `application/json`. */
  jsonContentType?: string;
  fetch?: typeof fetch;
  retry?: Partial<RetryPolicy>;
  /** The provider's own errors for some statuses; the default map covers the rest. */
  statusError?: StatusErrorMap;
  /**
   * Where the service puts its errors when not (only) in the status: `graphqlErrorReader()` for a
   * GraphQL API (`errors[]` inside a 200). Default: the status, and the message read from the
   * body's `error`, `message`, `errors` or `detail`.
   */
  errorReader?: UpstreamErrorReader;
  auth?: UpstreamAuth<C>;
  /** Known secrets (client secret, refresh token) to redact from quoted upstream text. */
  secrets?: () => Iterable<string | undefined>;
  /** Longest upstream text quoted in a message. Default 300 characters. */
  maxMessageChars?: number;
  /** Taken before each attempt and released after its answer, e.g. a client-side rate limiter. */
  gate?: (credentials: C | undefined, signal: AbortSignal | undefined) => Promise<() => void>;
  /** Told about each 429 that will be waited out, e.g. to hold back queued requests too. */
  onRateLimited?: (waitMs: number, credentials: C | undefined) => void;
  /** Jitter source (tests). Default `Math.random`. */
  random?: () => number;
}

export interface UpstreamRequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as `application/x-www-form-urlencoded`. Values of secret-looking keys are redacted from quoted text. */
  form?: Record<string, string>;
  /** Sent as is with this `Content-Type` (a file upload); `fetch` sets `Content-Length`. */
  bytes?: { data: Uint8Array; contentType: string };
  headers?: Record<string, string>;
  /** The caller's cancellation (the tool call's signal). */
  signal?: AbortSignal;
  /** The message of a 404, naming the thing and the tool that lists valid IDs. */
  notFound?: string;
  /** Sent as `Idempotency-Key`; lets a non-idempotent request be retried after a 5xx or a lost connection. */
  idempotencyKey?: string;
  /**
   * This request only reads (a GraphQL query, a JSON-RPC read sent as POST): retry it after a 5xx
   * or a lost connection as a GET is, with no header sent. Never set it on a write.
   */
  safeToRetry?: boolean;
  /** This call's error reader, in place of the client's. */
  errorReader?: UpstreamErrorReader;
  /**
   * Statuses answered to the caller instead of thrown or retried (a 304, a health endpoint's
   * 503); `'any'` for every status, for a flow that reads each answer itself (an OAuth device flow).
   */
  accept?: readonly number[] | 'any';
  /** This call's own errors for some statuses, tried before the client's. */
  statusError?: StatusErrorMap;
  /** More secrets to redact for this call. */
  secrets?: Iterable<string | undefined>;
}

export interface UpstreamResponse<T = unknown, C = never> {
  status: number;
  headers: Headers;
  /** The body parsed as JSON; `undefined` when empty. */
  data: T;
  /** The body as text. */
  text: string;
  url: URL;
  /** The credentials the answer was given to (after a renewal, the new ones). */
  credentials: C | undefined;
}

/** Counters of what reached the upstream, for benchmarks and diagnostics. */
export interface UpstreamStats {
  /** Exchanges that got an answer. */
  requests: number;
  /** 429 answers. */
  rateLimited: number;
  /** Requests sent again after a 429, a 5xx or a lost connection. */
  retries: number;
}

export interface UpstreamClient<C = never> {
  readonly name: string;
  readonly baseUrl: string;
  readonly stats: UpstreamStats;
  /**
   * One request with the whole policy: credentials (renewed once on a 401), the time limit over
   * the whole exchange, bounded body, redirects only to the same origin and only for reads,
   * retries (429 on any method; 5xx and lost connections only when idempotent, keyed or
   * `safeToRetry`), and every failure, those an `errorReader` finds inside a 2xx included, mapped
   * onto the shared error vocabulary. `target` is a path below `baseUrl`, an
   * absolute URL on its origin, or a function of the credentials giving either.
   */
  request<T = unknown>(
    method: string,
    target: string | ((credentials: C) => string),
    options?: UpstreamRequestOptions,
  ): Promise<UpstreamResponse<T, C>>;
}

interface Exchange {
  status: number;
  headers: Headers;
  text: string;
  url: URL;
}

/** Thrown inside one attempt when the connection failed; retried when the request allows it. */
class NetworkFailure extends Error {
  constructor(readonly error: McpToolError) {
    super(error.message);
  }
}

export function createUpstreamClient<C = never>(options: UpstreamClientOptions<C>): UpstreamClient<C> {
  const base = options.baseUrl.replace(/\/+$/, '');
  const origin = new URL(base).origin;
  const timeoutMs = options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const random = options.random ?? Math.random;
  const stats: UpstreamStats = { requests: 0, rateLimited: 0, retries: 0 };
  const { name } = options;

  const resolveUrl = (target: string, query: UpstreamRequestOptions['query']): URL => {
    const url = /^https?:\/\//i.test(target) ? new URL(target) : new URL(`${base}${target}`);
    if (url.origin !== origin) {
      throw new UpstreamError(`${name} sent a link to another host (${url.origin}); not following it.`, {
        details: { location_origin: url.origin },
      });
    }
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  };

  const timeoutError = (method: string, url: URL) =>
    new UpstreamUnavailableError(
      `${name} at ${base} did not answer within ${timeoutMs} ms (${method} ${url.pathname}). ${options.hints?.timeout ?? 'Try again in a moment.'}`,
      { details: { timeout_ms: timeoutMs } },
    );

  const unreachableError = (error: unknown) => {
    const code = networkErrorCode(error);
    return new UpstreamUnavailableError(
      `${name} is not reachable at ${base}${code ? ` (${code})` : ''}. ${options.hints?.unreachable ?? `Check your connection, or ${options.urlSetting}.`}`,
      { cause: error, details: { api_url: base } },
    );
  };

  const tooLarge = (method: string, url: URL) =>
    new LimitExceededError(
      `${name} answered ${method} ${url.pathname} with more than ${formatBytes(maxBodyBytes)}; not reading it. Ask for less (a smaller page or a narrower filter).`,
      { details: { max_bytes: maxBodyBytes } },
    );

  /** One exchange: send, follow same-origin redirects of a read, and read the whole body, all inside the time limit. */
  function exchange(
    method: string,
    first: URL,
    init: { headers: Record<string, string>; body: string | Uint8Array | undefined },
    callerSignal: AbortSignal | undefined,
  ): Promise<Exchange> {
    if (!observed()) return send(method, first, init, callerSignal);
    return observedExchange(method, first, init, callerSignal);
  }

  /** The same exchange, announced to the observers with its status (never its path or query). */
  async function observedExchange(
    method: string,
    first: URL,
    init: { headers: Record<string, string>; body: string | Uint8Array | undefined },
    callerSignal: AbortSignal | undefined,
  ): Promise<Exchange> {
    const scope = startUpstreamRequest({ service: name, method, origin });
    const seen: { status?: number } = {};
    let end: Omit<UpstreamRequestEnd, 'durationMs'> = { failure: 'network' };
    try {
      const answer = await scope.run(() => send(method, first, init, callerSignal, seen));
      end = { status: answer.status };
      return answer;
    } catch (error) {
      if (callerSignal?.aborted) end = { failure: 'cancelled' };
      else if (seen.status !== undefined) end = { status: seen.status };
      else if (!(error instanceof NetworkFailure)) end = { failure: 'timeout' };
      throw error;
    } finally {
      scope.end(end);
    }
  }

  async function send(
    method: string,
    first: URL,
    init: { headers: Record<string, string>; body: string | Uint8Array | undefined },
    callerSignal: AbortSignal | undefined,
    seen?: { status?: number },
  ): Promise<Exchange> {
    if (callerSignal?.aborted) throw callerSignal.reason;
    // A controller of our own, held by the timer until the body is read: the time limit cannot be
    // lost once the headers arrive, as it can with AbortSignal.timeout held only weakly.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException('The upstream did not answer in time', 'TimeoutError'));
    }, timeoutMs);
    const onCallerAbort = () => controller.abort(callerSignal?.reason);
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    let url = first;
    try {
      for (let redirects = 0; ; redirects++) {
        let response: Response;
        try {
          response = await fetchImpl(url, {
            method,
            headers: init.headers,
            redirect: 'manual',
            signal: controller.signal,
            ...(init.body === undefined ? {} : { body: init.body }),
          });
        } catch (error) {
          throw new NetworkFailure(unreachableError(error));
        }
        if (seen) seen.status = response.status;
        if (REDIRECT_STATUSES.has(response.status)) {
          await response.body?.cancel().catch(() => {});
          url = redirectTarget(method, url, response.headers.get('location'), redirects);
          continue;
        }
        const text = await readBounded(response, controller.signal, maxBodyBytes, () =>
          tooLarge(method, url),
        );
        return { status: response.status, headers: response.headers, text, url };
      }
    } catch (error) {
      if (callerSignal?.aborted) throw callerSignal.reason ?? error;
      if (timedOut) throw timeoutError(method, url);
      if (error instanceof NetworkFailure || McpToolError.isInstance(error)) throw error;
      // The connection broke while the body was read.
      throw new NetworkFailure(unreachableError(error));
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    }
  }

  function redirectTarget(method: string, from: URL, location: string | null, redirects: number): URL {
    let to: URL | undefined;
    try {
      to = location ? new URL(location, from) : undefined;
    } catch {
      to = undefined;
    }
    const where = to ? `${to.origin}${to.pathname}` : 'nowhere';
    if (method !== 'GET' && method !== 'HEAD') {
      return fail(
        `${name} redirected ${method} ${from.pathname} to ${where}. A write is never sent on to another address, so nothing was done there; check ${options.urlSetting}.`,
      );
    }
    if (!to || to.origin !== origin) {
      return fail(
        `${name} redirected ${method} ${from.pathname} to ${where}, off ${origin}; not following it. Check ${options.urlSetting}.`,
      );
    }
    if (redirects >= MAX_SAME_ORIGIN_REDIRECTS) {
      return fail(
        `${name} redirected ${method} ${from.pathname} more than ${MAX_SAME_ORIGIN_REDIRECTS} times.`,
      );
    }
    return to;

    function fail(message: string): never {
      throw new UpstreamError(message, { details: { redirect_to: where } });
    }
  }

  async function request<T>(
    method: string,
    target: string | ((credentials: C) => string),
    call: UpstreamRequestOptions = {},
  ): Promise<UpstreamResponse<T, C>> {
    const upper = method.toUpperCase();
    const auth = options.auth;
    let credentials = auth ? await auth.source.current(call.signal) : undefined;
    const retryable = isIdempotent(upper) || call.idempotencyKey !== undefined || call.safeToRetry === true;
    const reader = call.errorReader ?? options.errorReader;
    let body: string | Uint8Array | undefined;
    const bodyHeaders: Record<string, string> = {};
    const callSecrets: (string | undefined)[] = [...(call.secrets ?? [])];
    if (call.json !== undefined) {
      body = JSON.stringify(call.json);
      bodyHeaders['content-type'] = options.jsonContentType ?? 'application/json';
    } else if (call.bytes !== undefined) {
      body = call.bytes.data;
      bodyHeaders['content-type'] = call.bytes.contentType;
    } else if (call.form !== undefined) {
      body = new URLSearchParams(call.form).toString();
      bodyHeaders['content-type'] = 'application/x-www-form-urlencoded';
      for (const [key, value] of Object.entries(call.form)) {
        if (/secret|token|password|code|key/i.test(key)) callSecrets.push(value);
      }
    }
    let renewed = false;
    let attempt = 0;
    for (;;) {
      const url = resolveUrl(typeof target === 'function' ? target(credentials as C) : target, call.query);
      const authHeaders = auth && credentials !== undefined ? auth.headers(credentials) : {};
      const headers: Record<string, string> = {
        accept: 'application/json',
        ...options.headers,
        ...bodyHeaders,
        ...call.headers,
        ...(call.idempotencyKey === undefined ? {} : { 'idempotency-key': call.idempotencyKey }),
        ...authHeaders,
      };
      const release = options.gate ? await options.gate(credentials, call.signal) : undefined;
      let answer: Exchange;
      try {
        answer = await exchange(upper, url, { headers, body }, call.signal);
      } catch (error) {
        if (!(error instanceof NetworkFailure)) throw error;
        if (!retryable || attempt >= policy.maxRetries) throw error.error;
        const wait = retryDelay(attempt, undefined, policy, { random }) ?? 0;
        attempt++;
        stats.retries++;
        await sleep(wait, call.signal);
        continue;
      } finally {
        release?.();
      }
      stats.requests++;
      const accepted = call.accept === 'any' || (call.accept?.includes(answer.status) ?? false);
      // A reader may find a failure inside a 2xx (GraphQL errors) or a status behind another one.
      const finding = reader && !accepted ? read(reader, answer) : undefined;
      const ok = answer.status >= 200 && answer.status < 300;
      if ((ok && finding === undefined) || accepted) return success<T>(upper, answer, credentials, accepted);
      const status = finding?.status ?? answer.status;

      if (status === 401 && auth && credentials !== undefined) {
        // Credentials that were just renewed and are still refused will not get better by renewing again.
        if (renewed) {
          throw (
            auth.source.refused?.(credentials) ??
            new TokenExpiredError(
              `${name} refused the renewed credentials (401). Sign in again, then call the tool again.`,
            )
          );
        }
        renewed = true;
        credentials = await auth.source.renew(credentials, call.signal);
        continue;
      }
      const retryAfterMs = parseRetryAfter(answer.headers.get('retry-after'));
      if (status === 429) {
        stats.rateLimited++;
        const wait = retryDelay(attempt, retryAfterMs, policy, { strict: true, random });
        if (wait !== undefined && attempt < policy.maxRetries) {
          options.onRateLimited?.(wait, credentials);
          attempt++;
          stats.retries++;
          await sleep(wait, call.signal);
          continue;
        }
      } else if (RETRYABLE_SERVER_STATUSES.has(status) && retryable && attempt < policy.maxRetries) {
        const wait = retryDelay(attempt, retryAfterMs, policy, { random }) ?? 0;
        attempt++;
        stats.retries++;
        await sleep(wait, call.signal);
        continue;
      }
      throw failureError(upper, answer, retryAfterMs, credentials, callSecrets, call, finding);
    }
  }

  /** What the reader finds in an answer (its body parsed once more: readers are for small JSON answers). */
  function read(reader: UpstreamErrorReader, answer: Exchange): UpstreamErrorFinding | undefined {
    return reader({ status: answer.status, headers: answer.headers, body: parseJson(answer.text) });
  }

  function success<T>(method: string, answer: Exchange, credentials: C | undefined, accepted: boolean) {
    let data: unknown;
    if (answer.text.trim() !== '') {
      try {
        data = JSON.parse(answer.text);
      } catch {
        // An accepted non-2xx (a health page) may be anything; a success must be JSON.
        if (!accepted) {
          throw new UpstreamError(
            `${name} answered ${method} ${answer.url.pathname} with a body that is not JSON.`,
            {
              details: { status: answer.status },
            },
          );
        }
      }
    }
    return {
      status: answer.status,
      headers: answer.headers,
      data: data as T,
      text: answer.text,
      url: answer.url,
      credentials,
    };
  }

  function failureError(
    method: string,
    answer: Exchange,
    retryAfterMs: number | undefined,
    credentials: C | undefined,
    callSecrets: readonly (string | undefined)[],
    call: UpstreamRequestOptions,
    finding: UpstreamErrorFinding | undefined,
  ): McpToolError {
    const secrets = [
      ...callSecrets,
      ...(options.secrets?.() ?? []),
      ...(options.auth && credentials !== undefined
        ? [
            // The values of credential headers ("Bearer abc": the token itself, so the quoted
            // text keeps its scheme word); a team or account header is no secret.
            ...Object.entries(options.auth.headers(credentials))
              .filter(([header]) => /authorization|token|key|secret|cookie/i.test(header))
              .map(([, value]) => value.replace(/^\S+\s+/, '')),
            ...(options.auth.secrets?.(credentials) ?? []),
          ]
        : []),
    ];
    const body = parseJson(answer.text);
    const status = finding?.status ?? answer.status;
    const failure: UpstreamFailure = {
      service: name,
      method,
      path: answer.url.pathname,
      status,
      ...(status === answer.status ? {} : { httpStatus: answer.status }),
      ...(finding?.code === undefined ? {} : { code: finding.code }),
      headers: answer.headers,
      body,
      message: upstreamMessage(finding?.message ?? body ?? answer.text, secrets, options.maxMessageChars),
      notFound: call.notFound,
      retryAfterMs,
      redact: (text) => redactSecrets(text, secrets),
    };
    return call.statusError?.(failure) ?? options.statusError?.(failure) ?? defaultStatusError(failure);
  }

  return {
    name,
    baseUrl: base,
    stats,
    request,
  };
}

/** The body parsed as JSON; `undefined` when empty or not JSON. */
function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Reads at most `limit` bytes; the signal (time limit, caller) also stops a body that stalls. */
async function readBounded(
  response: Response,
  signal: AbortSignal,
  limit: number,
  tooLarge: () => McpToolError,
): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  // A stalled stream does not always notice the abort; cancel it ourselves.
  const onAbort = () => {
    reader.cancel(signal.reason).catch(() => {});
  };
  signal.addEventListener('abort', onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const { done, value } = await reader.read();
      if (signal.aborted) throw signal.reason;
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}
