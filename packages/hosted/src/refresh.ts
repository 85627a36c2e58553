import { randomUUID } from 'node:crypto';
import { UpstreamUnavailableError } from '@x/mcp-core';
import { sleep } from '@x/mcp-core/upstream';
import type { Keyring } from './crypto.js';
import { CachedStore } from './store/cached.js';
import type { KvStore } from './store/kv.js';
import { type SealedEntry, SealedRecords } from './store/sealed.js';

export interface RefreshCoordinatorOptions {
  /** How long the refresh lock lives (default 60 s); it lapses if its holder dies. */
  lockTtlMs?: number;
  /** The refresh call is aborted after this (default 15 s), well inside the lock's life. */
  refreshTimeoutMs?: number;
  /** How long a caller that did not get the lock waits for the holder's result (default 15 s). */
  waitMs?: number;
  /** How often a waiting caller re-reads the record (default 250 ms). */
  pollMs?: number;
  /** The sealed records to read and write through (e.g. one with an opened-record cache). */
  records?: SealedRecords;
}

export interface RefreshRequest<T> {
  /** The sealed record holding the credentials, e.g. `conn:<userId>:<provider>`. */
  key: string;
  /** The first read of the record, when the caller already has it (read in one round trip with others). */
  first?: () => Promise<SealedEntry<T> | undefined>;
  /** Whether these credentials must be refreshed before use (expired or expiring soon). */
  needsRefresh(value: T): boolean;
  /**
   * Refreshes upstream. Called by at most one caller across all replicas at a time. What it
   * throws is passed on unchanged (the record stays as it was); to record a dead refresh token
   * (`invalid_grant`), write the record in the error handler (compare-and-set on `version`, the
   * version of `value`).
   */
  refresh(value: T, signal: AbortSignal, version: number): Promise<T>;
  /**
   * The record changed while the refresh ran (`written`, not the `refreshed` result): whether the
   * refresh result replaces it anyway. A mark on the credentials the refresh started from (say,
   * "expired") must not drop freshly rotated ones; a newer sign-in or a revoke (no record) must
   * win. Default: never (the record written meanwhile wins).
   */
  overwrites?(written: T, refreshedFrom: T): boolean;
}

/**
 * Lazy, replica-safe refresh of stored upstream credentials (HOSTED.md §3): the credentials are
 * refreshed only when a caller needs them, by one caller across all replicas (a store lock), after
 * re-reading the record under the lock (someone may have just refreshed), and written with a
 * compare-and-set, so a stale holder never overwrites newer credentials. Callers that do not
 * get the lock poll the record until the holder's result appears, and never refresh themselves:
 * N concurrent calls cause one upstream refresh.
 */
export class RefreshCoordinator {
  readonly #store: KvStore;
  readonly #records: SealedRecords;
  /** The store itself, never a replica's cache: what is read under the lock. */
  readonly #direct: SealedRecords;
  readonly #lockTtlMs: number;
  readonly #refreshTimeoutMs: number;
  readonly #waitMs: number;
  readonly #pollMs: number;

  constructor(store: KvStore, keyring: Keyring, options: RefreshCoordinatorOptions = {}) {
    this.#store = store;
    this.#records = options.records ?? new SealedRecords(store, keyring);
    this.#direct = new SealedRecords(CachedStore.direct(store), keyring);
    this.#lockTtlMs = options.lockTtlMs ?? 60_000;
    this.#refreshTimeoutMs = options.refreshTimeoutMs ?? 15_000;
    this.#waitMs = options.waitMs ?? 15_000;
    this.#pollMs = options.pollMs ?? 250;
  }

