import type { AuthInfo } from '@modelcontextprotocol/server';
import {
  ConfigError,
  createLogger,
  type LinkedAccountConnection,
  type Logger,
  type SignInConnection,
  type ToolRegistry,
} from '@x/mcp-core';
import { type HttpAuth, isLoopbackHost } from '@x/mcp-core/node';
import type { JWK } from 'jose';
import type { Keyring } from '../crypto.js';
import { adoptKeyMeta } from '../key-meta.js';
import { oidcKeys } from '../oidc-adapter.js';
import { publicJwks, SigningKeySet } from '../signing-keys.js';
import { CachedStore } from '../store/cached.js';
import type { KvStore } from '../store/kv.js';
import {
  type AuthorizationServer,
  type AuthorizationServerOptions,
  createAuthorizationServer,
  DEFAULT_CIMD_HOSTS,
  DEFAULT_REDIRECT_HOSTS,
} from './authorization-server.js';
import { createConnectLinked } from './connect-linked.js';
import { Connections, type SignInCredentials } from './connections.js';
import type { TrustProxy } from './limits.js';
import { connectPath, LinkedAccounts } from './linked-accounts.js';
import { createMcpCallers, hostedHttpAuth } from './resource/callers.js';
import { createResourceServer, type ResourceServer } from './resource-server.js';

export interface HostedAuthOptions {
  /** The public origin users paste into their client, e.g. `https://mcp.example.com` (HTTPS; HTTP only on loopback). */
  publicUrl: string;
  /** The MCP endpoint's path. Default `/mcp`. */
  mcpPath?: string;
  store: KvStore;
  keyring: Keyring;
  /**
   * How users sign in: a provider's declared sign-in (`ProviderMetadata.connection` of kind
   * `sign-in`), and the app the operator registered there (`url` defaults to the declaration's).
   */
  signIn: {
    connection: SignInConnection;
    clientId: string;
    clientSecret: string;
    url?: string;
    fetch?: typeof fetch;
  };
  /** Upstream account ids a user must belong to (the declaration's `env.allowedAccounts`); empty: any. */
  allowedAccounts?: readonly string[];
  /** Email domains a sign-in identity must have (`MCP_ALLOWED_EMAIL_DOMAINS`); empty: any. */
  allowedEmailDomains?: readonly string[];
  /** Why the operator's policy refuses a person on an account at sign-in (a sentence for the page); undefined: admitted. */
  signInRefusal?(who: { userId: string; email: string; accountId: string }): string | undefined;
  /** Dynamic client registration (`MCP_OAUTH_DCR`). Default true. */
  registration?: boolean;
  /** Redirect URI hosts for clients (`MCP_OAUTH_REDIRECT_HOSTS`); loopback is always allowed. */
  redirectHosts?: readonly string[];
  /** Private-use schemes native clients may register (`MCP_OAUTH_REDIRECT_SCHEMES`). Default none. */
  redirectSchemes?: readonly string[];
  /** `MCP_OAUTH_ACCESS_TTL` in seconds. Default 3600. */
  accessTokenTtl?: number;
  /** `MCP_OAUTH_REFRESH_TTL` in seconds. Default 30 days. */
  refreshTokenTtl?: number;
  serverName?: string;
  /** `MCP_OAUTH_CLIENT_TTL`: seconds an unused registered client is kept. Default 30 days. */
  clientTtl?: number;
  /** Dynamic registrations per client address and window, shared by all replicas through the store (`MCP_LIMIT_REGISTER`). Default 120 per 10 minutes. */
  registrationLimit?: AuthorizationServerOptions['registrationLimit'];
  /** Per-address limits on `/authorize`, `/token`, `/interaction/*` (`MCP_LIMIT_*`); see `DEFAULT_RATE_LIMITS`. */
  rateLimits?: AuthorizationServerOptions['rateLimits'];
  /** The proxies in front (`MCP_TRUST_PROXY`), for the client address of the limits. Default: none. */
  trustProxy?: TrustProxy;
  /** Client ID Metadata Documents (`MCP_OAUTH_CIMD=on`, `MCP_OAUTH_CIMD_HOSTS`); off when absent. */
  cimd?: { hosts?: readonly string[]; fetch?: typeof fetch };
  /**
   * The tools one signed-in user sees (default: the server's registry), given the user's
   * current sign-in credentials (checked and, when due, refreshed for this request).
   */
  registryFor?(userId: string, credentials: SignInCredentials, auth: AuthInfo): Promise<ToolRegistry>;
  /**
   * The linked-account providers served (each a declared `connection` of kind `linked-account`):
   * per-user links at `<public>/connect/<provider>`. `url` defaults to the declaration's; `now` is
   * the clock of link tickets (tests).
   */
  linked?: ReadonlyArray<{
    connection: LinkedAccountConnection;
    url?: string;
    fetch?: typeof fetch;
    now?: () => number;
  }>;
  /** How often each replica compares its signing keys with the store's (ms). Default 5000; 0: never by itself. */
  signingKeyCheckMs?: number;
  logger?: Logger;
}

