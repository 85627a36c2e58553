import {
  type SignInApp,
  type SignInClient,
  type SignInConnection,
  UpstreamError,
  UpstreamGrantError,
  type UpstreamIdentity,
  type UpstreamTokens,
  UpstreamUnavailableError,
} from '@x/mcp-core';

/**
 * Basecamp in hosted mode (`@x/mcp-basecamp/connection`): people sign in with their 37signals
 * login at Launchpad, which is the identity of the hosted server's users. The hosted layer
 * (`@x/mcp-hosted`) runs the sign-in, the refresh and the ban budget; the Launchpad specifics
 * are here.
 */

/** Launchpad's origin. */
export const DEFAULT_LAUNCHPAD_URL = 'https://launchpad.37signals.com';

/** A Launchpad identity's account, before it is filtered to the ones Basecamp's tools serve. */
export interface LaunchpadAccount {
  id: string;
  name: string;
  product: string;
}

/** The Launchpad accounts the Basecamp tools serve: Basecamp 3/4 (`bc3`), not Basecamp 2 or Highrise. */
const SERVED_PRODUCT = 'bc3';

/**
 * The Launchpad calls the hosted sign-in needs: the authorization URL, the code exchange (and
 * refresh) at `/authorization/token`, and the identity with its accounts from
 * `/authorization.json`. Tokens and the client secret never appear in errors. Launchpad's refusal
 * (`invalid_grant`, `authorization_expired`, an unknown identity) is an `UpstreamGrantError`.
 */
export class Launchpad implements SignInClient {
  readonly connection: SignInConnection = connection;
  readonly #app: SignInApp;
  readonly #fetch: typeof fetch;

  constructor(app: SignInApp) {
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

  exchangeCode(code: string, signal?: AbortSignal): Promise<UpstreamTokens> {
    return this.#token({ type: 'web_server', code, redirect_uri: this.#app.redirectUri }, signal);
  }

  refresh(refreshToken: string, signal?: AbortSignal): Promise<UpstreamTokens> {
    return this.#token({ type: 'refresh', refresh_token: refreshToken }, signal);
  }

  /** The identity and its Basecamp 3/4 accounts (the only ones the tools serve). */
  async identify(accessToken: string, signal?: AbortSignal): Promise<UpstreamIdentity> {
    const identity = await this.identity(accessToken, signal);
    return {
      ...identity,
      accounts: identity.accounts
        .filter((account) => account.product === SERVED_PRODUCT)
        .map(({ id, name }) => ({ id, name })),
    };
  }

  /** `/authorization.json`: the identity with every account of the login, whatever its product. */
  async identity(
    accessToken: string,
    signal?: AbortSignal,
  ): Promise<Omit<UpstreamIdentity, 'accounts'> & { accounts: LaunchpadAccount[] }> {
    const response = await this.#call(new URL('/authorization.json', this.#app.url), {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
      ...(signal ? { signal } : {}),
    });
    if (response.status === 401) throw new UpstreamGrantError('invalid_token', 'Launchpad');
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

  async #token(form: Record<string, string>, signal?: AbortSignal): Promise<UpstreamTokens> {
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
      throw new UpstreamGrantError(
        typeof json.error === 'string' ? json.error : `http_${response.status}`,
        'Launchpad',
      );
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

/**
 * Basecamp's hosted connection: a Launchpad sign-in that is the user's identity. One registered
 * Launchpad app serves every user, and Launchpad bans the client and IP after five
 * `invalid_grant` answers in 48 hours (basecamp/basecamp-cli PR #711): the server stops
 * refreshing for everyone at three, so one user's dead token cannot get the app banned.
 */
export const connection: SignInConnection = {
  kind: 'sign-in',
  provider: 'basecamp',
  title: 'Basecamp',
  env: {
    clientId: 'BASECAMP_CLIENT_ID',
    clientSecret: 'BASECAMP_CLIENT_SECRET',
    url: 'BASECAMP_LAUNCHPAD_URL',
    allowedAccounts: 'BASECAMP_ALLOWED_ACCOUNTS',
  },
  defaultUrl: DEFAULT_LAUNCHPAD_URL,
  access: {
    read: 'read your Basecamp projects, to-dos, messages, comments, documents, files, schedules, card tables, chats and people',
    write:
      'create and change to-dos, messages, comments, documents, files, cards and schedule entries, and move, archive or trash them',
  },
  // The policy's `projects` become the person's `projects` setting (decision 0022's allowlist).
  projects: { setting: 'projects' },
  refreshBudget: {
    key: 'budget:launchpad:invalid_grant',
    windowMs: 48 * 3600_000,
    threshold: 3,
    checkName: 'launchpad-refresh',
    reason: 'Launchpad bans at 5',
  },
  client: (app) => new Launchpad(app),
};
