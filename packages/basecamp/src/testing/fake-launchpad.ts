import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { ACCOUNT_ID, ME, SECOND_ACCOUNT_ID } from './fixtures.js';

/** Someone who can sign in at the fake Launchpad (see `signInAs`). */
export interface FakeIdentity {
  id: number;
  firstName: string;
  lastName: string;
  email: string;
  /** The accounts `authorization.json` lists for this identity. Default: the fake's own (`accounts` option). */
  accounts?: Array<{ id: number; name: string; product?: string }>;
}

/** What Launchpad reads of a request (the fake Basecamp's recorded request). */
export interface LaunchpadRequest {
  method: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
  status: number;
}

interface AccessRecord {
  expiresAt: number;
  identity?: FakeIdentity;
}

type Reply = (status: number, body?: unknown, headers?: Record<string, string>) => void;

/**
 * Launchpad (37signals' OAuth server) for the fake Basecamp server: `/authorization/new`
 * approves at once and redirects with a code, `/authorization/token` exchanges codes and refresh
 * tokens (the `web_server` / `refresh` legacy types too), `/authorization.json` names the
 * identity and its accounts, and `DELETE /authorization.json` revokes the access token. It owns
 * the tokens; the API checks bearer tokens against `accessTokens`.
 */
export class FakeLaunchpad {
  readonly #client: { id: string; secret: string };
  readonly #lifetime: number;
  readonly #accounts: 'one' | 'several' | undefined;
  readonly accessTokens = new Map<string, AccessRecord>();
  readonly #refreshTokens = new Set<string>();
  readonly #refreshIdentities = new Map<string, FakeIdentity>();
  readonly #codes = new Map<string, { redirectUri: string; identity?: FakeIdentity }>();
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
  ) {
    this.#client = client;
    this.#lifetime = lifetimeSeconds;
    this.#accounts = accounts;
  }

  /** Issues a token pair, as a login would. */
  issueTokens(): { accessToken: string; refreshToken: string } {
    const accessToken = `bc-access-${randomBytes(12).toString('hex')}`;
    const refreshToken = `bc-refresh-${randomBytes(12).toString('hex')}`;
    this.accessTokens.set(accessToken, { expiresAt: Date.now() + this.#lifetime * 1000 });
    this.#refreshTokens.add(refreshToken);
    return { accessToken, refreshToken };
  }

  /** Who approves the next `/authorization/new` requests (`undefined`: the default identity). */
  signInAs(identity: FakeIdentity | undefined): void {
    this.#signingIn = identity;
  }

  /** Every access token issued so far stops working (401). */
  expireAccessTokens(): void {
    for (const token of this.accessTokens.values()) token.expiresAt = 0;
  }

  /** Refresh tokens stop working too (`invalid_grant`). */
  revokeRefreshTokens(): void {
    this.#refreshTokens.clear();
  }

  resetCounters(): void {
    this.refreshes = { succeeded: 0, failed: 0 };
  }

  /** Serves a Launchpad path; `reply` records the status. */
  async handle(record: LaunchpadRequest, url: URL, reply: Reply, response: ServerResponse): Promise<void> {
    const client = this.#client;
    const lifetime = this.#lifetime;
    const { accessTokens } = this;
    const refreshTokens = this.#refreshTokens;
    const refreshIdentities = this.#refreshIdentities;
    const codes = this.#codes;
    if (record.method === 'GET' && url.pathname === '/authorization/new') {
      const type = record.query.response_type ?? (record.query.type === 'web_server' ? 'code' : undefined);
      const redirectUri = record.query.redirect_uri;
      if (type !== 'code' || record.query.client_id !== client.id || !redirectUri) {
        reply(400, 'Invalid authorization request: unknown client or missing redirect_uri.', {
          'content-type': 'text/plain',
        });
        return;
      }
      // The user approves at once (the fake has no sign-in page).
      const code = randomBytes(8).toString('hex');
      codes.set(code, { redirectUri, ...(this.#signingIn ? { identity: this.#signingIn } : {}) });
      const target = new URL(redirectUri);
      target.searchParams.set('code', code);
      if (record.query.state) target.searchParams.set('state', record.query.state);
      record.status = 302;
      response.writeHead(302, { location: target.toString() });
      response.end();
      return;
    }
    if (record.method === 'POST' && url.pathname === '/authorization/token') {
      const form = (record.body ?? {}) as Record<string, string>;
      const grant =
        form.grant_type ??
        (form.type === 'web_server'
          ? 'authorization_code'
          : form.type === 'refresh'
            ? 'refresh_token'
            : undefined);
      if (form.client_id !== client.id || form.client_secret !== client.secret) {
        reply(401, { error: 'invalid_client' });
        return;
      }
      if (grant === 'authorization_code') {
        const code = form.code === undefined ? undefined : codes.get(form.code);
        if (!code || code.redirectUri !== form.redirect_uri) {
          reply(400, { error: 'invalid_grant' });
          return;
        }
        codes.delete(form.code as string);
        const tokens = this.issueTokens();
        if (code.identity) {
          (accessTokens.get(tokens.accessToken) as { identity?: FakeIdentity }).identity = code.identity;
          refreshIdentities.set(tokens.refreshToken, code.identity);
        }
        reply(200, {
          access_token: tokens.accessToken,
          token_type: 'Bearer',
          expires_in: lifetime,
          refresh_token: tokens.refreshToken,
        });
        return;
      }
      if (grant === 'refresh_token') {
        if (!form.refresh_token || !refreshTokens.has(form.refresh_token)) {
          this.refreshes.failed++;
          reply(400, { error: 'invalid_grant' });
          return;
        }
        this.refreshes.succeeded++;
        const accessToken = `bc-access-${randomBytes(12).toString('hex')}`;
        const owner = refreshIdentities.get(form.refresh_token);
        accessTokens.set(accessToken, {
          expiresAt: Date.now() + lifetime * 1000,
          ...(owner ? { identity: owner } : {}),
        });
        this.onRefreshed?.(accessToken);
        reply(200, {
          access_token: accessToken,
          token_type: 'Bearer',
          expires_in: lifetime,
          refresh_token: form.refresh_token,
        });
        return;
      }
      reply(400, { error: 'unsupported_grant_type' });
      return;
    }
    if (url.pathname === '/authorization.json') {
      const bearer = /^Bearer (.+)$/.exec(record.headers.authorization ?? '')?.[1];
      const token = bearer === undefined ? undefined : accessTokens.get(bearer);
      if (!bearer || !token || token.expiresAt <= Date.now()) {
        reply(401, { error: 'invalid_token' });
        return;
      }
      if (record.method === 'DELETE') {
        accessTokens.delete(bearer);
        this.revoked.push(bearer);
        reply(204);
        return;
      }
      const accounts = [
        {
          product: 'bc3',
          id: Number(ACCOUNT_ID),
          name: 'Honcho Design',
          href: `${this.baseUrl}/${ACCOUNT_ID}`,
          app_href: `https://3.basecamp.com/${ACCOUNT_ID}`,
        },
      ];
      if (this.#accounts !== 'one') {
        accounts.push(
          {
            product: 'bc3',
            id: Number(SECOND_ACCOUNT_ID),
            name: 'Side Projects',
            href: `${this.baseUrl}/${SECOND_ACCOUNT_ID}`,
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
          : {
              id: 9_999_999,
              first_name: 'Victor',
              last_name: 'Cooper',
              email_address: ME.email_address,
            },
        accounts: who?.accounts
          ? who.accounts.map((account) => ({
              product: account.product ?? 'bc3',
              id: account.id,
              name: account.name,
              href: `${this.baseUrl}/${account.id}`,
              app_href: `https://3.basecamp.com/${account.id}`,
            }))
          : accounts,
      });
      return;
    }
    reply(404, { error: 'not_found' });
  }
}
