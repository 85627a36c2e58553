import {
  AuthRequiredError,
  type LinkedAccount,
  type LinkedAccountClient,
  type LinkedAccountConnection,
  McpToolError,
  UpstreamGrantError,
} from '@x/mcp-core';
import type { CredentialSource } from '@x/mcp-core/upstream';
import type { Keyring } from '../crypto.js';
import { RefreshCoordinator } from '../refresh.js';
import type { KvStore } from '../store/kv.js';
import { SealedRecords } from '../store/sealed.js';
import { linkedAccountKey } from './admin.js';

/** Where a signed-in user links an account of a provider, below the public origin: `/connect/<provider>`. */
export const connectPath = (provider: string): string => `/connect/${provider}`;

/** A user's link as sealed under `conn:<userId>:<provider>`: the provider's account, and when it was linked. */
export type LinkRecord = LinkedAccount & { linkedAt: number; updatedAt: number };

/** How long a failed (retryable) refresh is not tried again while the current token is valid. */
const REFRESH_BACKOFF_MS = 30_000;

export interface LinkedAccountsOptions {
  /** Refresh this long before the access token expires. Default: the declaration's. */
  refreshMarginMs?: number;
  refresher?: RefreshCoordinator;
}

/**
 * Per-user links of one linked-account provider (its declared `connection`): written by
 * `/connect/<provider>`, read (and lazily refreshed across replicas, one refresher per user under
 * a store lock) when one of its tools runs for that user. No link, or a refresh token the upstream
 * refused: `AUTH_REQUIRED` with the link page to follow. A dead link is deleted at once, so it is
 * never refreshed again.
 */
export class LinkedAccounts {
  readonly #store: KvStore;
  readonly #records: SealedRecords;
  readonly #refresher: RefreshCoordinator;
  readonly #marginMs: number;
  /** Users whose last refresh failed retryably: no new attempt before this time while their token is valid. */
  readonly #backoff = new Map<string, number>();
  readonly connection: LinkedAccountConnection;
  readonly auth: LinkedAccountClient;
  /** `<public>/connect/<provider>`. */
  readonly connectUrl: string;
  readonly #title: string;

  constructor(
    store: KvStore,
    keyring: Keyring,
    auth: LinkedAccountClient,
    connection: LinkedAccountConnection,
    connectUrl: string,
    options: LinkedAccountsOptions = {},
  ) {
    this.#store = store;
    this.#records = new SealedRecords(store, keyring);
    this.#refresher = options.refresher ?? new RefreshCoordinator(store, keyring);
    this.#marginMs = options.refreshMarginMs ?? connection.refreshMarginMs;
    this.connection = connection;
    this.#title = connection.title;
    this.auth = auth;
    this.connectUrl = connectUrl;
  }

  #key(userId: string): string {
    return linkedAccountKey(userId, this.connection.provider);
  }

  async save(userId: string, link: LinkRecord): Promise<void> {
    await this.#records.set(this.#key(userId), link);
    this.#backoff.delete(userId);
  }

  async get(userId: string): Promise<LinkRecord | undefined> {
    return (await this.#records.get<LinkRecord>(this.#key(userId)))?.value;
  }

  /** Removes the user's link; whether there was one. */
  unlink(userId: string): Promise<boolean> {
    return this.#store.delete(this.#key(userId));
  }

  #required(message: string): McpToolError {
    return new AuthRequiredError(
      `${message} Open ${this.connectUrl} in the browser you signed in to this server with, link your ${this.#title} account there, then call the tool again.`,
      {
        details: {
          connect_url: this.connectUrl,
          hint: `Ask the user to open ${this.connectUrl} and link their ${this.#title} account.`,
        },
      },
    );
  }

  /** The user's current credentials (the declaration's), refreshed first when the token is (about to be) expired. */
  async credentials(userId: string, force?: string): Promise<unknown> {
    const key = this.#key(userId);
    const link = await this.#refresher
      .current<LinkRecord>({
        key,
        needsRefresh: (value) =>
          value.accessToken === force ||
          (value.expiresAt - this.#marginMs <= Date.now() &&
            // After a failed attempt, a still valid token serves a while without another one.
            !(value.expiresAt > Date.now() && (this.#backoff.get(userId) ?? 0) > Date.now())),
        refresh: async (value, signal) => {
          if (!value.refreshToken) throw new UpstreamGrantError('no_refresh_token', this.#title);
          const tokens = await this.auth.refresh(value.refreshToken, signal);
          return { ...value, ...tokens, updatedAt: Date.now() };
        },
      })
      .catch(async (error: unknown) => {
        if (UpstreamGrantError.isInstance(error)) {
          await this.#store.delete(key);
          throw this.#required(`Your ${this.#title} link has expired and was removed.`);
        }
        // The upstream down or slow: a token that is still valid (refreshed early) serves meanwhile.
        if (McpToolError.isInstance(error) && error.retryable && force === undefined) {
          this.#backoff.set(userId, Date.now() + REFRESH_BACKOFF_MS);
          const current = await this.get(userId);
          if (current && current.expiresAt > Date.now()) return current;
        }
        throw error;
      });
    if (!link) throw this.#required(`${this.#title} is not linked for your account on this server.`);
    return this.connection.credentials(link);
  }

  /**
   * The user's credentials as the provider's `settings.credentials`: `renew` after a 401
   * refreshes that token now (or ends the link with `AUTH_REQUIRED` when the upstream refuses the refresh).
   */
  credentialSource<C extends { accessToken: string }>(userId: string): CredentialSource<C> {
    return {
      current: async () => (await this.credentials(userId)) as C,
      renew: async (rejected) => (await this.credentials(userId, rejected.accessToken)) as C,
      refused: () =>
        this.#required(`${this.#title} refused your linked account even after renewing it; link it again.`),
    };
  }
}
