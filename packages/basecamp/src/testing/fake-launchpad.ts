import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { ACCOUNT_ID, ME, SECOND_ACCOUNT_ID } from './fixtures.js';

/** Someone who can sign in at the fake Launchpad (see `signInAs` and `sessionCookie`). */
export interface FakeIdentity {
  id: number;
  firstName: string;
  lastName: string;
  email: string;
  /** The accounts `authorization.json` lists for this identity. Default: the fake's own (`accounts` option). */
  accounts?: Array<{ id: number; name: string; product?: string }>;
}

/** Launchpad's behaviour knobs (all optional; the defaults are the fake's historic behaviour). */
export interface FakeLaunchpadOptions {
  /**
   * Every refresh answers a new refresh token and retires the one it used; presenting a retired
   * one again is `invalid_grant` (whether the real Launchpad rotates is not documented; the
   * hosted server must survive both). Default false: the refresh token stays the same.
   */
  refreshTokenRotation?: boolean;
  /**
   * With rotation: a reused (retired) refresh token also revokes its whole family, the current
   * refresh token and every access token issued from it (what OAuth 2.1 asks of servers that
   * detect reuse; Launchpad's own behaviour is not documented). Default false.
   */
  reuseRevokesFamily?: boolean;
  /**
   * The abuse tracker: this many failed refreshes (`invalid_grant`) from one client and
   * address within `banWindowMs` ban that client and address; every token request from them is
   * then answered 403 until the window has passed. Default 5 in 48 h, as Launchpad
   * (basecamp/basecamp-cli PR #711). `0` turns the ban off.
   */
  banAfterFailures?: number;
  banWindowMs?: number;
  /** Milliseconds each Launchpad answer is delayed, per endpoint (change later with `setLatency`). */
  latency?: FakeLaunchpadLatency;
  /** The clock (default `Date.now`), for the ban window. */
  now?: () => number;
  /**
   * The people of the sign-in page: a browser without a Launchpad session (and no `signInAs`)
   * is shown a page to pick one of them, as a person signs in at the real Launchpad (the
   * hosted `--sandbox`). Without it the fake approves at once.
   */
  people?: readonly FakeIdentity[];
}

export interface FakeLaunchpadLatency {
  /** `POST /authorization/token` (code exchange and refresh). */
  token?: number;
  /** `GET|DELETE /authorization.json`. */
  identity?: number;
  /** `GET /authorization/new`. */
  authorize?: number;
}

/** What the Launchpad routes need of a recorded request. */
export interface LaunchpadRequest {
  method: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
  status: number;
  /** The caller's address (the ban is per client and address). */
  address?: string;
}

/** The cookie a test browser holds to be signed in at the fake Launchpad as one identity. */
export const LAUNCHPAD_SESSION_COOKIE = 'launchpad_session';

interface AccessRecord {
  expiresAt: number;
  identity?: FakeIdentity;
  family?: string;
}

interface RefreshRecord {
  identity?: FakeIdentity;
  family: string;
  /** Retired by a rotation: presenting it again is reuse. */
  retired: boolean;
}

type Reply = (status: number, body?: unknown, headers?: Record<string, string>) => void;

/**
 * Launchpad (`/authorization/new`, `/authorization/token`, `/authorization.json`) for the fake
 * Basecamp server: identities chosen per browser (a session cookie) or for everyone
 * (`signInAs`), optional refresh-token rotation with reuse detection, the abuse tracker's ban
 * after repeated failed refreshes, and per-endpoint latency.
 */
