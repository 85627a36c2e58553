import { UpstreamError, UpstreamUnavailableError } from '@x/mcp-core';

/** The hosted server's one registered Launchpad app (BASECAMP_CLIENT_ID / _SECRET / _LAUNCHPAD_URL). */
export interface LaunchpadApp {
  clientId: string;
  clientSecret: string;
  /** Default `https://launchpad.37signals.com`. */
  url: string;
  /** `<public>/oauth/callback/basecamp`, registered exactly at Launchpad. */
  redirectUri: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export interface LaunchpadTokens {
  accessToken: string;
  refreshToken: string | undefined;
  /** Epoch ms. */
  expiresAt: number;
}

export interface LaunchpadAccount {
  id: string;
  name: string;
  product: string;
}

export interface LaunchpadIdentity {
  id: string;
  name: string;
  email: string;
  accounts: LaunchpadAccount[];
}

/** Launchpad said the grant is dead (`invalid_grant`, `authorization_expired`, unknown identity). */
export class LaunchpadGrantError extends Error {
  constructor(readonly error: string) {
    super(`Launchpad refused the grant (${error}).`);
    this.name = 'LaunchpadGrantError';
  }
}

/**
 * The three Launchpad calls the hosted sign-in needs: the authorization URL, the code exchange
 * (and refresh) at `/authorization/token`, and the identity with its accounts from
 * `/authorization.json`. Tokens and the client secret never appear in errors.
 */
export class Launchpad {
  readonly #app: LaunchpadApp;
  readonly #fetch: typeof fetch;

  constructor(app: LaunchpadApp) {
    this.#app = app;
    this.#fetch = app.fetch ?? fetch;
  }

  authorizationUrl(state: string): string {
    const url = new URL('/authorization/new', this.#app.url);
    url.searchParams.set('type', 'web_server');
    url.searchParams.set('client_id', this.#app.clientId);
    url.searchParams.set('redirect_uri', this.#app.redirectUri);
    url.searchParams.set('state', state);
    return url.toString();
  }

  exchangeCode(code: string, signal?: AbortSignal): Promise<LaunchpadTokens> {
    return this.#token({ type: 'web_server', code, redirect_uri: this.#app.redirectUri }, signal);
  }

  refresh(refreshToken: string, signal?: AbortSignal): Promise<LaunchpadTokens> {
    return this.#token({ type: 'refresh', refresh_token: refreshToken }, signal);
  }

  async identify(accessToken: string, signal?: AbortSignal): Promise<LaunchpadIdentity> {
    const response = await this.#call(new URL('/authorization.json', this.#app.url), {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
      ...(signal ? { signal } : {}),
    });
    if (response.status === 401) throw new LaunchpadGrantError('invalid_token');
    if (!response.ok)
      throw new UpstreamError(`Launchpad answered ${response.status} to /authorization.json.`);
    const body = (await response.json()) as {
      identity?: { id?: number | string; first_name?: string; last_name?: string; email_address?: string };
      accounts?: Array<{ id?: number | string; name?: string; product?: string }>;
    };
    if (body.identity?.id === undefined) throw new UpstreamError('Launchpad sent no identity.');
    return {
      id: String(body.identity.id),
      name: [body.identity.first_name, body.identity.last_name].filter(Boolean).join(' '),
      email: body.identity.email_address ?? '',
      accounts: (body.accounts ?? [])
        .filter((account) => account.id !== undefined)
        .map((account) => ({
          id: String(account.id),
          name: account.name ?? String(account.id),
          product: account.product ?? '',
        })),
    };
  }

  /** Best effort: revokes an access token Launchpad gave us (e.g. for a refused sign-in). */
  async revoke(accessToken: string): Promise<void> {
    await this.#call(new URL('/authorization.json', this.#app.url), {
      method: 'DELETE',
      headers: { authorization: `Bearer ${accessToken}` },
    }).catch(() => undefined);
  }

  async #token(form: Record<string, string>, signal?: AbortSignal): Promise<LaunchpadTokens> {
    const body = new URLSearchParams({
      ...form,
      client_id: this.#app.clientId,
      client_secret: this.#app.clientSecret,
    });
    const response = await this.#call(new URL('/authorization/token', this.#app.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
      ...(signal ? { signal } : {}),
    });
    const json = (await response.json().catch(() => ({}))) as {
      access_token?: string;
      refresh_token?: string;
      expires_in?: number;
      error?: string;
    };
    if (response.status === 400 || response.status === 401) {
      throw new LaunchpadGrantError(typeof json.error === 'string' ? json.error : `http_${response.status}`);
    }
    if (!response.ok || typeof json.access_token !== 'string') {
      throw new UpstreamUnavailableError(`Launchpad answered ${response.status} to a token request.`, {
        retryable: true,
      });
    }
    return {
      accessToken: json.access_token,
      refreshToken: json.refresh_token ?? form.refresh_token,
      expiresAt: Date.now() + (json.expires_in ?? 1_209_600) * 1000,
    };
  }

  async #call(url: URL, init: RequestInit): Promise<Response> {
    const timeout = AbortSignal.timeout(this.#app.timeoutMs ?? 15_000);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    try {
      return await this.#fetch(url, { ...init, signal });
    } catch (error) {
      throw new UpstreamUnavailableError(`Launchpad is unreachable (${(error as Error).name}).`, {
        retryable: true,
        cause: error,
      });
    }
  }
}
