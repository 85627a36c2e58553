import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger, SignInClient } from '@x/mcp-core';
import { requestTarget } from '@x/mcp-core/node';
import type { Keyring } from '../crypto.js';
import { KeyUnavailableError, StoreUnavailableError } from '../errors.js';
import type { SigningKeySet } from '../signing-keys.js';
import type { KvStore } from '../store/kv.js';
import { type AuthServerContext, authServerSettings } from './authorization/context.js';
import { createProviderEndpoints } from './authorization/endpoints.js';
import { createGrants } from './authorization/grants.js';
import { createRequestGuards, type RateLimitedEndpoint } from './authorization/guards.js';
import { createInteraction } from './authorization/interaction.js';
import { providerConfiguration, providerInstances } from './authorization/provider-config.js';
import { createUpstreamCallback } from './authorization/upstream-callback.js';
import type { Connections } from './connections.js';
import { requestScope } from './interaction-cookie.js';
import type { Limit, TrustProxy } from './limits.js';

export { DEFAULT_REDIRECT_HOSTS } from './authorization/context.js';
export {
  DEFAULT_RATE_LIMITS,
  DEFAULT_REGISTRATION_LIMIT,
  type RateLimitedEndpoint,
} from './authorization/guards.js';
export { cimdFetchAllowed } from './authorization/provider-config.js';
export { redirectUriAllowed } from './redirect-uris.js';
export { MCP_SCOPE } from './scopes.js';

export interface AuthorizationServerOptions {
  /** Issuer: the public origin, e.g. `https://mcp.example.com` (no path). */
  issuer: string;
  /** The protected resource (`<issuer>/mcp`): every access token's audience. */
  resource: string;
  store: KvStore;
  keyring: Keyring;
  /** What it signs access tokens with (each new key set rebuilds the oidc-provider instance). */
  signingKeys: SigningKeySet;
  /** The provider sign-in users sign in with (its declaration names the upstream and the callback). */
  signIn: SignInClient;
  connections: Connections;
  /** Upstream account ids a user must belong to; empty: any account the provider serves. */
  allowedAccounts?: readonly string[];
  /** Email domains a sign-in identity must have (a second gate); empty: any. */
  allowedEmailDomains?: readonly string[];
  /**
   * Why the operator's policy refuses this person on this account (a sentence for the sign-in
   * page), or undefined when it admits them. Asked per account at sign-in.
   */
  signInRefusal?(who: { userId: string; email: string; accountId: string }): string | undefined;
  /** Dynamic client registration (RFC 7591/7592). Default true. */
  registration?: boolean;
  /** Hosts (exact) a client's redirect URI may point at over HTTPS; loopback over HTTP is always allowed. */
  redirectHosts?: readonly string[];
  /** Private-use URI schemes (`cursor`, `com.example.app`) native clients may register. Default none. */
  redirectSchemes?: readonly string[];
  /** Access token lifetime in seconds. Default 3600. */
  accessTokenTtl?: number;
  /** Refresh token (and grant) lifetime in seconds. Default 30 days. */
  refreshTokenTtl?: number;
  /** Shown on the consent page. */
  serverName?: string;
  /**
   * Client ID Metadata Documents (a client id that is an HTTPS URL of its metadata): off unless
   * given. Only documents on `hosts` (exact host names) are fetched; oidc-provider also refuses
   * to connect to special-use addresses (loopback, private, link-local).
   */
  cimd?: { hosts: readonly string[]; fetch?: typeof fetch };
  /**
   * A dynamically registered client unused this long is forgotten (seconds; sliding, renewed
   * at most daily). Default 30 days. Claude registers a new client on every connection.
   */
  clientTtl?: number;
  /**
   * Dynamic registrations per client address and window, counted in the store across replicas
   * (Claude registers on every connection, and all Claude traffic comes from Anthropic's
   * addresses; a flood is refused with 429). Default 120 per 10 minutes; `false`: none.
   */
  registrationLimit?: Limit | false;
  /**
   * Requests per client address and window on `/authorize`, `/token` and `/interaction/*`,
   * counted in each replica's memory (no store write per request); `false` turns one off.
   * Defaults: {@link DEFAULT_RATE_LIMITS}. Past a limit: 429 with Retry-After.
   */
  rateLimits?: Partial<Record<RateLimitedEndpoint, Limit | false>>;
  /**
   * Which `X-Forwarded-For` entries name the client for the limits (`MCP_TRUST_PROXY`): the
   * number of proxies in front, or their addresses. Default `{ hops: 0 }`: the socket's address.
   */
  trustProxy?: TrustProxy;
  logger?: Logger;
}

