import {
  type Logger,
  McpToolError,
  type SignInClient,
  TokenExpiredError,
  UpstreamGrantError,
  UpstreamUnavailableError,
} from '@x/mcp-core';
import type { CredentialSource } from '@x/mcp-core/upstream';
import type { Keyring } from '../crypto.js';
import { InvalidGrantBreaker, RefreshCoordinator } from '../refresh.js';
import { CachedStore } from '../store/cached.js';
import type { KvEntry, KvStore } from '../store/kv.js';
import { type SealedEntry, SealedRecords } from '../store/sealed.js';

/**
 * A user's sign-in connection (the identity they signed in with at the upstream), sealed
 * under `conn:<userId>:<provider>`.
 */
export interface SignInRecord {
  status: 'active' | 'needs_login';
  accessToken: string;
  refreshToken: string | undefined;
  /** Epoch ms. */
  expiresAt: number;
  accountId: string;
  accountName: string;
  identity: { id: string; name: string; email: string };
  updatedAt: number;
}

/** What the signed-in provider's instance of one user needs (`settings.credentials`). */
export interface SignInCredentials {
  accessToken: string;
  accountId: string;
}

/** How long a failed (retryable) refresh is not tried again while the current token is valid. */
const REFRESH_BACKOFF_MS = 30_000;
/** Opened connection records kept in memory (the ciphertext must match to be reused). */
const OPENED_CACHE_SIZE = 1_024;

/** The provider a user signed in with: the first part of their id (`<provider>:<identity id>`). */
export const signInProviderOf = (userId: string): string => userId.slice(0, userId.indexOf(':'));
/** The store key of a user's sign-in connection: `conn:<userId>:<provider>`. */
export const connectionKey = (userId: string): string => `conn:${userId}:${signInProviderOf(userId)}`;
/** The sealed profile of a user (name, email, upstream account; no secrets). */
export const profileKey = (userId: string): string => `user:${userId}`;

export interface UserProfile {
  name: string;
  email: string;
  accountId: string;
  accountName: string;
}
const backoffKey = (userId: string): string => `backoff:${userId}:${signInProviderOf(userId)}`;

/** The user id our tokens carry (`sub`) for an identity of a provider's sign-in. */
export const signInUserId = (provider: string, identityId: string): string => `${provider}:${identityId}`;

export interface ConnectionsOptions {
  /** Refresh this long before the upstream token expires. Default 10 minutes. */
  refreshMarginMs?: number;
  refresher?: RefreshCoordinator;
  breaker?: InvalidGrantBreaker;
  /** Where dead sign-ins and refresh failures are reported (user ids, never tokens). */
  logger?: Logger;
}

/**
 * Per-user upstream connections: written at sign-in, read (and lazily refreshed across
 * replicas) when a tool needs the user's upstream token. A dead sign-in — a refresh token the
 * upstream refuses (`invalid_grant`), or an access token the upstream refuses (401) before it is
 * due for a refresh (an early 401 means the app was removed or the password changed, and a
 * refresh would only spend the shared `invalid_grant` budget) — marks
 * the connection `needs_login` at once, so the next `/mcp` request answers 401 and the client
 * signs in again. Each user spends at most one failure of the store-wide budget per window.
 */
export class Connections {
  readonly #store: KvStore;
  readonly #records: SealedRecords;
  /** The store itself, not a replica's copy: for the read that decides to end a sign-in. */
  readonly #direct: SealedRecords;
  readonly #refresher: RefreshCoordinator;
  readonly #breaker: InvalidGrantBreaker;
  readonly #signIn: SignInClient;
  /** The upstream's name in messages (the declaration's `title`). */
  readonly #title: string;
  readonly #marginMs: number;
  readonly #logger: Logger | undefined;
  /**
   * Users whose last refresh failed retryably: no new attempt before this time while their token
   * is valid. A local copy of the store's `backoff:<userId>` record (shared by every replica),
   * so a backed-off user costs no store read per request.
   */
  readonly #backoff = new Map<string, number>();

  constructor(store: KvStore, keyring: Keyring, signIn: SignInClient, options: ConnectionsOptions = {}) {
    this.#store = store;
    this.#records = new SealedRecords(store, keyring, { openedCacheSize: OPENED_CACHE_SIZE });
    this.#direct = new SealedRecords(CachedStore.direct(store), keyring);
    this.#refresher = options.refresher ?? new RefreshCoordinator(store, keyring, { records: this.#records });
    this.#breaker = options.breaker ?? new InvalidGrantBreaker(store, signIn.connection.refreshBudget);
    this.#signIn = signIn;
    this.#title = signIn.connection.title;
    this.#marginMs = options.refreshMarginMs ?? 10 * 60_000;
    this.#logger = options.logger;
  }

