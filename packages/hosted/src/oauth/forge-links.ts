import { AuthRequiredError, McpToolError, UpstreamError, UpstreamUnavailableError } from '@x/mcp-core';
import type { CredentialSource } from '@x/mcp-core/upstream';
import type { Keyring } from '../crypto.js';
import { RefreshCoordinator } from '../refresh.js';
import type { KvStore } from '../store/kv.js';
import { SealedRecords } from '../store/sealed.js';

/** The Forge API the `forge` CLI talks to (with its `/api` prefix). */
export const DEFAULT_FORGE_API_URL = 'https://www.forge-ai.dev/api';
/** Where a signed-in user links Forge, below the public origin. */
export const CONNECT_FORGE_PATH = '/connect/forge';

/** The store key of a user's Forge link. */
export const forgeLinkKey = (userId: string): string => `conn:${userId}:forge`;

/** A user's Forge link, sealed under `conn:<userId>:forge`. */
export interface ForgeLink {
  accessToken: string;
  refreshToken: string;
  /** Epoch ms; Forge does not say at login, so the CLI's 15 minutes are assumed (a 401 renews earlier). */
  expiresAt: number;
  forgeUserId: string;
  teamId: string;
  user: { email: string; displayName: string };
  linkedAt: number;
  updatedAt: number;
}

/** What a Forge provider instance of one user needs (the shape of `@x/mcp-forge`'s `ForgeCredentials`). */
export interface ForgeLinkCredentials {
  accessToken: string;
  teamId: string;
}

/** A started device login. */
export interface ForgeDeviceStart {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  /** Seconds the code lives. */
  expiresIn: number;
  /** Seconds between polls Forge asks for. */
  interval: number;
}

export type ForgeDevicePoll =
  | { status: 'approved'; link: Omit<ForgeLink, 'linkedAt' | 'updatedAt'> }
  | { status: 'pending' }
  | { status: 'refused'; reason: 'expired_token' | 'access_denied' | 'other' };

/** Forge refused a refresh token (400/401/403): only a new link helps. */
export class ForgeGrantError extends Error {
  constructor(readonly status: number) {
    super(`Forge refused the refresh (HTTP ${status}).`);
    this.name = 'ForgeGrantError';
  }
}

/** How long a failed (retryable) refresh is not tried again while the current token is valid. */
const REFRESH_BACKOFF_MS = 30_000;
/** The CLI records a token as valid for 15 minutes; a 401 before then renews it anyway. */
const ASSUMED_TOKEN_LIFETIME_MS = 15 * 60_000;

export interface ForgeAuthOptions {
  /** Forge API base including `/api`. Default `https://www.forge-ai.dev/api`. */
  apiUrl?: string;
  fetch?: typeof fetch;
  /** Time limit of one request in ms. Default 15000. */
  timeoutMs?: number;
}

/**
 * Forge's device login and token refresh as the hosted server uses them (the same endpoints as
 * `forge login`): start a login, poll it once per user action, refresh an access token.
 */
export class ForgeAuth {
  readonly apiUrl: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;

  constructor(options: ForgeAuthOptions = {}) {
    this.apiUrl = (options.apiUrl ?? DEFAULT_FORGE_API_URL).replace(/\/+$/, '');
    this.#fetch = options.fetch ?? fetch;
    this.#timeoutMs = options.timeoutMs ?? 15_000;
  }