/** CIMD hosts when enabled without a list: where Claude and ChatGPT publish their documents. */
export const DEFAULT_CIMD_HOSTS: readonly string[] = ['claude.ai', 'chatgpt.com', 'openai.com'];

export interface AuthorizationServer {
  /** The oidc-provider instance (typed loosely: the package ships no types of oidc-provider). */
  provider: { readonly issuer: string };
  /** Serves the AS routes, the interaction pages and the upstream callback; `false` for other paths. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** The user this browser is signed in as (our session cookie), if any. */
  sessionUser(req: IncomingMessage, res: ServerResponse): Promise<string | undefined>;
}

/**
 * The OAuth 2.1 authorization server at the public origin's root, on oidc-provider: discovery
 * (RFC 8414 and OIDC), `/authorize`, `/token`, `/register` (RFC 7591/7592), `/revoke`, `/jwks`;
 * PKCE S256 required; `resource` (RFC 8707) bound into ES256 JWT access tokens for `/mcp`; `iss`
 * in the authorization response (RFC 9207); refresh tokens rotated for public clients. Its
 * interaction is ours: a consent page per client, then the upstream sign-in with a single-use
 * server-side `state` bound to the browser, the account allowlist, the encrypted connection.
 *
 * The parts, in `authorization/`: what they share (context.ts); oidc-provider's configuration
 * and instances (provider-config.ts, client-adapters.ts); what every request passes first
 * (guards.ts); oidc-provider's endpoints (endpoints.ts); `/oauth/callback/<provider>`
 * (upstream-callback.ts); `/interaction/<uid>` (interaction.ts, consent.ts, account-choice.ts);
 * how a sign-in ends (grants.ts); what it keeps between steps (records.ts).
 */
export async function createAuthorizationServer(
  options: AuthorizationServerOptions,
): Promise<AuthorizationServer> {
  const settings = authServerSettings(options);
  const instances = providerInstances(
    settings,
    providerConfiguration(settings, options),
    options.signingKeys,
  );
  const context: AuthServerContext = {
    ...settings,
    get provider() {
      return instances.current.provider;
    },
  };
  const { issuer, logger, secure, signInCallback } = context;
  const guard = createRequestGuards(settings, options);
  const endpoints = createProviderEndpoints(context, instances, options.signingKeys);
  const upstreamCallback = createUpstreamCallback(context, options);
  const interaction = createInteraction(context, createGrants(context));

  async function route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const path = url.pathname;
    if (await guard(req, res, path)) return true;
    if (await endpoints(req, res, url)) return true;
    if (path === signInCallback) {
      await upstreamCallback(req, res, url);
      return true;
    }
    const match = /^\/interaction\/([\w-]{10,64})(?:\/(decision|done|account))?$/.exec(path);
    if (match?.[1]) {
      await interaction(req, res, match[1], match[2]);
      return true;
    }
    return false;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = requestTarget(req.url, issuer);
    if (!url) return false;
    try {
      return await requestScope.run({ req, res }, () => route(req, res, url));
    } catch (error) {
      if (res.headersSent) throw error;
      if (StoreUnavailableError.isInstance(error)) {
        if (KeyUnavailableError.isInstance(error)) logger.error(error.message, { keyId: error.keyId });
        res.writeHead(503, { 'retry-after': String(error.retryAfterSeconds), 'content-type': 'text/plain' });
        res.end('The server cannot reach its store right now; retry shortly.');
        return true;
      }
      throw error;
    }
  }

  const sessionUser = async (req: IncomingMessage, res: ServerResponse) =>
    (await context.provider.Session.get({ req, res, secure })).accountId || undefined;

  return {
    get provider() {
      return context.provider;
    },
    handle,
    sessionUser,
  };
}
