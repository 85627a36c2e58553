import { McpToolError, TokenExpiredError, UpstreamUnavailableError } from '@x/mcp-core';
import type { CredentialSource } from '@x/mcp-core/upstream';
import type { Keyring } from '../crypto.js';
import { InvalidGrantBreaker, RefreshCoordinator } from '../refresh.js';
import type { KvEntry, KvStore } from '../store/kv.js';
import { type SealedEntry, SealedRecords } from '../store/sealed.js';
import { type Launchpad, LaunchpadGrantError } from './launchpad.js';

/** A user's Basecamp connection, sealed under `conn:<userId>:basecamp`. */
export interface BasecampConnection {
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

/** What a Basecamp provider instance of one user needs. */
export interface BasecampCredentials {
  accessToken: string;
  accountId: string;
}

/** How long a failed (retryable) refresh is not tried again while the current token is valid. */
const REFRESH_BACKOFF_MS = 30_000;
/**
 * How long the credentials checked while authenticating a request serve that request's upstream
 * calls without another store read (the next request reads the store again, always).
 */
export const REQUEST_REUSE_MS = 1_000;
/** Opened connection records kept in memory (the ciphertext must match to be reused). */
const OPENED_CACHE_SIZE = 1_024;

export const connectionKey = (userId: string): string => `conn:${userId}:basecamp`;
/** The sealed profile of a user (name, email, Basecamp account; no secrets). */
export const profileKey = (userId: string): string => `user:${userId}`;

export interface UserProfile {
  name: string;
  email: string;
  accountId: string;
  accountName: string;
}
const backoffKey = (userId: string): string => `backoff:${userId}:basecamp`;
/** Errors that only report the shared back-off (not a new failure). */
const backingOff = new WeakSet<object>();

/** The user id our tokens carry (`sub`) for a Launchpad identity. */
export const basecampUserId = (identityId: string): string => `basecamp:${identityId}`;

export interface ConnectionsOptions {
  /** Refresh this long before the upstream token expires. Default 10 minutes. */
  refreshMarginMs?: number;
  refresher?: RefreshCoordinator;
  breaker?: InvalidGrantBreaker;
}

/**
 * Per-user upstream connections: written at sign-in, read (and lazily refreshed across
 * replicas) when a tool needs the user's Basecamp token. A dead refresh token marks the
 * connection `needs_login` at once (so the next `/mcp` request answers 401 and the client
 * signs in again) and counts against the store-wide invalid_grant budget.
 */
export class Connections {
  readonly #store: KvStore;
  readonly #records: SealedRecords;
  readonly #refresher: RefreshCoordinator;
  readonly #breaker: InvalidGrantBreaker;
  readonly #launchpad: Launchpad;
  readonly #marginMs: number;
  /**
   * Users whose last refresh failed retryably: no new attempt before this time while their token
   * is valid. A local copy of the store's `backoff:<userId>` record (shared by every replica),
   * so a backed-off user costs no store read per request.
   */
  readonly #backoff = new Map<string, number>();
  /** Credentials checked for a request a moment ago (see {@link Connections.forRequest}). */
  readonly #recent = new Map<string, { credentials: BasecampCredentials; until: number }>();

  constructor(store: KvStore, keyring: Keyring, launchpad: Launchpad, options: ConnectionsOptions = {}) {
    this.#store = store;
    this.#records = new SealedRecords(store, keyring, { openedCacheSize: OPENED_CACHE_SIZE });
    this.#refresher = options.refresher ?? new RefreshCoordinator(store, keyring, { records: this.#records });
    this.#breaker = options.breaker ?? new InvalidGrantBreaker(store);
    this.#launchpad = launchpad;
    this.#marginMs = options.refreshMarginMs ?? 10 * 60_000;
  }