export interface HostedAuth {
  /** For `serveHttp({ auth })` / `runBin`'s `createHttpAuth`. */
  auth: HttpAuth;
  connections: Connections;
  issuer: string;
  resource: string;
  authorizationServer: AuthorizationServer;
  resourceServer: ResourceServer;
  /** Users' links per linked-account provider (`options.linked`): `credentialSource(userId)` for its provider. */
  linked: ReadonlyMap<string, LinkedAccounts>;
  /**
   * The signing keys both halves use, kept in step with the store; `signingKeys.sync()` is the
   * readiness check of the keys.
   */
  signingKeys: SigningKeySet;
  /** Stops the periodic signing key check. */
  close(): void;
}

/** Checks `MCP_PUBLIC_URL`: an origin, HTTPS unless loopback. Returns it without a trailing slash. */
export function parsePublicUrl(value: string | undefined): string {
  if (!value) throw new ConfigError('MCP_PUBLIC_URL (--public-url) is required with --auth oauth.');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`MCP_PUBLIC_URL is not a URL: ${value}`);
  }
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(
      `MCP_PUBLIC_URL must be an origin without path or query, e.g. https://mcp.example.com; got ${value}`,
    );
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new ConfigError(`MCP_PUBLIC_URL must use https (http only on loopback); got ${value}`);
  }
  return url.origin;
}

/** Splits a comma-separated list (`a, b,,c` → `[a, b, c]`). */
export function listFromEnv(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** A lifetime in seconds from the environment, or the default. */
export function secondsFromEnv(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 60) {
    throw new ConfigError(`${name} must be a whole number of seconds, at least 60; got ${value}.`);
  }
  return seconds;
}

/**
 * The hosted server's OAuth: the authorization server at the public origin's root (federation
 * with the provider's declared sign-in, consent, DCR), and the resource server guarding the MCP endpoint, as one
 * `HttpAuth` for `serveHttp`.
 */
