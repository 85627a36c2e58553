import { randomUUID } from 'node:crypto';
import { StoreUnavailableError } from '../errors.js';
import type { KvEntry, KvLock, KvSetOptions, KvStore, KvWatcher } from './kv.js';
import { checkKey, checkMembers, checkSet, checkTtl } from './validate.js';

interface RecordState {
  value: string;
  version: number;
  expiresAt?: number | undefined;
}

interface SetState {
  members: Set<string>;
  expiresAt?: number | undefined;
}

const SWEEP_INTERVAL_MS = 60_000;

/**
 * The in-process store: one JavaScript thread makes every operation atomic. The `memory:`
 * driver (tests, a single throwaway process).
 */
export class MemoryStore implements KvStore {
  readonly driver = 'memory' as const;
  #records = new Map<string, RecordState>();
  #sets = new Map<string, SetState>();
  #locks = new Map<string, { owner: string; expiresAt: number }>();
  #seq = 0;
  #closed = false;
  #lastSweep = Date.now();
  readonly #watchers = new Set<KvWatcher>();

  #assertOpen(): void {
    if (this.#closed) throw new StoreUnavailableError('The memory store is closed.');
  }

  async get(key: string): Promise<KvEntry | undefined> {
    checkKey(key);
    this.#assertOpen();
    const record = this.#liveRecord(key);
    if (!record) return undefined;
    return record.expiresAt === undefined
      ? { value: record.value, version: record.version }
      : { value: record.value, version: record.version, expiresAt: record.expiresAt };
  }

  getMany(keys: readonly string[]): Promise<Array<KvEntry | undefined>> {
    return Promise.all(keys.map((key) => this.get(key)));
  }

  async set(key: string, value: string, options: KvSetOptions = {}): Promise<number | undefined> {
    checkSet(key, value, options);
    this.#assertOpen();
    const current = this.#liveRecord(key);
    if (options.ifVersion !== undefined && (current?.version ?? 0) !== options.ifVersion) return undefined;
    const version = ++this.#seq;
    this.#records.set(key, {
      value,
      version,
      expiresAt: options.ttlMs === undefined ? undefined : Date.now() + options.ttlMs,
    });
    this.#notify(key);
    this.#afterWrite();
    return version;
  }

  async delete(key: string): Promise<boolean> {
    checkKey(key);
    this.#assertOpen();
    const existed = this.#liveRecord(key) !== undefined;
    if (!existed) return false;
    this.#records.delete(key);
    this.#notify(key);
    this.#afterWrite();
    return true;
  }

  async consume(key: string): Promise<string | undefined> {
    checkKey(key);
    this.#assertOpen();
    const record = this.#liveRecord(key);
    if (!record) return undefined;
    this.#records.delete(key);
    this.#notify(key);
    this.#afterWrite();
    return record.value;
  }

  async lock(key: string, ttlMs: number): Promise<KvLock | undefined> {
    checkKey(key);
    checkTtl(ttlMs);
    this.#assertOpen();
    const held = this.#locks.get(key);
    if (held && held.expiresAt > Date.now()) return undefined;
    const owner = randomUUID();
    this.#locks.set(key, { owner, expiresAt: Date.now() + ttlMs });
    return {
      key,
      owner,
      release: async () => {
        this.#assertOpen();
        const current = this.#locks.get(key);
        if (!current || current.owner !== owner || current.expiresAt <= Date.now()) return false;
        this.#locks.delete(key);
        return true;
      },
    };
  }

  async sadd(key: string, members: readonly string[], options: { ttlMs?: number } = {}): Promise<void> {
    checkKey(key);
    checkMembers(members);
    if (options.ttlMs !== undefined) checkTtl(options.ttlMs);
    this.#assertOpen();
    if (members.length === 0) return;
    const until = options.ttlMs === undefined ? undefined : Date.now() + options.ttlMs;
    const set = this.#liveSet(key);
    if (!set) {
      this.#sets.set(key, { members: new Set(members), expiresAt: until });
    } else {
      for (const member of members) set.members.add(member);
      if (until === undefined) set.expiresAt = undefined;
      else if (set.expiresAt !== undefined && set.expiresAt < until) set.expiresAt = until;
    }
    this.#afterWrite();
  }

  async srem(key: string, members: readonly string[]): Promise<void> {
    checkKey(key);
    checkMembers(members);
    this.#assertOpen();
    const set = this.#liveSet(key);
    if (!set) return;
    let removed = false;
    for (const member of members) removed = set.members.delete(member) || removed;
    if (set.members.size === 0) this.#sets.delete(key);
    if (removed) this.#afterWrite();
  }

  async smembers(key: string): Promise<string[]> {
    checkKey(key);
    this.#assertOpen();
    return [...(this.#liveSet(key)?.members ?? [])];
  }

  async keys(prefix: string): Promise<string[]> {
    this.#assertOpen();
    return [...this.#records.keys()].filter(
      (key) => key.startsWith(prefix) && this.#liveRecord(key) !== undefined,
    );
  }

  /** Every change is made in this process: watchers hear of it before the write resolves. */
  async watch(watcher: KvWatcher): Promise<() => Promise<void>> {
    this.#assertOpen();
    this.#watchers.add(watcher);
    watcher.live();
    return async () => {
      this.#watchers.delete(watcher);
    };
  }

  async ping(): Promise<void> {
    this.#assertOpen();
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  #notify(key: string): void {
    for (const watcher of this.#watchers) watcher.changed(key);
  }

  #afterWrite(): void {
    if (Date.now() - this.#lastSweep > SWEEP_INTERVAL_MS) this.#sweep();
  }

  #sweep(): void {
    const now = Date.now();
    this.#lastSweep = now;
    for (const [key, record] of this.#records) if (expired(record, now)) this.#records.delete(key);
    for (const [key, set] of this.#sets) if (expired(set, now)) this.#sets.delete(key);
    for (const [key, lock] of this.#locks) if (lock.expiresAt <= now) this.#locks.delete(key);
  }

  #liveRecord(key: string): RecordState | undefined {
    const record = this.#records.get(key);
    if (record && expired(record, Date.now())) {
      this.#records.delete(key);
      return undefined;
    }
    return record;
  }

  #liveSet(key: string): SetState | undefined {
    const set = this.#sets.get(key);
    if (set && expired(set, Date.now())) {
      this.#sets.delete(key);
      return undefined;
    }
    return set;
  }
}

function expired(entry: { expiresAt?: number | undefined }, now: number): boolean {
  return entry.expiresAt !== undefined && entry.expiresAt <= now;
}