  /**
   * The usable credentials of `request.key`, refreshed first when `needsRefresh` says so;
   * `undefined` when there is no record. A waiter that sees no new credentials within `waitMs`
   * gets a retryable `UpstreamUnavailableError` (never a second refresh).
   */
  async current<T>(request: RefreshRequest<T>): Promise<T | undefined> {
    const first = request.first ? await request.first() : await this.#records.get<T>(request.key);
    if (!first) return undefined;
    if (!request.needsRefresh(first.value)) return first.value;

    const lockKey = `refresh:${request.key}`;
    const lock = await this.#store.lock(lockKey, this.#lockTtlMs);
    if (!lock) return this.#waitForHolder(request, first.version);
    try {
      // Double-check under the lock: another replica may have refreshed since our first read
      // (whatever else changed in the record, only whether it still needs a refresh matters).
      // Read from the store itself: a copy in memory may not have heard of that refresh yet, and
      // refreshing again would spend a rotated refresh token.
      const entry = await this.#direct.get<T>(request.key);
      if (!entry || !request.needsRefresh(entry.value)) return entry?.value;
      const signal = AbortSignal.timeout(this.#refreshTimeoutMs);
      const refreshed = await request.refresh(entry.value, signal, entry.version);
      const ttl = entry.expiresAt === undefined ? {} : { ttlMs: Math.max(1, entry.expiresAt - Date.now()) };
      let version = entry.version;
      for (let attempt = 0; attempt < 5; attempt++) {
        if ((await this.#records.set(request.key, refreshed, { ifVersion: version, ...ttl })) !== undefined)
          return refreshed;
        // Someone wrote the record while we held the lock. A revoke (no record) or a newer
        // sign-in wins; a mere mark on the old credentials does not (the upstream has rotated
        // them: dropping the new ones would end the sign-in).
        const newer = await this.#direct.get<T>(request.key);
        if (!newer || !request.overwrites?.(newer.value, entry.value)) return newer?.value;
        version = newer.version;
      }
      throw new UpstreamUnavailableError(
        'The refreshed credentials could not be stored (concurrent writers); retry.',
        {
          retryable: true,
        },
      );
    } finally {
      await lock.release().catch(() => false);
    }
  }

  async #waitForHolder<T>(request: RefreshRequest<T>, seen: number): Promise<T | undefined> {
    const deadline = Date.now() + this.#waitMs;
    while (Date.now() < deadline) {
      await sleep(this.#pollMs);
      const entry = await this.#records.get<T>(request.key);
      if (!entry) return undefined;
      if (entry.version !== seen) {
        if (!request.needsRefresh(entry.value)) return entry.value;
        seen = entry.version;
      }
      // The holder gave up (its refresh failed) without writing: report, do not refresh here.
      const probe = await this.#store.lock(`refresh:${request.key}`, 1);
      if (probe) {
        await probe.release().catch(() => false);
        // It may have written and released between our read and the probe: look once more.
        const last = await this.#records.get<T>(request.key);
        if (!last) return undefined;
        if (last.version !== seen && !request.needsRefresh(last.value)) return last.value;
        throw new UpstreamUnavailableError(
          'The credentials could not be refreshed just now; retry shortly.',
          {
            retryable: true,
          },
        );
      }
    }
    throw new UpstreamUnavailableError(
      'Waited too long for another request to refresh the credentials; retry.',
      {
        retryable: true,
      },
    );
  }
}

export interface InvalidGrantBreakerOptions {
  /** The store key of the window (default `budget:refresh:invalid_grant`; a provider's `RefreshBudget` names its own). */
  key?: string;
  /** The failures counted (default the last 48 h). */
  windowMs?: number;
  /** The breaker opens at this many failures in the window (default 3). */
  threshold?: number;
  /** How long a permit is held at most if its holder never reports back (default 60 s, the refresh lock's life). */
  permitTtlMs?: number;
  /** How long {@link InvalidGrantBreaker.acquire} waits for a free permit (default 10 s). */
  waitMs?: number;
  /** How often a waiting caller looks again (default 250 ms). */
  pollMs?: number;
  /** The clock (default `Date.now`). */
  now?: () => number;
}

/** Why {@link InvalidGrantBreaker.acquire} gave no permit. */
export interface RefreshRefusal {
  /**
   * `open`: the window holds `threshold` failures (nobody refreshes); `busy`: failures plus
   * refreshes in flight filled the budget for the whole wait; `spent`: this subject's own refresh
   * failed in the window already (one identity never spends more than one failure).
   */
  refused: 'open' | 'busy' | 'spent';
}

/** The right to make one upstream refresh; report how it went exactly once. */
export interface RefreshPermit {
  /** The refresh was refused as `invalid_grant`: counts as a failure. */
  failed(): Promise<void>;
  /** Anything else (success, timeout, 5xx): the permit is returned, nothing counted. */
  release(): Promise<void>;
}

interface BudgetRecord {
  /** `<epoch ms>:<random>[:<subject>]` per failure. */
  failures: string[];
  /** Refreshes in flight: each may still fail. */
  pending: Array<{ id: string; until: number }>;
}

/**
 * A store-wide count of failed upstream refreshes (`invalid_grant`) in a sliding window. One
 * shared OAuth client id means one user's dead refresh token counts against everyone; when the
 * count reaches the threshold the breaker is open and nobody refreshes until the window drains.
 *
 * A refresh needs a permit ({@link acquire}), and failures plus refreshes in flight never exceed
 * the threshold: five users with dead refresh tokens refreshing at the same moment on five
 * replicas still cause at most `threshold` failures upstream, not five (a check-then-refresh
 * would let them all through before the first failure is counted). A subject (a user) whose
 * refresh failed in the window gets no further permit: one identity spends at most one failure.
 */
export class InvalidGrantBreaker {
  readonly #store: KvStore;
  readonly #key: string;
  readonly #windowMs: number;
  readonly #threshold: number;
  readonly #permitTtlMs: number;
  readonly #waitMs: number;
  readonly #pollMs: number;
  readonly #now: () => number;

  constructor(store: KvStore, options: InvalidGrantBreakerOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#store = store;
    this.#key = options.key ?? 'budget:refresh:invalid_grant';
    this.#windowMs = options.windowMs ?? 48 * 3600_000;
    this.#threshold = options.threshold ?? 3;
    this.#permitTtlMs = options.permitTtlMs ?? 60_000;
    this.#waitMs = options.waitMs ?? 10_000;
    this.#pollMs = options.pollMs ?? 250;
  }

  /** Counts one failure (compare-and-set, so concurrent replicas lose none). */
  async record(subject?: string): Promise<void> {
    await this.#update((budget) => {
      budget.failures.push(this.#stamp(subject));
      return true;
    });
  }

  /**
   * A permit for one refresh of `subject` (a user id), or why there is none: the breaker is open
   * (the window holds `threshold` failures), the subject already spent a failure in the window,
   * or failures plus refreshes in flight filled the budget for the whole wait (up to `waitMs`, or
   * until `signal` aborts).
   */
  async acquire(
    options: { signal?: AbortSignal; subject?: string } = {},
  ): Promise<RefreshPermit | RefreshRefusal> {
    const { signal, subject } = options;
    const deadline = this.#now() + this.#waitMs;
    const id = randomUUID();
    for (;;) {
      let refused: RefreshRefusal['refused'] | undefined;
      const taken = await this.#update((budget) => {
        if (budget.failures.length >= this.#threshold) refused = 'open';
        else if (subject !== undefined && budget.failures.some((failure) => subjectOf(failure) === subject))
          refused = 'spent';
        else if (budget.failures.length + budget.pending.length < this.#threshold) {
          budget.pending.push({ id, until: this.#now() + this.#permitTtlMs });
          return true;
        }
        return false;
      });
      if (taken) return this.#permit(id, subject);
      if (refused) return { refused };
      if (this.#now() >= deadline || signal?.aborted) return { refused: 'busy' };
      await sleep(this.#pollMs);
    }
  }

  /**
   * The failures in the window, the refreshes in flight, whether the breaker is open, and who
   * spent the failures (the subjects named when they were counted).
   */
  async state(): Promise<{
    failures: number;
    pending: number;
    open: boolean;
    threshold: number;
    subjects: string[];
  }> {
    const budget = this.#parse((await this.#store.get(this.#key))?.value);
    const subjects = new Set(budget.failures.map(subjectOf).filter((subject) => subject !== undefined));
    return {
      failures: budget.failures.length,
      pending: budget.pending.length,
      open: budget.failures.length >= this.#threshold,
      threshold: this.#threshold,
      subjects: [...subjects].sort(),
    };
  }

  #permit(id: string, subject: string | undefined): RefreshPermit {
    let done = false;
    const finish = async (failed: boolean) => {
      if (done) return;
      done = true;
      await this.#update((budget) => {
        budget.pending = budget.pending.filter((entry) => entry.id !== id);
        if (failed) budget.failures.push(this.#stamp(subject));
        return true;
      });
    };
    return { failed: () => finish(true), release: () => finish(false) };
  }

  /** Read, change, compare-and-set; `change` answers whether to write. */
  async #update(change: (budget: BudgetRecord) => boolean): Promise<boolean> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const entry = await this.#store.get(this.#key);
      const budget = this.#parse(entry?.value);
      if (!change(budget)) return false;
      const written = await this.#store.set(this.#key, JSON.stringify(budget), {
        ifVersion: entry?.version ?? 0,
        ttlMs: this.#windowMs,
      });
      if (written !== undefined) return true;
      await sleep(Math.floor(Math.random() * 20));
    }
    throw new UpstreamUnavailableError('The refresh failure count could not be updated; retry.', {
      retryable: true,
    });
  }

  #stamp(subject: string | undefined): string {
    const stamp = `${this.#now()}:${randomUUID().slice(0, 8)}`;
    return subject === undefined ? stamp : `${stamp}:${subject}`;
  }

  #parse(value: string | undefined): BudgetRecord {
    const since = this.#now() - this.#windowMs;
    const now = this.#now();
    let raw: unknown;
    try {
      raw = value ? JSON.parse(value) : undefined;
    } catch {
      raw = undefined;
    }
    // Written by an earlier version: a plain list of failures.
    const record = (Array.isArray(raw) ? { failures: raw } : (raw ?? {})) as Partial<BudgetRecord>;
    return {
      failures: (Array.isArray(record.failures) ? record.failures : []).filter(
        (item): item is string => typeof item === 'string' && Number.parseInt(item, 10) > since,
      ),
      pending: (Array.isArray(record.pending) ? record.pending : []).filter(
        (entry) => typeof entry?.id === 'string' && typeof entry.until === 'number' && entry.until > now,
      ),
    };
  }
}

/** The subject of a counted failure (`<ms>:<random>:<subject>`), if it names one. */
function subjectOf(failure: string): string | undefined {
  const second = failure.indexOf(':', failure.indexOf(':') + 1);
  return second < 0 ? undefined : failure.slice(second + 1);
}
