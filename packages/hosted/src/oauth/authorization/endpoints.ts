import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { SigningKeySet } from '../../signing-keys.js';
import { impliedRequestScopes, MCP_SCOPE, mcpScopesOf } from '../scopes.js';
import type { AuthServerContext } from './context.js';
import type { ProviderInstance } from './provider-config.js';

/** What oidc-provider serves itself (provider-config.ts configures it). */
const PROVIDER_ROUTES =
  /^\/(?:authorize(?:\/[\w-]+)?|token|register(?:\/[\w-]+)?|revoke|jwks|\.well-known\/(?:openid-configuration|oauth-authorization-server))$/;

/**
 * oidc-provider's own endpoints at the origin root: `/authorize` (and its `/authorize/<uid>`
 * resume), `/token`, `/register` (and `/register/<id>`, RFC 7592), `/revoke`, `/jwks` and the
 * discovery documents (`/.well-known/oauth-authorization-server`, `openid-configuration`).
 * Before handing over, `/authorize` gets its implied scopes and `/token` the store's current
 * signing keys. Returns `false` for other paths.
 */
export function createProviderEndpoints(
  context: AuthServerContext,
  instances: { readonly current: ProviderInstance },
  signingKeys: SigningKeySet,
) {
  return async function endpoints(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const path = url.pathname;
    if (!PROVIDER_ROUTES.test(path)) return false;
    if (path === '/authorize' && req.method === 'GET') await addImpliedScopes(context.provider, req, url);
    // Tokens are signed with the store's keys, even when they changed a moment ago.
    if (path === '/token') await signingKeys.sync();
    await instances.current.callback(req, res);
    return true;
  };
}

/**
 * Clients may omit scope (oidc-provider would then grant nothing) or ask for `mcp` alone:
 * both mean read and write, which the request now says with `mcp:read` and `mcp:write` too,
 * so the person can grant read only. A client that registered scopes gets what it registered
 * when it names none, and nothing it did not register is added.
 */
async function addImpliedScopes(provider: Provider, req: IncomingMessage, url: URL) {
  const scope = url.searchParams.get('scope') ?? '';
  const clientId = url.searchParams.get('client_id');
  // A malformed request is oidc-provider's to refuse, as it is.
  if (url.searchParams.getAll('scope').length > 1 || (scope !== '' && !SCOPE_SYNTAX.test(scope))) return;
  const client = clientId ? await provider.Client.find(clientId).catch(() => undefined) : undefined;
  const registered = client?.scope?.split(' ');
  const allowed = (name: string) => !registered || registered.includes(name);
  const fallback = registered ? mcpScopesOf(registered) : [];
  const requested = scope.split(' ').filter(Boolean);
  const scopes = impliedRequestScopes(requested, fallback.length > 0 ? fallback : [MCP_SCOPE], allowed);
  if (scopes.join(' ') === requested.join(' ')) return;
  url.searchParams.set('scope', scopes.join(' '));
  req.url = `${url.pathname}${url.search}`;
}

/** RFC 6749 §3.3 (as oidc-provider checks it): scope tokens separated by single spaces. */
const SCOPE_SYNTAX = /^[\x21\x23-\x5B\x5D-\x7E]+(?: [\x21\x23-\x5B\x5D-\x7E]+)*$/;
