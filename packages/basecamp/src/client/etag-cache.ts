/** One cached GET: the validator and what the response carried. */
export interface CachedResponse {
  etag: string;
  body: string;
  link: string | null;
  totalCount: string | null;
}

/**
 * A bounded LRU of GET responses keyed by URL, so a repeated read sends `If-None-Match` and
 * costs a 304 with an empty body. Bounded by entries and by total body size.
 */
export class EtagCache {
  readonly #entries = new Map<string, CachedResponse>();
  #bytes = 0;

  constructor(
    readonly maxEntries: number,
    readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  get(key: string): CachedResponse | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    // Re-insert: Map iteration order is insertion order, so the first key is the least recent.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry;
  }

  set(key: string, entry: CachedResponse): void {
    if (this.maxEntries < 1 || entry.body.length > this.maxBytes) return;
    this.delete(key);
    this.#entries.set(key, entry);
    this.#bytes += entry.body.length;
    while (this.#entries.size > this.maxEntries || this.#bytes > this.maxBytes) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.delete(oldest.value);
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#bytes -= entry.body.length;
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