  async #post(
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<{ status: number; data: unknown }> {
    let response: Response;
    try {
      response = await this.#fetch(`${this.apiUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: signal
          ? AbortSignal.any([signal, AbortSignal.timeout(this.#timeoutMs)])
          : AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      throw new UpstreamUnavailableError(`Forge cannot be reached at ${this.apiUrl}; try again shortly.`, {
        retryable: true,
        cause: error,
      });
    }
    const text = await response.text();
    let data: unknown;
    try {
      data = text ? JSON.parse(text) : undefined;
    } catch {
      data = undefined;
    }
    return { status: response.status, data };
  }

  /** `POST /auth/device/request`. */
  async start(): Promise<ForgeDeviceStart> {
    const { status, data } = await this.#post('/auth/device/request');
    const body = (data ?? {}) as Record<string, unknown>;
    if (
      status >= 300 ||
      typeof body.deviceCode !== 'string' ||
      typeof body.userCode !== 'string' ||
      typeof body.verificationUri !== 'string'
    ) {
      throw new UpstreamError(`Forge could not start a login (HTTP ${status}).`, {
        retryable: status >= 500,
      });
    }
    return {
      deviceCode: body.deviceCode,
      userCode: body.userCode,
      verificationUri: body.verificationUri,
      expiresIn: typeof body.expiresIn === 'number' && body.expiresIn > 0 ? body.expiresIn : 300,
      interval: typeof body.interval === 'number' && body.interval > 0 ? body.interval : 5,
    };
  }

  /** One `POST /auth/device/token` poll. */
  async poll(deviceCode: string): Promise<ForgeDevicePoll> {
    const { status, data } = await this.#post('/auth/device/token', { deviceCode });
    const body = (data ?? {}) as Record<string, unknown>;
    if (status < 300) {
      const user = (body.user ?? {}) as Record<string, unknown>;
      if (
        typeof body.accessToken !== 'string' ||
        body.accessToken === '' ||
        typeof body.teamId !== 'string'
      ) {
        throw new UpstreamError('Forge approved the login but sent an unexpected token response.');
      }
      return {
        status: 'approved',
        link: {
          accessToken: body.accessToken,
          refreshToken: typeof body.refreshToken === 'string' ? body.refreshToken : '',
          expiresAt: Date.now() + ASSUMED_TOKEN_LIFETIME_MS,
          forgeUserId: typeof body.userId === 'string' ? body.userId : '',
          teamId: body.teamId,
          user: {
            email: typeof user.email === 'string' ? user.email : '',
            displayName: typeof user.displayName === 'string' ? user.displayName : '',
          },
        },
      };
    }
    if (status === 400 && (body.error === 'authorization_pending' || body.error === 'slow_down')) {
      return { status: 'pending' };
    }
    if (status === 400 && (body.error === 'expired_token' || body.error === 'access_denied')) {
      return { status: 'refused', reason: body.error };
    }
    if (status === 429 || status >= 500) {
      throw new UpstreamUnavailableError(`Forge answered HTTP ${status}; try again shortly.`, {
        retryable: true,
      });
    }
    return { status: 'refused', reason: 'other' };
  }

  /** `POST /auth/refresh`: a new access token for the same refresh token. */
  async refresh(
    refreshToken: string,
    signal?: AbortSignal,
  ): Promise<{ accessToken: string; expiresAt: number }> {
    const { status, data } = await this.#post('/auth/refresh', { refreshToken }, signal);
    if (status === 400 || status === 401 || status === 403) throw new ForgeGrantError(status);
    const body = (data ?? {}) as Record<string, unknown>;
    if (status >= 300 || typeof body.accessToken !== 'string' || body.accessToken === '') {
      throw new UpstreamUnavailableError(
        `Forge could not refresh the session (HTTP ${status}); try again shortly.`,
        {
          retryable: true,
        },
      );
    }
    const expiresAt = typeof body.expiresAt === 'string' ? Date.parse(body.expiresAt) : Number.NaN;
    return {
      accessToken: body.accessToken,
      expiresAt: Number.isFinite(expiresAt) ? expiresAt : Date.now() + ASSUMED_TOKEN_LIFETIME_MS,
    };
  }
}

export interface ForgeLinksOptions {
  /** Refresh this long before the access token expires. Default 1 minute. */
  refreshMarginMs?: number;
  refresher?: RefreshCoordinator;
}

/**
 * Per-user Forge links: written by `/connect/forge`, read (and lazily refreshed across replicas,
 * one refresher per user under a store lock) when a Forge tool runs for that user. No link, or a
 * refresh token Forge refused: `AUTH_REQUIRED` with the link page to follow. A dead link is
 * deleted at once, so it is never refreshed again.
 */
export class ForgeLinks {
  readonly #store: KvStore;
  readonly #records: SealedRecords;
  readonly #refresher: RefreshCoordinator;
  readonly #marginMs: number;
  /** Users whose last refresh failed retryably: no new attempt before this time while their token is valid. */
  readonly #backoff = new Map<string, number>();
  readonly auth: ForgeAuth;
  /** `<public>/connect/forge`. */
  readonly connectUrl: string;

  constructor(
    store: KvStore,
    keyring: Keyring,
    auth: ForgeAuth,
    connectUrl: string,
    options: ForgeLinksOptions = {},
  ) {
    this.#store = store;
    this.#records = new SealedRecords(store, keyring);
    this.#refresher = options.refresher ?? new RefreshCoordinator(store, keyring);
    this.#marginMs = options.refreshMarginMs ?? 60_000;
    this.auth = auth;
    this.connectUrl = connectUrl;
  }

  async save(userId: string, link: ForgeLink): Promise<void> {
    await this.#records.set(forgeLinkKey(userId), link);
    this.#backoff.delete(userId);
  }

  async get(userId: string): Promise<ForgeLink | undefined> {
    return (await this.#records.get<ForgeLink>(forgeLinkKey(userId)))?.value;
  }

  /** Removes the user's link; whether there was one. */
  unlink(userId: string): Promise<boolean> {
    return this.#store.delete(forgeLinkKey(userId));
  }

  #required(message: string): McpToolError {
    return new AuthRequiredError(
      `${message} Open ${this.connectUrl} in the browser you signed in to this server with, link your Forge account there, then call the tool again.`,
      {
        details: {
          connect_url: this.connectUrl,
          hint: `Ask the user to open ${this.connectUrl} and link their Forge account.`,
        },
      },
    );
  }

  /** The user's current Forge token and team, refreshed first when it is (about to be) expired. */
  async credentials(userId: string, force?: string): Promise<ForgeLinkCredentials> {
    const key = forgeLinkKey(userId);
    const link = await this.#refresher
      .current<ForgeLink>({
        key,
        needsRefresh: (value) =>
          value.accessToken === force ||
          (value.expiresAt - this.#marginMs <= Date.now() &&
            // After a failed attempt, a still valid token serves a while without another one.
            !(value.expiresAt > Date.now() && (this.#backoff.get(userId) ?? 0) > Date.now())),
        refresh: async (value, signal) => {
          if (!value.refreshToken) throw new ForgeGrantError(0);
          const tokens = await this.auth.refresh(value.refreshToken, signal);
          return { ...value, ...tokens, updatedAt: Date.now() };
        },
      })
      .catch(async (error: unknown) => {
        if (error instanceof ForgeGrantError) {
          await this.#store.delete(key);
          throw this.#required('Your Forge link has expired and was removed.');
        }
        // Forge down or slow: a token that is still valid (refreshed early) serves meanwhile.
        if (McpToolError.isInstance(error) && error.retryable && force === undefined) {
          this.#backoff.set(userId, Date.now() + REFRESH_BACKOFF_MS);
          const current = await this.get(userId);
          if (current && current.expiresAt > Date.now()) return current;
        }
        throw error;
      });
    if (!link) throw this.#required('Forge is not linked for your account on this server.');
    return { accessToken: link.accessToken, teamId: link.teamId };
  }

  /**
   * The user's Forge credentials as `@x/mcp-forge`'s `settings.credentials`: `renew` after a 401
   * refreshes that token now (or ends the link with `AUTH_REQUIRED` when Forge refuses the refresh).
   */
  credentialSource(userId: string): CredentialSource<ForgeLinkCredentials> {
    return {
      current: () => this.credentials(userId),
      renew: (rejected) => this.credentials(userId, rejected.accessToken),
      refused: () =>
        this.#required('Forge refused your linked account even after renewing it; link it again.'),
    };
  }
}