export class FakeLaunchpad {
  readonly #client: { id: string; secret: string };
  readonly #lifetime: number;
  readonly #accounts: 'one' | 'several' | undefined;
  readonly #options: FakeLaunchpadOptions;
  readonly #now: () => number;
  readonly accessTokens = new Map<string, AccessRecord>();
  readonly #refreshTokens = new Map<string, RefreshRecord>();
  readonly #codes = new Map<string, { redirectUri: string; identity?: FakeIdentity }>();
  readonly #sessions = new Map<string, FakeIdentity>();
  /** Failed refresh times per `client id|address`. */
  readonly #failures = new Map<string, number[]>();
  #latency: FakeLaunchpadLatency;
  #signingIn: FakeIdentity | undefined;
  /** The API base of the fake, for account `href`s. */
  baseUrl = '';
  refreshes = { succeeded: 0, failed: 0 };
  readonly revoked: string[] = [];
  /** The newest access token issued by a refresh (the fake Basecamp's `accessToken`). */
  onRefreshed: ((accessToken: string) => void) | undefined;

  constructor(
    client: { id: string; secret: string },
    lifetimeSeconds: number,
    accounts: 'one' | 'several' | undefined,
    options: FakeLaunchpadOptions = {},
  ) {
    this.#client = client;
    this.#lifetime = lifetimeSeconds;
    this.#accounts = accounts;
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#latency = { ...options.latency };
  }

  /** Issues a token pair, as a login would. */
  issueTokens(identity?: FakeIdentity): { accessToken: string; refreshToken: string } {
    const family = randomBytes(6).toString('hex');
    const accessToken = `bc-access-${randomBytes(12).toString('hex')}`;
    const refreshToken = `bc-refresh-${randomBytes(12).toString('hex')}`;
    this.accessTokens.set(accessToken, {
      expiresAt: Date.now() + this.#lifetime * 1000,
      family,
      ...(identity ? { identity } : {}),
    });
    this.#refreshTokens.set(refreshToken, { family, retired: false, ...(identity ? { identity } : {}) });
    return { accessToken, refreshToken };
  }

  signInAs(identity: FakeIdentity | undefined): void {
    this.#signingIn = identity;
  }

  /** A Launchpad session for `identity`: the cookie a test browser sends to sign in as them. */
  sessionCookie(identity: FakeIdentity): { name: string; value: string } {
    const value = randomBytes(12).toString('hex');
    this.#sessions.set(value, identity);
    return { name: LAUNCHPAD_SESSION_COOKIE, value };
  }

  expireAccessTokens(): void {
    for (const token of this.accessTokens.values()) token.expiresAt = 0;
  }

  /** Refresh tokens stop working (`invalid_grant`): everyone's, or one identity's (by id). */
  revokeRefreshTokens(identityId?: number): void {
    for (const [token, record] of this.#refreshTokens) {
      if (identityId === undefined || record.identity?.id === identityId) this.#refreshTokens.delete(token);
    }
  }

  setLatency(latency: FakeLaunchpadLatency): void {
    this.#latency = { ...latency };
  }

  /** Whether the abuse tracker bans this client and address now. */
  banned(address = '127.0.0.1', clientId = this.#client.id): boolean {
    const limit = this.#options.banAfterFailures ?? 5;
    return limit > 0 && this.#recentFailures(`${clientId}|${address}`).length >= limit;
  }

  resetCounters(): void {
    this.refreshes = { succeeded: 0, failed: 0 };
  }

  /** Serves a Launchpad path; `reply` records the status. */
  async handle(request: LaunchpadRequest, url: URL, reply: Reply, response: ServerResponse): Promise<void> {
    if (request.method === 'GET' && url.pathname === '/authorization/new') {
      await this.#delay('authorize');
      this.#authorize(request, reply, response);
      return;
    }
    // The sign-in page's form: the person picked, and the authorization request it carries.
    if (request.method === 'POST' && url.pathname === '/authorization/new' && this.#options.people) {
      const form = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Record<
        string,
        string
      >;
      const identity = this.#options.people.find((person) => String(person.id) === form.person);
      if (!identity) {
        reply(400, 'Pick a person to sign in as.', { 'content-type': 'text/plain' });
        return;
      }
      const { person: _person, ...query } = form;
      this.#authorize(request, reply, response, { identity, query });
      return;
    }
    if (request.method === 'POST' && url.pathname === '/authorization/token') {
      await this.#delay('token');
      this.#token(request, reply);
      return;
    }
    if (url.pathname === '/authorization.json') {
      await this.#delay('identity');
      this.#authorization(request, reply);
      return;
    }
    reply(404, { error: 'not_found' });
  }

