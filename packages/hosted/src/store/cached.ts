import type { KvEntry, KvLock, KvSetOptions, KvStore, KvWatcher } from './kv.js';

export interface CachedStoreOptions {
  /** The records kept: those whose key starts with one of these (e.g. grants and connections). */
  prefixes: readonly string[];
  /**
   * The longest a kept record serves without a store read: the bound on a change the watch did
   * not report (a Redis flush or eviction). Default 5,000 ms.
   */
  maxAgeMs?: number;
  /** Records kept at most (least recently used go first). Default 10,000. */
  maxEntries?: number;
}

interface Kept {
  entry: KvEntry;
  /** When it was read from the store (epoch ms). */
  readAt: number;
}

/**
 * A per-replica read cache over a store that can `watch`: the records the `/mcp` request check
 * reads on every request (a grant, a connection) are served from memory, and every change any
 * client makes (a revoke in another replica, `users forget` in an admin process, a refresh, a
 * dead sign-in) removes the copy as soon as the store reports it (Redis publishes it in the same
 * step as the write). While the watch is down nothing is served from memory, and a copy never
 * outlives `maxAgeMs` or its record's own expiry. A store without `watch` is used as it is.
 */
export class CachedStore implements KvStore {
  readonly driver: KvStore['driver'];
  readonly #inner: KvStore;
  readonly #prefixes: readonly string[];
  readonly #maxAgeMs: number;
  readonly #maxEntries: number;
  readonly #kept = new Map<string, Kept>();
  /** Whether changes are being reported now; nothing is kept or served otherwise. */
  #live = false;
  /**
   * Bumped by every reported change: a read that began before a change is not kept (it may have
   * read the record as it was before).
   */
  #generation = 0;
  #unwatch: (() => Promise<void>) | undefined;

  private constructor(inner: KvStore, options: CachedStoreOptions) {
    this.driver = inner.driver;
    this.#inner = inner;
    this.#prefixes = options.prefixes;
    this.#maxAgeMs = options.maxAgeMs ?? 5_000;
    this.#maxEntries = options.maxEntries ?? 10_000;
  }

  /** The store with a read cache when it can `watch`; the store itself otherwise. */
  static async over(inner: KvStore, options: CachedStoreOptions): Promise<KvStore> {
    if (!inner.watch) return inner;
    const cached = new CachedStore(inner, options);
    cached.#unwatch = await inner.watch(cached.#watcher);
    return cached;
  }

  /**
   * The store underneath a `CachedStore` (the store itself otherwise): for reads that must see
   * the latest write even before its report arrives, such as the re-read under a refresh lock.
   */
  static direct(store: KvStore): KvStore {
    return store instanceof CachedStore ? store.#inner : store;
  }

  /** How many records are kept now. */
  get size(): number {
    return this.#kept.size;
  }

  readonly #watcher: KvWatcher = {
    changed: (key) => {
      this.#generation++;
      this.#kept.delete(key);
    },
    lost: () => {
      this.#live = false;
      this.#generation++;
      this.#kept.clear();
    },
    live: () => {
      this.#generation++;
      this.#kept.clear();
      this.#live = true;
    },
  };

  async get(key: string): Promise<KvEntry | undefined> {
    return (await this.getMany([key]))[0];
  }

  /**
   * The kept copies of `keys`, without waiting, when this replica holds a fresh copy of every
   * one of them (what `getMany` would answer from memory); `undefined` otherwise, and for a store
   * without a read cache. For the request check's hot path: no promise when nothing is read.
   */
  static peek(store: KvStore, keys: readonly string[]): KvEntry[] | undefined {
    if (!(store instanceof CachedStore)) return undefined;
    const now = Date.now();
    const answers: KvEntry[] = [];
    for (const key of keys) {
      const entry = store.#fresh(key, now);
      if (!entry) return undefined;
      answers.push(entry);
    }
    return answers;
  }

  /** The kept copy of `key` while it may serve (dropped once it may not), most recently used last. */
  #fresh(key: string, now: number): KvEntry | undefined {
    const kept = this.#live ? this.#kept.get(key) : undefined;
    if (!kept) return undefined;
    this.#kept.delete(key);
    if (now - kept.readAt >= this.#maxAgeMs || (kept.entry.expiresAt ?? Infinity) <= now) return undefined;
    this.#kept.set(key, kept);
    return kept.entry;
  }

  async getMany(keys: readonly string[]): Promise<Array<KvEntry | undefined>> {
    const now = Date.now();
    const answers: Array<KvEntry | undefined> = new Array(keys.length);
    const missing: number[] = [];
    for (const [index, key] of keys.entries()) {
      const entry = this.#fresh(key, now);
      if (entry) answers[index] = entry;
      else missing.push(index);
    }
    if (missing.length === 0) return answers;
    const generation = this.#generation;
    const read = await this.#inner.getMany(missing.map((index) => keys[index] as string));
    // Kept only if nothing changed while reading (else the copy may predate the change).
    const keep = this.#live && generation === this.#generation;
    for (const [position, index] of missing.entries()) {
      const entry = read[position];
      answers[index] = entry;
      const key = keys[index] as string;
      if (keep && entry && this.#prefixes.some((prefix) => key.startsWith(prefix))) {
        this.#kept.set(key, { entry, readAt: now });
        if (this.#kept.size > this.#maxEntries) this.#kept.delete(this.#kept.keys().next().value as string);
      }
    }
    return answers;
  }

  set(key: string, value: string, options?: KvSetOptions): Promise<number | undefined> {
    return this.#write(key, () => this.#inner.set(key, value, options));
  }

  delete(key: string): Promise<boolean> {
    return this.#write(key, () => this.#inner.delete(key));
  }

  consume(key: string): Promise<string | undefined> {
    return this.#write(key, () => this.#inner.consume(key));
  }

  /**
   * A write goes to the store; the copy is dropped before and after (the store reports the
   * change too, but this replica does not wait for its own report).
   */
  async #write<T>(key: string, write: () => Promise<T>): Promise<T> {
    this.#watcher.changed(key);
    try {
      return await write();
    } finally {
      this.#watcher.changed(key);
    }
  }

  lock(key: string, ttlMs: number): Promise<KvLock | undefined> {
    return this.#inner.lock(key, ttlMs);
  }

  sadd(key: string, members: readonly string[], options?: { ttlMs?: number }): Promise<void> {
    return this.#inner.sadd(key, members, options);
  }

  srem(key: string, members: readonly string[]): Promise<void> {
    return this.#inner.srem(key, members);
  }

  smembers(key: string): Promise<string[]> {
    return this.#inner.smembers(key);
  }

  keys(prefix: string): Promise<string[]> {
    return this.#inner.keys(prefix);
  }

  watch(watcher: KvWatcher): Promise<() => Promise<void>> {
    return (this.#inner.watch as NonNullable<KvStore['watch']>).call(this.#inner, watcher);
  }

  ping(): Promise<void> {
    return this.#inner.ping();
  }

  /** Stops watching; the store underneath stays open (its owner closes it). */
  async close(): Promise<void> {
    this.#live = false;
    this.#kept.clear();
    await this.#unwatch?.();
    this.#unwatch = undefined;
  }
}
