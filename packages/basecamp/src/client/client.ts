import {
  createLogger,
  LimitExceededError,
  type Logger,
  networkErrorCode,
  parseRetryAfter,
  sleep,
  UpstreamError,
  UpstreamUnavailableError,
} from '@x/mcp-core';
import { type Credentials, Session } from '../auth/session.js';
import { type BasecampSettings, type ResolvedSettings, resolveSettings } from '../settings.js';
import { VERSION } from '../version.js';
import { errorForStatus } from './errors.js';
import { EtagCache } from './etag-cache.js';
import { SlidingWindowLimiter } from './limiter.js';

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  signal?: AbortSignal;
  /** The message of a 404, naming the thing and the tool that lists valid IDs. */
  notFound?: string;
}

export interface ApiResponse<T> {
  data: T;
  status: number;
  /** The next page's URL from the `Link` header, when there is one. */
  next: string | undefined;
  /** `X-Total-Count`, when sent. */
  total: number | undefined;
  /** Answered by a 304 from the ETag cache. */
  cached: boolean;
}

export interface ListPage<T> {
  items: T[];
  has_more: boolean;
  next_page: number | null;
  total?: number;
}

/** Counters of what reached Basecamp, for benchmarks and diagnostics. */
export interface ClientStats {
  /** HTTP requests sent to the API (not Launchpad). */
  requests: number;
  /** Of those, answered 304 from the ETag cache. */
  notModified: number;
  /** 429 answers received. */
  rateLimited: number;
  /** Requests sent again after a 429 or a 5xx. */
  retries: number;
}

const RETRYABLE_GET_STATUSES = new Set([500, 502, 503, 504]);
/** Upper bound on upstream pages one list call follows, whatever `page` asks for. */
const MAX_PAGES_PER_CALL = 25;

/**
 * The Basecamp API client: bearer token and User-Agent on every request, a time limit per
 * request, a per-account limiter that queues bursts, ETag revalidation, a refresh on 401 shared
 * by concurrent calls, retries after 429 (any method, the request was not processed) and after
 * 500/502/503/504 (GET only), and every failure mapped once onto the shared error vocabulary.
 */
export class BasecampClient {
  readonly #settings: BasecampSettings;
  readonly #logger: Logger;
  #resolved: ResolvedSettings | undefined;
  #session: Session | undefined;
  #cache: EtagCache | undefined;
  readonly #limiters = new Map<string, SlidingWindowLimiter>();
  readonly stats: ClientStats = { requests: 0, notModified: 0, rateLimited: 0, retries: 0 };

  constructor(settings: BasecampSettings = {}, logger: Logger = createLogger('basecamp')) {
    this.#settings = settings;
    this.#logger = logger;
  }

  /** Settings with their environment fallbacks, read on first use. */
  get settings(): ResolvedSettings {
    this.#resolved ??= resolveSettings(this.#settings, VERSION);
    return this.#resolved;
  }

  get session(): Session {
    this.#session ??= new Session(() => this.settings, this.#logger);
    return this.#session;
  }

  /** The account requests go to. */
  async accountId(): Promise<string> {
    return (await this.session.current()).accountId;
  }

  get<T>(path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    return this.request<T>('GET', path, options);
  }