  #authorize(
    request: LaunchpadRequest,
    reply: Reply,
    response: ServerResponse,
    picked?: { identity: FakeIdentity; query: Record<string, string> },
  ): void {
    const query = picked?.query ?? request.query;
    const type = query.response_type ?? (query.type === 'web_server' ? 'code' : undefined);
    const redirectUri = query.redirect_uri;
    if (type !== 'code' || query.client_id !== this.#client.id || !redirectUri) {
      reply(400, 'Invalid authorization request: unknown client or missing redirect_uri.', {
        'content-type': 'text/plain',
      });
      return;
    }
    // The browser's own Launchpad session decides who signs in; else the fake-wide choice.
    const session = readCookie(request.headers.cookie, LAUNCHPAD_SESSION_COOKIE);
    const identity =
      picked?.identity ?? (session ? this.#sessions.get(session) : undefined) ?? this.#signingIn;
    if (!identity && this.#options.people) {
      request.status = 200;
      response.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      });
      response.end(signInPage(query, this.#options.people));
      return;
    }
    // The user approves at once (or picked themselves on the sign-in page).
    const code = randomBytes(8).toString('hex');
    this.#codes.set(code, { redirectUri, ...(identity ? { identity } : {}) });
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    if (query.state) target.searchParams.set('state', query.state);
    request.status = 302;
    response.writeHead(302, { location: target.toString() });
    response.end();
  }

  #token(request: LaunchpadRequest, reply: Reply): void {
    const form = (request.body ?? {}) as Record<string, string>;
    const grant =
      form.grant_type ??
      (form.type === 'web_server'
        ? 'authorization_code'
        : form.type === 'refresh'
          ? 'refresh_token'
          : undefined);
    if (form.client_id !== this.#client.id || form.client_secret !== this.#client.secret) {
      reply(401, { error: 'invalid_client' });
      return;
    }
    const banKey = `${form.client_id}|${request.address ?? '127.0.0.1'}`;
    if (this.banned(request.address ?? '127.0.0.1', form.client_id)) {
      reply(403, {
        error: 'access_denied',
        error_description: 'Too many failed token requests: this client and address are blocked for now.',
      });
      return;
    }
    if (grant === 'authorization_code') {
      const code = form.code === undefined ? undefined : this.#codes.get(form.code);
      if (!code || code.redirectUri !== form.redirect_uri) {
        reply(400, { error: 'invalid_grant' });
        return;
      }
      this.#codes.delete(form.code as string);
      const tokens = this.issueTokens(code.identity);
      reply(200, {
        access_token: tokens.accessToken,
        token_type: 'Bearer',
        expires_in: this.#lifetime,
        refresh_token: tokens.refreshToken,
      });
      return;
    }
    if (grant === 'refresh_token') {
      const presented = form.refresh_token ?? '';
      const record = this.#refreshTokens.get(presented);
      if (!record || record.retired) {
        if (record?.retired && this.#options.reuseRevokesFamily) this.#revokeFamily(record.family);
        this.refreshes.failed++;
        this.#failures.set(banKey, [...this.#recentFailures(banKey), this.#now()]);
        reply(400, { error: 'invalid_grant' });
        return;
      }
      this.refreshes.succeeded++;
      const accessToken = `bc-access-${randomBytes(12).toString('hex')}`;
      this.accessTokens.set(accessToken, {
        expiresAt: Date.now() + this.#lifetime * 1000,
        family: record.family,
        ...(record.identity ? { identity: record.identity } : {}),
      });
      let refreshToken = presented;
      if (this.#options.refreshTokenRotation) {
        record.retired = true;
        refreshToken = `bc-refresh-${randomBytes(12).toString('hex')}`;
        this.#refreshTokens.set(refreshToken, { ...record, retired: false });
      }
      this.onRefreshed?.(accessToken);
      reply(200, {
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: this.#lifetime,
        refresh_token: refreshToken,
      });
      return;
    }
    reply(400, { error: 'unsupported_grant_type' });
  }

  #authorization(request: LaunchpadRequest, reply: Reply): void {
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const token = bearer === undefined ? undefined : this.accessTokens.get(bearer);
    if (!bearer || !token || token.expiresAt <= Date.now()) {
      reply(401, { error: 'invalid_token' });
      return;
    }
    if (request.method === 'DELETE') {
      this.accessTokens.delete(bearer);
      this.revoked.push(bearer);
      reply(204);
      return;
    }
    const base = this.baseUrl;
    const accounts = [
      {
        product: 'bc3',
        id: Number(ACCOUNT_ID),
        name: 'Honcho Design',
        href: `${base}/${ACCOUNT_ID}`,
        app_href: `https://3.basecamp.com/${ACCOUNT_ID}`,
      },
    ];
    if (this.#accounts !== 'one') {
      accounts.push(
        {
          product: 'bc3',
          id: Number(SECOND_ACCOUNT_ID),
          name: 'Side Projects',
          href: `${base}/${SECOND_ACCOUNT_ID}`,
          app_href: `https://3.basecamp.com/${SECOND_ACCOUNT_ID}`,
        },
        {
          product: 'bcx',
          id: 2345678,
          name: 'Honcho Design (Basecamp 2)',
          href: 'https://basecamp.com/2345678/api/v1',
          app_href: 'https://basecamp.com/2345678',
        },
      );
    }
    const who = token.identity;
    reply(200, {
      expires_at: new Date(token.expiresAt).toISOString(),
      identity: who
        ? { id: who.id, first_name: who.firstName, last_name: who.lastName, email_address: who.email }
        : { id: 9_999_999, first_name: 'Victor', last_name: 'Cooper', email_address: ME.email_address },
      accounts: who?.accounts
        ? who.accounts.map((account) => ({
            product: account.product ?? 'bc3',
            id: account.id,
            name: account.name,
            href: `${base}/${account.id}`,
            app_href: `https://3.basecamp.com/${account.id}`,
          }))
        : accounts,
    });
  }

  #revokeFamily(family: string): void {
    for (const [token, record] of this.#refreshTokens) {
      if (record.family === family) this.#refreshTokens.delete(token);
    }
    for (const [token, record] of this.accessTokens) {
      if (record.family === family) this.accessTokens.delete(token);
    }
  }

  #recentFailures(key: string): number[] {
    const since = this.#now() - (this.#options.banWindowMs ?? 48 * 3600_000);
    return (this.#failures.get(key) ?? []).filter((time) => time > since);
  }

  async #delay(endpoint: keyof FakeLaunchpadLatency): Promise<void> {
    const ms = this.#latency[endpoint] ?? 0;
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
  }
}