  async save(userId: string, connection: BasecampConnection): Promise<void> {
    this.#recent.delete(userId);
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

  async get(userId: string): Promise<BasecampConnection | undefined> {
    return (await this.#records.get<BasecampConnection>(connectionKey(userId)))?.value;
  }

  /** Whether the user can use the server now (an active connection); store errors propagate. */
  async isActive(userId: string): Promise<boolean> {
    return (await this.get(userId))?.status === 'active';
  }

  /**
   * The user's current Basecamp token and account, refreshed first when it expires within the
   * margin. `TOKEN_EXPIRED` when the user must sign in again; retryable `UPSTREAM_UNAVAILABLE`
   * while Launchpad (or the invalid_grant breaker) keeps us from refreshing.
   */
  async basecamp(userId: string): Promise<BasecampCredentials> {
    return this.#basecamp(userId);
  }

  /**
   * `basecamp(userId)` for one authenticated `/mcp` request, from the connection record the
   * caller has just read (`entry`: `store.getMany` with the grant, one round trip). The answer
   * also serves this request's upstream calls (`credentialSource(userId).current()`) for
   * {@link REQUEST_REUSE_MS} without another store read; every new request reads the store again.
   */
  async forRequest(userId: string, entry: KvEntry | undefined): Promise<BasecampCredentials> {
    this.#recent.delete(userId);
    const key = connectionKey(userId);
    return this.#basecamp(userId, () => this.#records.open<BasecampConnection>(key, entry), true);
  }

  async #basecamp(
    userId: string,
    first?: () => Promise<SealedEntry<BasecampConnection> | undefined>,
    remember = false,
  ): Promise<BasecampCredentials> {
    const key = connectionKey(userId);
    const connection = await this.#refresher
      .current<BasecampConnection>({
        key,
        ...(first ? { first } : {}),
        needsRefresh: (value) =>
          value.status === 'active' &&
          value.expiresAt - this.#marginMs <= Date.now() &&
          // After a failed attempt, a still valid token serves a while without another one.
          !(value.expiresAt > Date.now() && (this.#backoff.get(userId) ?? 0) > Date.now()),
        refresh: async (value, signal) => {
          if (!value.refreshToken) throw new LaunchpadGrantError('no_refresh_token');
          // Another replica's attempt failed a moment ago and the token still serves: no new try.
          if (value.expiresAt > Date.now() && (await this.#store.get(backoffKey(userId)))) {
            const error = new UpstreamUnavailableError('A refresh failed a moment ago; retry shortly.', {
              retryable: true,
            });
            backingOff.add(error);
            throw error;
          }
          const permit = await this.#breaker.acquire(signal);
          if (!permit) {
            throw new UpstreamUnavailableError(
              'Basecamp sign-in refreshes are paused after repeated failures; try again later.',
              { retryable: true },
            );
          }
          try {
            const tokens = await this.#launchpad.refresh(value.refreshToken, signal);
            await permit.release();
            return { ...value, ...tokens, status: 'active', updatedAt: Date.now() };
          } catch (error) {
            if (error instanceof LaunchpadGrantError) {
              await permit.failed();
              await this.#records.set(key, {
                ...value,
                status: 'needs_login',
                refreshToken: undefined,
                updatedAt: Date.now(),
              } satisfies BasecampConnection);
            } else {
              await permit.release();
            }
            throw error;
          }
        },
      })
      .catch(async (error: unknown) => {
        if (error instanceof LaunchpadGrantError) return undefined;
        // Launchpad down or slow, or refreshes paused: the current token serves while it is valid.
        const retryable = McpToolError.isInstance(error) && error.retryable;
        if (retryable) {
          this.#backoff.set(userId, Date.now() + REFRESH_BACKOFF_MS);
          // A replica that only saw the shared back-off does not extend it.
          if (!backingOff.has(error as object))
            await this.#store
              .set(backoffKey(userId), '1', { ttlMs: REFRESH_BACKOFF_MS })
              .catch(() => undefined);
        }
        const current = retryable ? await this.get(userId) : undefined;
        if (current?.status === 'active' && current.expiresAt > Date.now()) return current;
        throw error;
      });
    if (connection?.status !== 'active' || connection.expiresAt <= Date.now()) {
      throw new TokenExpiredError(
        'Your Basecamp sign-in has ended. Reconnect this server in your MCP client to sign in again.',
      );
    }
    const credentials = { accessToken: connection.accessToken, accountId: connection.accountId };
    if (remember) {
      const now = Date.now();
      if (this.#recent.size >= OPENED_CACHE_SIZE) {
        for (const [id, recent] of this.#recent) if (recent.until <= now) this.#recent.delete(id);
      }
      this.#recent.set(userId, {
        credentials,
        until: Math.min(now + REQUEST_REUSE_MS, connection.expiresAt),
      });
    }
    return credentials;
  }

  /** Credentials checked for a request within the last {@link REQUEST_REUSE_MS}, if any. */
  #recentlyChecked(userId: string): BasecampCredentials | undefined {
    const recent = this.#recent.get(userId);
    if (recent && recent.until > Date.now()) return recent.credentials;
    return undefined;
  }

  /**
   * Basecamp refused this access token (401) before its time: the next request refreshes it
   * (and a dead refresh token then ends the sign-in). A newer token already stored is kept.
   */
  async rejected(userId: string, accessToken: string): Promise<void> {
    this.#recent.delete(userId);
    const key = connectionKey(userId);
    const entry = await this.#records.get<BasecampConnection>(key);
    if (!entry || entry.value.accessToken !== accessToken || entry.value.status !== 'active') return;
    await this.#records.set(
      key,
      { ...entry.value, expiresAt: 0, updatedAt: Date.now() } satisfies BasecampConnection,
      {
        ifVersion: entry.version,
      },
    );
  }

  /**
   * A `fetch` for the user's Basecamp provider that tells `rejected` when Basecamp answers 401
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
   * The user's Basecamp credentials as a provider's `settings.credentials`: `current` is
   * `basecamp(userId)` (or what the request being served was just admitted with); `renew` after a 401 marks that token expired and refreshes now (or ends
   * the sign-in with `TOKEN_EXPIRED` when the refresh token is dead too).
   */
  credentialSource(userId: string): CredentialSource<BasecampCredentials> {
    return {
      current: async () => this.#recentlyChecked(userId) ?? this.basecamp(userId),
      renew: async (rejected) => {
        await this.rejected(userId, rejected.accessToken);
        return this.basecamp(userId);
      },
    };
  }
}
