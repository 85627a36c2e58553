import {
  InvalidInputError,
  McpToolError,
  networkErrorCode,
  PermissionDeniedError,
  parseRetryAfter,
  RateLimitedError,
  toolRef,
  UpstreamError,
  UpstreamUnavailableError,
} from '@x/mcp-core';
import type { z } from 'zod';
import type { ApiSettings } from '../settings.js';
import {
  DetailBodySchema,
  type HealthResponse,
  HealthResponseSchema,
  type SearchResponse,
  SearchResponseSchema,
  type StatsResponse,
  StatsResponseSchema,
  ValidationErrorBodySchema,
} from './schemas.js';

/** What `POST /search` takes. `generation` is a canonical tag (`bbj_gui`, not `bbj-gui`). */
export interface SearchRequest {
  query: string;
  generation?: string;
  limit: number;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

/** `/health` answers 200 only when healthy and 503 otherwise; both carry the same body. */
export interface HealthAnswer {
  httpStatus: number;
  body: HealthResponse;
}

/** Responses larger than this are refused rather than buffered. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Upstream detail texts are passed on to the model, but never unbounded. */
const MAX_DETAIL_LENGTH = 500;

const START_HINT =
  'Start the service with `docker compose up -d` in the rag-ingestion folder of a bbj-ai-strategy checkout, or set BBJ_RAG_API_URL to where it runs.';

/**
 * The BBj RAG REST client. Every upstream failure is mapped onto the shared error
 * vocabulary here, once, by HTTP status and never by matching error text.
 */
export class BbjRagClient {
  constructor(private readonly settings: ApiSettings) {}

  get apiUrl(): string {
    return this.settings.apiUrl;
  }

  async search(request: SearchRequest, options: RequestOptions = {}): Promise<SearchResponse> {
    const body: Record<string, unknown> = { query: request.query, limit: request.limit };
    if (request.generation !== undefined) body.generation = request.generation;
    const response = await this.#send('POST', '/search', body, options);
    return this.#parse(response, SearchResponseSchema, '/search');
  }

  async health(options: RequestOptions = {}): Promise<HealthAnswer> {
    const response = await this.#send('GET', '/health', undefined, options, [503]);
    return { httpStatus: response.status, body: this.#parse(response, HealthResponseSchema, '/health') };
  }

  async stats(options: RequestOptions = {}): Promise<StatsResponse> {
    const response = await this.#send('GET', '/stats', undefined, options);
    return this.#parse(response, StatsResponseSchema, '/stats');
  }

  async #send(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    options: RequestOptions,
    readableStatuses: readonly number[] = [],
  ): Promise<{ status: number; json: unknown }> {
    const url = `${this.settings.apiUrl}${path}`;
    const timeout = AbortSignal.timeout(this.settings.requestTimeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let response: Response;
    let text: string;
    try {
      response = await this.settings.fetch(url, {
        method,
        headers: {
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal,
      });
      text = await readBounded(response, path);
    } catch (error) {
      throw this.#transportError(error, path, options.signal, timeout);
    }
    const json = parseJson(text);
    if (response.ok || readableStatuses.includes(response.status)) {
      return { status: response.status, json };
    }
    throw this.#statusError(response, path, json, text);
  }

  #parse<T extends z.ZodType>(
    response: { status: number; json: unknown },
    schema: T,
    path: string,
  ): z.output<T> {
    const parsed = schema.safeParse(response.json);
    if (parsed.success) return parsed.data;
    const where = parsed.error.issues[0];
    throw new UpstreamError(
      `The BBj RAG API at ${this.apiUrl} answered ${path} with an unexpected body (${where ? `${where.path.join('.') || '(root)'}: ${where.message}` : 'not JSON'}). Check that BBJ_RAG_API_URL points at the BBj RAG REST service.`,
      { details: { status: response.status } },
    );
  }

  #transportError(
    error: unknown,
    path: string,
    callerSignal: AbortSignal | undefined,
    timeout: AbortSignal,
  ): McpToolError | unknown {
    if (McpToolError.isInstance(error)) return error;
    if (callerSignal?.aborted) {
      // The call was cancelled or ran out of its budget: the reason already says which.
      return callerSignal.reason;
    }
    if (timeout.aborted) {
      return new UpstreamUnavailableError(
        `The BBj RAG API at ${this.apiUrl} did not answer ${path} within ${this.settings.requestTimeoutMs} ms. It may be overloaded or still starting; call ${toolRef('bbj_knowledge_status')}, then retry.`,
        { details: { timeout_ms: this.settings.requestTimeoutMs } },
      );
    }
    const code = networkErrorCode(error);
    return new UpstreamUnavailableError(
      `BBj RAG API is not reachable at ${this.apiUrl}${code ? ` (${code})` : ''}. ${START_HINT}`,
      { cause: error, details: { api_url: this.apiUrl } },
    );
  }