  /**
   * One window of a paginated collection: items `(page - 1) * limit` to `page * limit`, found by
   * following the `Link` headers from the first page (Basecamp's pages grow 15, 30, 50, 100, so
   * page numbers of ours cannot be mapped onto its). Re-reads are 304s from the ETag cache.
   */
  async list<T>(
    path: string,
    options: RequestOptions & { page: number; limit: number },
    maxPages = MAX_PAGES_PER_CALL,
  ): Promise<ListPage<T>> {
    const start = (options.page - 1) * options.limit;
    const end = start + options.limit;
    const items: T[] = [];
    let total: number | undefined;
    let next: string | undefined = path;
    let pages = 0;
    // One item past the window tells whether there is more when Basecamp sends no total.
    while (next !== undefined && items.length < end + (total === undefined ? 1 : 0) && pages < maxPages) {
      const response: ApiResponse<unknown> = await this.get<unknown>(
        next,
        pages === 0 ? options : { ...options, query: {} },
      );
      pages++;
      if (!Array.isArray(response.data)) {
        throw new UpstreamError(`Basecamp answered GET ${path} with something other than a list.`);
      }
      total ??= response.total;
      items.push(...(response.data as T[]));
      next = response.next;
    }
    if (next !== undefined && items.length < end && (total === undefined || items.length < total)) {
      // Only reached when the page cap stopped the walk short of the window.
      throw new LimitExceededError(
        `Page ${options.page} with limit ${options.limit} lies past the first ${items.length} items, more than one call reads. Narrow the request instead (e.g. with search).`,
      );
    }
    const window = items.slice(start, end);
    const hasMore = total !== undefined ? end < total : items.length > end || next !== undefined;
    return {
      items: window,
      has_more: hasMore,
      next_page: hasMore ? options.page + 1 : null,
      ...(total === undefined ? {} : { total }),
    };
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const settings = this.settings;
    let credentials = await this.session.current();
    const url = this.#url(credentials.accountId, path, options.query);
    const cacheKey = method === 'GET' ? url.toString() : undefined;
    const limiter = this.#limiter(credentials.accountId);
    let renewed = false;
    let attempt = 0;
    for (;;) {
      const release = await limiter.acquire(options.signal);
      const cached = cacheKey === undefined ? undefined : this.#etagCache.get(cacheKey);
      let response: Response;
      try {
        response = await this.#send(method, url, credentials, options, cached?.etag);
      } finally {
        release();
      }
      this.stats.requests++;
      if (response.status === 304 && cached && cacheKey !== undefined) {
        this.stats.notModified++;
        return {
          data: JSON.parse(cached.body) as T,
          status: 200,
          next: this.#nextLink(cached.link),
          total: parseTotal(cached.totalCount),
          cached: true,
        };
      }
      if (response.status === 401) {
        await response.body?.cancel().catch(() => {});
        // A token that was just renewed and is still refused will not get better by renewing again.
        if (renewed) throw this.session.rejected(credentials);
        renewed = true;
        credentials = await this.session.renew(credentials);
        continue;
      }
      if (response.status === 429) {
        this.stats.rateLimited++;
        const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
        const wait = retryAfter ?? this.#backoff(attempt);
        if (attempt < settings.maxRetries && wait <= settings.maxRetryWaitMs) {
          await response.body?.cancel().catch(() => {});
          // Everyone queued for this account waits too, with jitter so they do not return at once.
          limiter.pause(wait + Math.floor(Math.random() * Math.min(1000, wait * 0.2 + 50)));
          attempt++;
          this.stats.retries++;
          continue;
        }
      }
      if (method === 'GET' && RETRYABLE_GET_STATUSES.has(response.status) && attempt < settings.maxRetries) {
        await response.body?.cancel().catch(() => {});
        const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
        const wait =
          retryAfter !== undefined && retryAfter <= settings.maxRetryWaitMs
            ? retryAfter
            : this.#backoff(attempt);
        attempt++;
        this.stats.retries++;
        await sleep(wait, options.signal);
        continue;
      }
      const text = await this.#readText(response, options.signal);
      const body = parseJson(text);
      if (!response.ok) {
        throw errorForStatus(response.status, response.headers, body, {
          method,
          path: `${url.pathname}`,
          ...(options.notFound === undefined ? {} : { notFound: options.notFound }),
        });
      }
      if (text.trim() !== '' && body === undefined) {
        throw new UpstreamError(`Basecamp answered ${method} ${url.pathname} with a body that is not JSON.`);
      }
      const etag = response.headers.get('etag');
      if (cacheKey !== undefined && etag && text) {
        this.#etagCache.set(cacheKey, {
          etag,
          body: text,
          link: response.headers.get('link'),
          totalCount: response.headers.get('x-total-count'),
        });
      }
      return {
        data: body as T,
        status: response.status,
        next: this.#nextLink(response.headers.get('link')),
        total: parseTotal(response.headers.get('x-total-count')),
        cached: false,
      };
    }
  }

  get #etagCache(): EtagCache {
    this.#cache ??= new EtagCache(this.settings.cacheEntries);
    return this.#cache;
  }

  #limiter(accountId: string): SlidingWindowLimiter {
    let limiter = this.#limiters.get(accountId);
    if (!limiter) {
      limiter = new SlidingWindowLimiter(this.settings.rateLimitRequests, this.settings.rateLimitWindowMs);
      this.#limiters.set(accountId, limiter);
    }
    return limiter;
  }

  /** A path below the account, or an absolute `Link` URL, which must stay on the API's origin. */
  #url(accountId: string, path: string, query: RequestOptions['query']): URL {
    const base = this.settings.apiUrl;
    const url = /^https?:\/\//.test(path) ? new URL(path) : new URL(`${base}/${accountId}${path}`);
    if (url.origin !== new URL(base).origin) {
      throw new UpstreamError(
        `Basecamp sent a pagination link to another host (${url.origin}); not following it.`,
      );
    }
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  }

  #nextLink(header: string | null): string | undefined {
    if (!header) return undefined;
    for (const part of header.split(',')) {
      const match = /<([^>]+)>\s*;\s*rel="?next"?/i.exec(part);
      if (match?.[1]) return match[1];
    }
    return undefined;
  }

  #backoff(attempt: number): number {
    const base = Math.min(this.settings.retryBaseMs * 2 ** attempt, this.settings.maxRetryWaitMs);
    return Math.round(base / 2 + Math.random() * (base / 2));
  }

  async #send(
    method: string,
    url: URL,
    credentials: Credentials,
    options: RequestOptions,
    etag: string | undefined,
  ): Promise<Response> {
    const { timeoutMs, fetch, userAgent } = this.settings;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const headers: Record<string, string> = {
      authorization: `Bearer ${credentials.accessToken}`,
      'user-agent': userAgent,
      accept: 'application/json',
    };
    if (options.body !== undefined || method === 'POST' || method === 'PUT') {
      headers['content-type'] = 'application/json; charset=utf-8';
    }
    if (etag) headers['if-none-match'] = etag;
    try {
      return await fetch(url, {
        method,
        headers,
        signal,
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      });
    } catch (error) {
      throw this.#networkError(error, options.signal, timeout);
    }
  }

  async #readText(response: Response, signal: AbortSignal | undefined): Promise<string> {
    try {
      return await response.text();
    } catch (error) {
      throw this.#networkError(error, signal, undefined);
    }
  }

  #networkError(error: unknown, callerSignal: AbortSignal | undefined, timeout: AbortSignal | undefined) {
    // The caller's cancellation or time budget: let the core report it as such.
    if (callerSignal?.aborted) return callerSignal.reason ?? error;
    const base = this.settings.apiUrl;
    if (timeout?.aborted || (error as Error | undefined)?.name === 'TimeoutError') {
      return new UpstreamUnavailableError(
        `Basecamp at ${base} did not answer within ${this.settings.timeoutMs} ms. Try again in a moment.`,
      );
    }
    const code = networkErrorCode(error);
    return new UpstreamUnavailableError(
      `Cannot reach Basecamp at ${base}${code ? ` (${code})` : ''}. Check your connection, or BASECAMP_API_URL.`,
    );
  }
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function parseTotal(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