  async save(userId: string, connection: SignInRecord): Promise<void> {
    await this.#records.set(connectionKey(userId), connection);
    // Who the user is, kept after a revocation (which deletes the connection) for `users list`.
    await this.#records.set(profileKey(userId), {
      name: connection.identity.name,
      email: connection.identity.email,
      accountId: connection.accountId,
      accountName: connection.accountName,
    } satisfies UserProfile);
    await this.#store.sadd('users', [userId]);
    this.#backoff.delete(userId);
    await this.#store.delete(backoffKey(userId));
  }

  async get(userId: string): Promise<SignInRecord | undefined> {
    return (await this.#records.get<SignInRecord>(connectionKey(userId)))?.value;
  }

  /** Whether the user can use the server now (an active connection); store errors propagate. */
  async isActive(userId: string): Promise<boolean> {
    return (await this.get(userId))?.status === 'active';
  }

  /**
   * The user's current upstream token and account, refreshed first when it expires within the
   * margin. `TOKEN_EXPIRED` when the user must sign in again; retryable `UPSTREAM_UNAVAILABLE`
   * while the upstream (or the invalid_grant breaker) keeps us from refreshing.
   */
  current(userId: string): Promise<SignInCredentials> {
    const ready = this.#ready(this.#records.peek<SignInRecord>(connectionKey(userId)));
    return ready ? Promise.resolve(ready) : this.#current(userId);
  }

  /**
   * `current(userId)` for one authenticated `/mcp` request, from the connection record the
   * caller has just read (`entry`: `store.getMany` with the grant, one round trip).
   */
  forRequest(userId: string, entry: KvEntry | undefined): Promise<SignInCredentials> {
    const key = connectionKey(userId);
    const ready = this.#ready(entry && this.#records.opened<SignInRecord>(key, entry));
    return ready
      ? Promise.resolve(ready)
      : this.#current(userId, () => this.#records.open<SignInRecord>(key, entry));
  }

  /**
   * The credentials of a record already in memory that needs nothing done (active, not due for a
   * refresh): every tool call's path, without the refresh machinery's reads and promises. Anything
   * else (no copy, due, ended) takes `#current`'s way, which decides it.
   */
  #ready(entry: SealedEntry<SignInRecord> | undefined): SignInCredentials | undefined {
    const connection = entry?.value;
    if (connection?.status !== 'active' || this.#due(connection)) return undefined;
    return { accessToken: connection.accessToken, accountId: connection.accountId };
  }

  /** Due for a refresh: expired, or expiring within the margin. */
  #due(connection: SignInRecord): boolean {
    return connection.expiresAt - this.#marginMs <= Date.now();
  }

  async #current(
    userId: string,
    first?: () => Promise<SealedEntry<SignInRecord> | undefined>,
  ): Promise<SignInCredentials> {
    let connection: SignInRecord | undefined;
    try {
      connection = await this.#refresher.current<SignInRecord>({
        key: connectionKey(userId),
        ...(first ? { first } : {}),
        needsRefresh: (value) =>
          value.status === 'active' &&
          this.#due(value) &&
          // After a failed attempt, a still valid token serves a while without another one.
          !(value.expiresAt > Date.now() && (this.#backoff.get(userId) ?? 0) > Date.now()),
        // A record written during the refresh that still holds the tokens it started from is a
        // mark on them (an older replica's "expired"), not a newer sign-in: the new tokens win.
        overwrites: (written, from) => written.accessToken === from.accessToken,
        refresh: (value, signal, version) => this.#refresh(userId, value, signal, version),
      });
    } catch (error) {
      if (!UpstreamGrantError.isInstance(error)) {
        // The upstream down or slow, refreshes paused, or the holder's attempt failed: the current
        // token serves while it is valid.
        if (!McpToolError.isInstance(error) || !error.retryable) throw error;
        const current = await this.get(userId);
        if (current?.status !== 'active' || current.expiresAt <= Date.now()) throw error;
        connection = current;
      }
    }
    if (connection?.status !== 'active' || connection.expiresAt <= Date.now()) {
      throw new TokenExpiredError(
        `Your ${this.#title} sign-in has ended. Reconnect this server in your MCP client to sign in again.`,
      );
    }
    return { accessToken: connection.accessToken, accountId: connection.accountId };
  }

  /** The refresh itself, run by one caller across all replicas (under the refresh lock). */
  async #refresh(
    userId: string,
    value: SignInRecord,
    signal: AbortSignal,
    version: number,
  ): Promise<SignInRecord> {
    if (!value.refreshToken) {
      await this.#endSignIn(userId, value, version, 'no refresh token');
      throw new UpstreamGrantError('no_refresh_token', this.#title);
    }
    // Another replica's attempt failed a moment ago and the token still serves: no new try.
    if (value.expiresAt > Date.now() && (await this.#store.get(backoffKey(userId)))) {
      this.#backoff.set(userId, Date.now() + REFRESH_BACKOFF_MS);
      throw new UpstreamUnavailableError('A refresh failed a moment ago; retry shortly.', {
        retryable: true,
      });
    }
    const permit = await this.#breaker.acquire({ signal, subject: userId });
    if ('refused' in permit) {
      if (permit.refused === 'spent') {
        // This user's own refresh failed within the window: a second failure from one identity
        // would spend everyone's budget. Signing in again is a code exchange, not a refresh.
        await this.#endSignIn(userId, value, version, 'a refresh of this user failed within 48 h');
        throw new UpstreamGrantError('refresh_budget_spent', this.#title);
      }
      throw new UpstreamUnavailableError(
        `${this.#title} sign-in refreshes are paused after repeated failures; try again later.`,
        { retryable: true },
      );
    }
    try {
      const tokens = await this.#signIn.refresh(value.refreshToken, signal);
      await permit.release();
      return { ...value, ...tokens, status: 'active', updatedAt: Date.now() };
    } catch (error) {
      if (UpstreamGrantError.isInstance(error)) {
        await permit.failed();
        const budget = await this.#breaker.state().catch(() => undefined);
        const spent = budget ? `; ${budget.failures} of ${budget.threshold} refused refreshes in 48 h` : '';
        await this.#endSignIn(
          userId,
          value,
          version,
          `${error.upstream} refused the refresh token (${error.error})${spent}`,
        );
      } else {
        await permit.release();
        // Only an attempt that reached (or tried to reach) the upstream backs off: every replica
        // then serves the current token while it is valid instead of trying again at once.
        if (McpToolError.isInstance(error) && error.retryable) {
          this.#backoff.set(userId, Date.now() + REFRESH_BACKOFF_MS);
          await this.#store
            .set(backoffKey(userId), '1', { ttlMs: REFRESH_BACKOFF_MS })
            .catch(() => undefined);
        }
      }
      throw error;
    }
  }

  /**
   * Marks the sign-in dead (`needs_login`, refresh token dropped) unless the record changed since
   * `version`; whether it did.
   */
  async #endSignIn(userId: string, value: SignInRecord, version: number, why: string): Promise<boolean> {
    const written = await this.#records.set(
      connectionKey(userId),
      {
        ...value,
        status: 'needs_login',
        refreshToken: undefined,
        updatedAt: Date.now(),
      } satisfies SignInRecord,
      { ifVersion: version },
    );
    if (written !== undefined)
      this.#logger?.warn(`${this.#title} sign-in ended`, { user: userId, reason: why });
    return written !== undefined;
  }

  /**
   * The upstream refused this access token (401). A token not yet due for a refresh is a dead
   * sign-in (the app was removed or the password changed): the
   * connection is marked `needs_login` and nothing is refreshed. A token due anyway is left to the
   * refresh. A newer token already stored (a refresh, a new sign-in) is kept.
   */
  async rejected(userId: string, accessToken: string): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      // Read from the store itself: this replica's copy may not have seen a write that made the
      // token due (or replaced it) yet, and ending a sign-in on a stale copy cannot be undone.
      const entry = await this.#direct.get<SignInRecord>(connectionKey(userId));
      if (!entry || entry.value.accessToken !== accessToken || entry.value.status !== 'active') return;
      if (this.#due(entry.value)) return;
      const why = `${this.#title} refused an access token before its expiry: the sign-in has ended`;
      if (await this.#endSignIn(userId, entry.value, entry.version, why)) return;
    }
  }

  /**
   * A `fetch` for the user's provider that tells `rejected` when the upstream answers 401
   * to one of this user's tokens, so the stored connection does not keep a dead token.
   */
  reportingFetch(userId: string, inner: typeof fetch = fetch): typeof fetch {
    return async (input, init) => {
      const response = await inner(input, init);
      if (response.status === 401) {
        const header = new Headers(
          init?.headers ?? (input instanceof Request ? input.headers : undefined),
        ).get('authorization');
        const token = /^Bearer (.+)$/.exec(header ?? '')?.[1];
        if (token) await this.rejected(userId, token).catch(() => undefined);
      }
      return response;
    };
  }

  /**
   * The user's credentials as the provider's `settings.credentials`: `current` is
   * `current(userId)`; `renew` after a 401 reports the token (`rejected`) and answers the
   * current credentials: a refreshed token when it was due, `TOKEN_EXPIRED` when the sign-in ended.
   */
  credentialSource(userId: string): CredentialSource<SignInCredentials> {
    return {
      current: () => this.current(userId),
      renew: async (rejected) => {
        await this.rejected(userId, rejected.accessToken);
        return this.current(userId);
      },
    };
  }
}
