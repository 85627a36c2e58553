/**
 * The storage contract of the hosted server: a few atomic operations on string values,
 * enough for authorization codes (consume once), rotating tokens (compare-and-set), refresh
 * coordination across replicas (locks) and revocation indexes (small sets).
 *
 * Every operation rejects with `StoreUnavailableError` when the store cannot be reached;
 * nothing else about reachability is ever reported as "not found".
 */
export interface KvStore {
  /** What backs it: `memory`, `sqlite` or `redis`. */
  readonly driver: 'memory' | 'sqlite' | 'redis';

  /** The value, its version and its expiry, or `undefined` when absent or expired. */
  get(key: string): Promise<KvEntry | undefined>;

  /**
   * Several records at once, in the order of `keys` (`undefined` for an absent one): one round
   * trip where the driver has a network (the per-request check of a grant and a connection).
   */
  getMany(keys: readonly string[]): Promise<Array<KvEntry | undefined>>;

  /**
   * Writes a value. Without `ttlMs` it never expires (an earlier expiry is removed).
   * With `ifVersion` it is a compare-and-set: written only if the record's version is still
   * that one (`0`: only if the record does not exist). Resolves with the new version, or
   * `undefined` when the version check failed (nothing was written).
   */
  set(key: string, value: string, options?: KvSetOptions): Promise<number | undefined>;

  /** Removes a record; resolves with whether it existed. */
  delete(key: string): Promise<boolean>;

  /** Get-and-delete in one step: of any number of concurrent callers, exactly one gets the value. */
  consume(key: string): Promise<string | undefined>;

  /**
   * Tries to take a lock for `ttlMs` (it lapses by itself after that). Resolves with the lock,
   * or `undefined` when someone else holds it. Only the holder can release it.
   */
  lock(key: string, ttlMs: number): Promise<KvLock | undefined>;

  /**
   * Adds members to a small set. With `ttlMs` the set lives at least that long from now (an
   * existing longer expiry or no expiry is kept); without it, the set never expires.
   */
  sadd(key: string, members: readonly string[], options?: { ttlMs?: number }): Promise<void>;

  /** Removes members from a set (an emptied set disappears). */
  srem(key: string, members: readonly string[]): Promise<void>;

  /** The members of a set, in no particular order; `[]` when absent or expired. */
  smembers(key: string): Promise<string[]>;

  /**
   * The keys of the live records that start with `prefix` (records only: not sets, not locks),
   * in no particular order. It walks the whole key space: for admin commands (forget a user,
   * re-seal after a key rotation), never for a request.
   */
  keys(prefix: string): Promise<string[]>;

  /**
   * Tells `watcher` about every record written, consumed or deleted in the store, by any client
   * (other replicas, admin commands) — the invalidations a per-replica cache applies. Absent on
   * a driver that cannot tell. Resolves, once notifications flow, with the function that stops
   * watching.
   */
  watch?(watcher: KvWatcher): Promise<() => Promise<void>>;

  /** Resolves when the store answers; rejects with `StoreUnavailableError` otherwise. */
  ping(): Promise<void>;

  /** Releases connections and file locks; later calls reject with `StoreUnavailableError`. */
  close(): Promise<void>;
}

export interface KvEntry {
  readonly value: string;
  /**
   * Changes on every write. Versions come from one counter per store, so a record deleted and
   * written again never repeats a version a stale reader may hold.
   */
  readonly version: number;
  /** When it expires (epoch milliseconds), if it does. */
  readonly expiresAt?: number;
}

export interface KvSetOptions {
  /** Time to live in milliseconds (a positive integer). */
  ttlMs?: number;
  /** Write only if the current version is this one; `0` = only if absent. */
  ifVersion?: number;
}

export interface KvLock {
  readonly key: string;
  /** A random id of this holder. */
  readonly owner: string;
  /** Releases the lock if this holder still has it; resolves with whether it did. */
  release(): Promise<boolean>;
}

/** What {@link KvStore.watch} reports. */
export interface KvWatcher {
  /** This record was written, consumed, or deleted (not reported: expiry by TTL). */
  changed(key: string): void;
  /**
   * Notifications may have been missed (the connection that carries them was lost): nothing
   * read before can be trusted. Followed by `live()` once they flow again.
   */
  lost(): void;
  /** Notifications flow again (after `lost()`). */
  live(): void;
}