export async function createHostedAuth(options: HostedAuthOptions): Promise<HostedAuth> {
  const issuer = parsePublicUrl(options.publicUrl);
  const resource = `${issuer}${options.mcpPath ?? '/mcp'}`;
  // What every /mcp request reads (its grant, its user's connections) served from memory, and
  // dropped as soon as any replica or admin command changes it (decision 0017).
  const store = await CachedStore.over(options.store, { prefixes: [oidcKeys.model('Grant'), 'conn:'] });
  const { connection: declared, ...app } = options.signIn;
  if (!app.clientId || !app.clientSecret) {
    throw new ConfigError(
      `${declared.env.clientId} and ${declared.env.clientSecret} (the ${declared.title} sign-in app) are required with --auth oauth.`,
    );
  }
  const signIn = declared.client({
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    url: app.url ?? declared.defaultUrl,
    redirectUri: `${issuer}/oauth/callback/${declared.provider}`,
    ...(app.fetch ? { fetch: app.fetch } : {}),
  });
  // Seal with the fleet's key before anything is written (or a key derived): during a rolling
  // rotation the old secret's, until `keys rotate` names the new one.
  await adoptKeyMeta(options.store, options.keyring);
  const connections = new Connections(store, options.keyring, signIn, {
    logger: options.logger ?? createLogger('hosted-auth'),
  });
  const signingKeys = await SigningKeySet.load(
    store,
    options.keyring,
    options.logger ? { logger: options.logger } : {},
  );
  const authorizationServer = await createAuthorizationServer({
    signingKeys,
    issuer,
    resource,
    store: store,
    keyring: options.keyring,
    signIn,
    connections,
    allowedAccounts: options.allowedAccounts ?? [],
    allowedEmailDomains: options.allowedEmailDomains ?? [],
    ...(options.signInRefusal ? { signInRefusal: options.signInRefusal } : {}),
    ...(options.registration === undefined ? {} : { registration: options.registration }),
    redirectHosts: options.redirectHosts ?? DEFAULT_REDIRECT_HOSTS,
    ...(options.redirectSchemes ? { redirectSchemes: options.redirectSchemes } : {}),
    ...(options.accessTokenTtl === undefined ? {} : { accessTokenTtl: options.accessTokenTtl }),
    ...(options.refreshTokenTtl === undefined ? {} : { refreshTokenTtl: options.refreshTokenTtl }),
    ...(options.serverName === undefined ? {} : { serverName: options.serverName }),
    ...(options.registrationLimit === undefined ? {} : { registrationLimit: options.registrationLimit }),
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
    ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
    ...(options.clientTtl === undefined ? {} : { clientTtl: options.clientTtl }),
    ...(options.cimd
      ? {
          cimd: {
            hosts: (options.cimd.hosts ?? DEFAULT_CIMD_HOSTS).map((host) => host.toLowerCase()),
            ...(options.cimd.fetch ? { fetch: options.cimd.fetch } : {}),
          },
        }
      : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const callers = createMcpCallers(store, connections);
  const resourceServer = createResourceServer({
    issuer,
    resource,
    jwks: publicJwks(signingKeys.keys).keys as JWK[],
    onUnknownKey: (kid) => signingKeys.knows(kid),
    ...(options.logger ? { logger: options.logger } : {}),
    isActive: callers.isActive,
  });
  // After the authorization server's own listener: both halves switch in the same tick.
  signingKeys.onChange((keys) => resourceServer.useKeys(publicJwks(keys).keys as JWK[]));
  const { linked, connectPages } = linkedAccountPages(options, {
    issuer,
    store,
    authorizationServer,
    connections,
  });
  const auth = hostedHttpAuth({
    resourceServer,
    pages: [authorizationServer, ...connectPages],
    callers,
    ...(options.registryFor ? { registryFor: options.registryFor } : {}),
  });
  if (options.signingKeyCheckMs !== 0) signingKeys.watch(options.signingKeyCheckMs);
  return {
    auth,
    connections,
    issuer,
    resource,
    authorizationServer,
    resourceServer,
    linked,
    signingKeys,
    close: () => signingKeys.close(),
  };
}

/** The `/connect/<provider>` pages of the linked-account providers served, and each one's links. */
function linkedAccountPages(
  options: HostedAuthOptions,
  served: {
    issuer: string;
    store: KvStore;
    authorizationServer: AuthorizationServer;
    connections: Connections;
  },
) {
  const { issuer, store, authorizationServer, connections } = served;
  const linked = new Map<string, LinkedAccounts>();
  const connectPages = (options.linked ?? []).map((entry) => {
    const { provider } = entry.connection;
    const links = new LinkedAccounts(
      store,
      options.keyring,
      entry.connection.client({
        url: entry.url ?? entry.connection.url.default,
        ...(entry.fetch ? { fetch: entry.fetch } : {}),
      }),
      entry.connection,
      `${issuer}${connectPath(provider)}`,
    );
    linked.set(provider, links);
    return createConnectLinked({
      issuer,
      store: store,
      keyring: options.keyring,
      links,
      sessionUser: (req, res) => authorizationServer.sessionUser(req, res),
      isActive: (userId) => connections.isActive(userId),
      ...(entry.now ? { now: entry.now } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
  });
  return { linked, connectPages };
}
