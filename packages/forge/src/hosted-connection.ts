import {
  type DevicePoll,
  type DeviceStart,
  type LinkedAccount,
  type LinkedAccountClient,
  type LinkedAccountConnection,
  UpstreamError,
  UpstreamGrantError,
  UpstreamUnavailableError,
} from '@x/mcp-core';
import type { ForgeCredentials } from './auth/credentials.js';

/**
 * Forge in hosted mode (`@x/mcp-forge/connection`): a person signed in to the hosted server
 * links their own Forge account at `<public>/connect/forge` with Forge's device login (the same
 * endpoints as `forge login`). The hosted layer (`@x/mcp-hosted`) runs the link page, the sealed
 * record and the refresh; the Forge specifics are here.
 */

/** The Forge API the `forge` CLI talks to (with its `/api` prefix). */
export const DEFAULT_FORGE_API_URL = 'https://www.forge-ai.dev/api';

/** The CLI records a token as valid for 15 minutes; a 401 before then renews it anyway. */
const ASSUMED_TOKEN_LIFETIME_MS = 15 * 60_000;

/** A Forge link as sealed: the tokens, Forge's ids of the person and team, and who it is. */
export interface ForgeLinkRecord extends LinkedAccount {
  forgeUserId: string;
  teamId: string;
}

export interface ForgeAuthOptions {
  /** Forge API base including `/api`. Default `https://www.forge-ai.dev/api`. */
  url?: string;
  fetch?: typeof fetch;
  /** Time limit of one request in ms. Default 15000. */
  timeoutMs?: number;
}

/**
 * Forge's device login and token refresh as the hosted server uses them: start a login, poll it
 * once per user action, refresh an access token. A refused refresh (400/401/403) is an
 * `UpstreamGrantError`: only a new link helps.
 */
export class ForgeAuth implements LinkedAccountClient {
  readonly url: string;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;

  constructor(options: ForgeAuthOptions = {}) {
    this.url = (options.url ?? DEFAULT_FORGE_API_URL).replace(/\/+$/, '');
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
      response = await this.#fetch(`${this.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: signal
          ? AbortSignal.any([signal, AbortSignal.timeout(this.#timeoutMs)])
          : AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      throw new UpstreamUnavailableError(`Forge cannot be reached at ${this.url}; try again shortly.`, {
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
  async start(): Promise<DeviceStart> {
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
  async poll(deviceCode: string): Promise<DevicePoll> {
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
        account: {
          accessToken: body.accessToken,
          refreshToken: typeof body.refreshToken === 'string' ? body.refreshToken : '',
          expiresAt: Date.now() + ASSUMED_TOKEN_LIFETIME_MS,
          forgeUserId: typeof body.userId === 'string' ? body.userId : '',
          teamId: body.teamId,
          user: {
            email: typeof user.email === 'string' ? user.email : '',
            displayName: typeof user.displayName === 'string' ? user.displayName : '',
          },
        } satisfies ForgeLinkRecord,
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
    if (status === 400 || status === 401 || status === 403) {
      throw new UpstreamGrantError(`http_${status}`, 'Forge');
    }
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

const field = (account: LinkedAccount, name: keyof ForgeLinkRecord): string => {
  const value = account[name];
  return typeof value === 'string' ? value : '';
};

/**
 * Forge's hosted connection: a linked account. Each signed-in person links their own Forge
 * account with the device login; their Forge tools act as that account, on its team.
 */
export const connection: LinkedAccountConnection = {
  kind: 'linked-account',
  provider: 'forge',
  title: 'Forge',
  url: { setting: 'apiUrl', env: 'FORGE_API_URL', default: DEFAULT_FORGE_API_URL },
  refreshMarginMs: 60_000,
  client: (options) => new ForgeAuth(options),
  credentials: (account): ForgeCredentials => ({
    accessToken: account.accessToken,
    teamId: field(account, 'teamId'),
  }),
  describe: (account) => ({
    name: account.user.email || account.user.displayName || field(account, 'forgeUserId'),
    detail: `team ${field(account, 'teamId')}`,
    fields: { email: account.user.email, team: field(account, 'teamId') },
  }),
};