  #statusError(response: Response, path: string, json: unknown, text: string): McpToolError {
    const status = response.status;
    const where = `The BBj RAG API at ${this.apiUrl}`;
    if (status === 422 || status === 400) {
      const validation = ValidationErrorBodySchema.safeParse(json);
      if (validation.success) {
        const fields = validation.data.detail.map((issue) => ({
          // FastAPI prefixes the location with where the value came from ("body", "query").
          field: issue.loc.filter((part, index) => !(index === 0 && part === 'body')).join('.') || '(body)',
          message: issue.msg,
        }));
        return new InvalidInputError(
          `${where} rejected the request to ${path}: ${fields.map((field) => `${field.field}: ${field.message}`).join('; ')}. Fix these arguments and call again.`,
          { details: { status, fields } },
        );
      }
      return new InvalidInputError(
        `${where} rejected the request to ${path} (HTTP ${status}): ${detailText(json, text)}. Fix the arguments and call again.`,
        { details: { status } },
      );
    }
    if (status === 401 || status === 403) {
      return new PermissionDeniedError(
        `${where} refused access to ${path} (HTTP ${status}). The service itself has no authentication; check the proxy in front of it.`,
        { details: { status } },
      );
    }
    if (status === 404 || status === 405) {
      return new UpstreamError(
        `${where} has no ${path} endpoint (HTTP ${status}). Check that BBJ_RAG_API_URL points at the BBj RAG REST service, not another server.`,
        { details: { status } },
      );
    }
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
      return new RateLimitedError(
        `${where} is rate limiting requests (HTTP 429). Wait${retryAfterMs === undefined ? ' a moment' : ` ${Math.ceil(retryAfterMs / 1000)} s`} and retry.`,
        { details: { status, ...(retryAfterMs === undefined ? {} : { retry_after_ms: retryAfterMs }) } },
      );
    }
    if (status === 503) {
      const detail = detailText(json, text);
      return new UpstreamError(
        `${where} could not serve ${path} (HTTP 503): ${detail}. A backend the service needs (database or embedding model) is down; call ${toolRef('bbj_knowledge_status')} to see which, and retry once it is healthy.`,
        { retryable: true, details: { status, detail } },
      );
    }
    if (status === 502 || status === 504) {
      return new UpstreamUnavailableError(
        `${where} is behind a gateway that could not reach it (HTTP ${status}). ${START_HINT}`,
        { details: { status } },
      );
    }
    return new UpstreamError(`${where} failed on ${path} (HTTP ${status}): ${detailText(json, text)}.`, {
      retryable: status >= 500,
      details: { status },
    });
  }
}

async function readBounded(response: Response, path: string): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > MAX_RESPONSE_BYTES) {
    await response.body?.cancel();
    throw tooLarge(path);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      throw tooLarge(path);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(path: string): McpToolError {
  return new UpstreamError(
    `The BBj RAG API answered ${path} with more than ${MAX_RESPONSE_BYTES} bytes; refusing to read it.`,
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** FastAPI's `{"detail": "..."}`, else the start of whatever the server sent. */
function detailText(json: unknown, text: string): string {
  const detail = DetailBodySchema.safeParse(json);
  const raw = detail.success ? detail.data.detail : text.trim() || 'no detail given';
  return raw.length > MAX_DETAIL_LENGTH ? `${raw.slice(0, MAX_DETAIL_LENGTH)}…` : raw;
}
