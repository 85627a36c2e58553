import { createHash } from 'node:crypto';
import { createLogger, LimitExceededError, type Logger, UpstreamError } from '@x/mcp-core';
import {
  type CredentialSource,
  createUpstreamClient,
  type SettingsOnFirstUse,
  settingsOnFirstUse,
  type UpstreamClient,
  type UpstreamResponse,
} from '@x/mcp-core/upstream';
import { type BasecampCredentials, defaultBasecampCredentials } from './auth/credentials.js';
import { basecampStatusErrors } from './client/errors.js';
import { EtagCache } from './client/etag-cache.js';
import { SlidingWindowLimiter } from './client/limiter.js';
import { type BasecampSettings, type ResolvedSettings, resolveSettings } from './settings.js';
import { VERSION } from './version.js';

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** A file sent as the body, as is, instead of JSON (attachments, chat uploads, the account logo). */
  upload?: { data: Uint8Array; contentType: string };
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

/** Upper bound on upstream pages one list call follows, whatever `page` asks for. */
const MAX_PAGES_PER_CALL = 25;

/**
 * The Basecamp API client: the shared upstream client (bearer token from one credential source,
 * renewed once on a 401; the time limit over the whole exchange; bounded bodies; no redirected
 * writes; retries after a 429 on any method and after a 5xx on reads; one status map) with
 * Basecamp's layers on top: its User-Agent, a per-account limiter that queues bursts, ETag
 * revalidation and `Link` pagination.
 */
export class BasecampClient {
  readonly #lazy: SettingsOnFirstUse<ResolvedSettings, BasecampCredentials>;
  #upstream: UpstreamClient<BasecampCredentials> | undefined;
  #cache: EtagCache | undefined;
  readonly #limiters = new Map<string, SlidingWindowLimiter>();
  #notModified = 0;
  /** Where every request's token and account come from. */
  readonly credentials: CredentialSource<BasecampCredentials>;

  constructor(settings: BasecampSettings = {}, logger: Logger = createLogger('basecamp')) {
    this.#lazy = settingsOnFirstUse(
      settings,
      (given) => resolveSettings(given, VERSION),
      (resolved) => defaultBasecampCredentials(resolved, logger),
    );
    this.credentials = this.#lazy.credentials;
  }

  /** Settings with their environment fallbacks, read on first use. */
  get settings(): ResolvedSettings {
    return this.#lazy.settings;
  }

  /** Counters of what reached Basecamp, for benchmarks and diagnostics. */
  get stats(): ClientStats {
    const upstream = this.#upstream?.stats ?? { requests: 0, rateLimited: 0, retries: 0 };
    return { ...upstream, notModified: this.#notModified };
  }

  /** The account requests go to. */
  async accountId(signal?: AbortSignal): Promise<string> {
    return (await this.credentials.current(signal)).accountId;
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
    // A server limited to some projects refuses anything else here, before it is sent.
    const allowlist = this.settings.projects;
    const accountWide = allowlist ? allowlist.check(method, path, options.query).accountWide : false;
    const answer = await this.#send<T>(method, path, options);
    if (!allowlist || !accountWide) return answer;
    // The total counted the other projects' records too.
    return { ...answer, data: allowlist.filter(path, answer.data), total: undefined };
  }

  async #send<T>(method: string, path: string, options: RequestOptions): Promise<ApiResponse<T>> {
    const upstream = this.#client();
    // A path below the account, or an absolute `Link` URL (the shared client keeps it on the API's origin).
    const target = (credentials: BasecampCredentials) =>
      /^https?:\/\//i.test(path) ? path : `/${credentials.accountId}${path}`;
    let cacheKey: string | undefined;
    let cached: ReturnType<EtagCache['get']>;
    if (method === 'GET') {
      // The key is who asks and the URL asked for: a source that serves several people (a hosted
      // server) must never answer one person's request from another's cached page.
      const { accountId, accessToken } = await this.credentials.current(options.signal);
      const url = new URL(/^https?:\/\//i.test(path) ? path : `${upstream.baseUrl}/${accountId}${path}`);
      for (const [key, value] of Object.entries(options.query ?? {})) {
        if (value !== undefined) url.searchParams.set(key, String(value));
      }
      const who = createHash('sha256').update(accessToken).digest('base64url').slice(0, 16);
      cacheKey = `${who} ${url}`;
      cached = this.#etagCache.get(cacheKey);
    }
    const headers: Record<string, string> = {};
    // Basecamp answers 415 to a write without a JSON content type, even one without a body.
    if ((method === 'POST' || method === 'PUT') && !options.upload)
      headers['content-type'] = 'application/json; charset=utf-8';
    if (cached) headers['if-none-match'] = cached.etag;
    const answer: UpstreamResponse<T, BasecampCredentials> = await upstream.request<T>(method, target, {
      ...(options.query ? { query: options.query } : {}),
      ...(options.body === undefined ? {} : { json: options.body }),
      ...(options.upload ? { bytes: options.upload } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.notFound === undefined ? {} : { notFound: options.notFound }),
      headers,
      accept: cached ? [304] : [],
    });
    if (answer.status === 304 && cached) {
      this.#notModified++;
      return {
        data: JSON.parse(cached.body) as T,
        status: 200,
        next: this.#nextLink(cached.link),
        total: parseTotal(cached.totalCount),
        cached: true,
      };
    }
    const etag = answer.headers.get('etag');
    if (cacheKey !== undefined && etag && answer.text) {
      this.#etagCache.set(cacheKey, {
        etag,
        body: answer.text,
        link: answer.headers.get('link'),
        totalCount: answer.headers.get('x-total-count'),
      });
    }
    return {
      data: answer.data,
      status: answer.status,
      next: this.#nextLink(answer.headers.get('link')),
      total: parseTotal(answer.headers.get('x-total-count')),
      cached: false,
    };
  }

  #client(): UpstreamClient<BasecampCredentials> {
    if (this.#upstream) return this.#upstream;
    const settings = this.settings;
    this.#upstream = createUpstreamClient<BasecampCredentials>({
      name: 'Basecamp',
      baseUrl: settings.apiUrl,
      urlSetting: 'BASECAMP_API_URL',
      headers: { 'user-agent': settings.userAgent },
      jsonContentType: 'application/json; charset=utf-8',
      timeoutMs: settings.timeoutMs,
      fetch: settings.fetch,
      retry: {
        maxRetries: settings.maxRetries,
        baseDelayMs: settings.retryBaseMs,
        maxDelayMs: settings.maxRetryWaitMs,
      },
      statusError: basecampStatusErrors,
      auth: {
        source: this.credentials,
        headers: (credentials) => ({ authorization: `Bearer ${credentials.accessToken}` }),
      },
      secrets: () => [settings.clientSecret],
      // Answers date the limiter's window, so the gate is held until the answer is in.
      gate: async (credentials, signal) => this.#limiter(credentials?.accountId ?? '').acquire(signal),
      // Everyone queued for this account waits out a 429 too.
      onRateLimited: (waitMs, credentials) => this.#limiter(credentials?.accountId ?? '').pause(waitMs),
    });
    return this.#upstream;
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

  #nextLink(header: string | null): string | undefined {
    if (!header) return undefined;
    for (const part of header.split(',')) {
      const match = /<([^>]+)>\s*;\s*rel="?next"?/i.exec(part);
      if (match?.[1]) return match[1];
    }
    return undefined;
  }
}

function parseTotal(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
