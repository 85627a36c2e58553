import { McpToolError, UpstreamError } from '@x/mcp-core';
import type { BasecampClient } from './runtime.js';

export interface SearchOption {
  /** The value to pass (`type` or `file_type`). */
  key: string;
  /** Basecamp's label, e.g. "Client emails". */
  label: string;
}

export interface SearchMetadata {
  types: SearchOption[];
  fileTypes: SearchOption[];
}

/** How long the account's search filters are kept: they change with Basecamp releases, not daily. */
const TTL_MS = 60 * 60 * 1000;

/**
 * The search filters Basecamp accepts for this account, from `GET /searches/metadata.json` (the
 * docs ask clients to read it rather than hard-code the types). Read on first use, kept an hour
 * per account; concurrent callers share one request.
 */
export class SearchMetadataCache {
  readonly #entries = new Map<string, { at: number; value: Promise<SearchMetadata | undefined> }>();

  constructor(private readonly client: BasecampClient) {}

  /** The metadata, or undefined when this Basecamp has no metadata endpoint (then nothing is checked). */
  async get(signal?: AbortSignal): Promise<SearchMetadata | undefined> {
    const accountId = await this.client.accountId();
    const cached = this.#entries.get(accountId);
    if (cached && Date.now() - cached.at < TTL_MS) return cached.value;
    const value = this.#read(signal);
    this.#entries.set(accountId, { at: Date.now(), value });
    // A failed read is not kept: the next call asks again.
    value.catch(() => this.#entries.delete(accountId));
    return value;
  }

  async #read(signal?: AbortSignal): Promise<SearchMetadata | undefined> {
    let data: unknown;
    try {
      data = (await this.client.get<unknown>('/searches/metadata.json', signal ? { signal } : {})).data;
    } catch (error) {
      if (McpToolError.isInstance(error) && error.code === 'NOT_FOUND') return undefined;
      throw error;
    }
    if (typeof data !== 'object' || data === null) {
      throw new UpstreamError(
        'Basecamp answered GET /searches/metadata.json with something other than an object.',
      );
    }
    const record = data as Record<string, unknown>;
    return { types: options(record.recording_search_types), fileTypes: options(record.file_search_types) };
  }
}

function options(value: unknown): SearchOption[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry) => {
    const raw = entry as Record<string, unknown> | null;
    // The entry with key null is "search everything": the absence of a filter.
    if (!raw || typeof raw.key !== 'string' || raw.key === '') return [];
    return [{ key: raw.key, label: typeof raw.value === 'string' ? raw.value : raw.key }];
  });
}