const html = (text: string) =>
  text.replace(/[&<>"']/g, (char) => (char === '&' ? '&amp;' : `&#${char.charCodeAt(0)};`));

/** The fake Launchpad's sign-in page: one button per person, the request in hidden fields. */
function signInPage(query: Record<string, string>, people: readonly FakeIdentity[]): string {
  const hidden = Object.entries(query)
    .map(([name, value]) => `<input type="hidden" name="${html(name)}" value="${html(value)}">`)
    .join('');
  const buttons = people
    .map((person) => {
      const accounts = (person.accounts ?? []).map((account) => `${account.name} (${account.id})`).join(', ');
      return `<li><button type="submit" name="person" value="${person.id}">${html(`${person.firstName} ${person.lastName}`)}</button> ${html(person.email)}${accounts ? ` · ${html(accounts)}` : ''}</li>`;
    })
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in (fake Launchpad)</title><style>body{font:16px system-ui;margin:2em auto;max-width:40em}li{margin:.5em 0}</style></head><body><h1>Fake Launchpad: sign in as…</h1><p>This is the sandbox's local fake of Basecamp's sign-in (nothing leaves this machine). Pick a person:</p><form method="post" action="/authorization/new">${hidden}<ul>${buttons}</ul></form></body></html>`;
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}
