import {
  InvalidInputError,
  type McpToolError,
  PermissionDeniedError,
  toolRef,
  UpstreamError,
  UpstreamUnavailableError,
} from '@x/mcp-core';
import { createUpstreamClient, type UpstreamClient, type UpstreamFailure } from '@x/mcp-core/upstream';
import type { z } from 'zod';
import type { ApiSettings } from '../settings.js';
import {
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

/** Upstream detail texts are passed on to the model, but never unbounded. */
const MAX_DETAIL_LENGTH = 500;

const START_HINT =
  'Start the service with `docker compose up -d` in the rag-ingestion folder of a bbj-ai-strategy checkout, or set BBJ_RAG_API_URL to where it runs.';

/**
 * The BBj RAG REST client on the shared upstream client (time limit over the whole exchange,
 * bounded bodies, one retry and status policy). The service's own meanings of 404/405, 422,
 * 503 and of a gateway's 502/504 are mapped here, by HTTP status, never by matching text.
 */
export class BbjRagClient {
  readonly #upstream: UpstreamClient;

  constructor(private readonly settings: ApiSettings) {
    this.#upstream = createUpstreamClient({
      name: 'BBj RAG API',
      baseUrl: settings.apiUrl,
      urlSetting: 'BBJ_RAG_API_URL',
      hints: {
        unreachable: START_HINT,
        timeout: `It may be overloaded or still starting; call ${toolRef('bbj_knowledge_status')}, then retry.`,
      },
      timeoutMs: settings.timeoutMs,
      fetch: settings.fetch,
      maxMessageChars: MAX_DETAIL_LENGTH,
      retry: { maxRetries: 1 },
      statusError: (failure) => this.#statusError(failure),
    });
  }

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
    const answer = await this.#upstream.request(method, path, {
      ...(body === undefined ? {} : { json: body }),
      ...(options.signal ? { signal: options.signal } : {}),
      accept: readableStatuses,
    });
    return { status: answer.status, json: answer.data };
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

  #statusError(failure: UpstreamFailure): McpToolError | undefined {
    const { status, path } = failure;
    const where = `The BBj RAG API at ${this.apiUrl}`;
    const detail = failure.message ?? 'no detail given';
    if (status === 422 || status === 400) {
      const validation = ValidationErrorBodySchema.safeParse(failure.body);
      if (validation.success) {
        const fields = validation.data.detail.map((issue) => ({
          // FastAPI prefixes the location with where the value came from ("body", "query").
          field: issue.loc.filter((part, index) => !(index === 0 && part === 'body')).join('.') || '(body)',
          message: failure.redact(issue.msg),
        }));
        return new InvalidInputError(
          `${where} rejected the request to ${path}: ${fields.map((field) => `${field.field}: ${field.message}`).join('; ')}. Fix these arguments and call again.`,
          { details: { status, fields } },
        );
      }
      return new InvalidInputError(
        `${where} rejected the request to ${path} (HTTP ${status}): ${detail}. Fix the arguments and call again.`,
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
    if (status === 503) {
      return new UpstreamUnavailableError(
        `${where} could not serve ${path} (HTTP 503): ${detail}. A backend the service needs (database or embedding model) is down; call ${toolRef('bbj_knowledge_status')} to see which, and retry once it is healthy.`,
        { details: { status, detail } },
      );
    }
    if (status === 502 || status === 504) {
      return new UpstreamUnavailableError(
        `${where} is behind a gateway that could not reach it (HTTP ${status}). ${START_HINT}`,
        { details: { status } },
      );
    }
    if (status >= 500) {
      return new UpstreamError(`${where} failed on ${path} (HTTP ${status}): ${detail}.`, {
        retryable: true,
        details: { status },
      });
    }
    return undefined;
  }
}
