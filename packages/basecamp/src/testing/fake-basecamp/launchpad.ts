import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FakeBasecamp, FakeIdentity, RecordedRequest } from '../fake-basecamp.js';
import { ACCOUNT_ID, ME, SECOND_ACCOUNT_ID } from '../fixtures.js';
import type { BasecampState } from './state.js';

/**
 * The fake Launchpad (37signals' OAuth server): `/authorization/new` approves at once and
 * redirects with a code, `/authorization/token` exchanges codes and refresh tokens (the
 * `web_server` / `refresh` legacy types too), `/authorization.json` names the identity and its
 * accounts, and `DELETE /authorization.json` revokes the access token.
 */
/** `state` is the handle the tests hold: its `url`, counters and the current access token. */
export function createLaunchpad(world: BasecampState, state: FakeBasecamp) {
  const { options, client, lifetime, accessTokens, refreshTokens, refreshIdentities, codes, issueTokens } =
    world;

  function launchpad(
    record: RecordedRequest,
    url: URL,
    reply: (status: number, body?: unknown, headers?: Record<string, string>) => void,
    response: ServerResponse,
  ): void {
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
      codes.set(code, { redirectUri, ...(world.signingIn ? { identity: world.signingIn } : {}) });
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
        const tokens = issueTokens();
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
          state.refreshes.failed++;
          reply(400, { error: 'invalid_grant' });
          return;
        }
        state.refreshes.succeeded++;
        const accessToken = `bc-access-${randomBytes(12).toString('hex')}`;
        const owner = refreshIdentities.get(form.refresh_token);
        accessTokens.set(accessToken, {
          expiresAt: Date.now() + lifetime * 1000,
          ...(owner ? { identity: owner } : {}),
        });
        state.accessToken = accessToken;
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
        state.revoked.push(bearer);
        reply(204);
        return;
      }
      const accounts = [
        {
          product: 'bc3',
          id: Number(ACCOUNT_ID),
          name: 'Honcho Design',
          href: `${state.url}/${ACCOUNT_ID}`,
          app_href: `https://3.basecamp.com/${ACCOUNT_ID}`,
        },
      ];
      if (options.accounts !== 'one') {
        accounts.push(
          {
            product: 'bc3',
            id: Number(SECOND_ACCOUNT_ID),
            name: 'Side Projects',
            href: `${state.url}/${SECOND_ACCOUNT_ID}`,
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
              href: `${state.url}/${account.id}`,
              app_href: `https://3.basecamp.com/${account.id}`,
            }))
          : accounts,
      });
      return;
    }
    reply(404, { error: 'not_found' });
  }

  return launchpad;
}
