import {
  ConfigError,
  createLogger,
  type Logger,
  type SignInClient,
  type UpstreamIdentity,
} from '@x/mcp-core';
import type Provider from 'oidc-provider';
import type { Keyring } from '../../crypto.js';
import type { KvStore } from '../../store/kv.js';
import { SealedRecords } from '../../store/sealed.js';
import type { AuthorizationServerOptions } from '../authorization-server.js';
import { csrfToken } from '../browser.js';
import { type Connections, signInUserId } from '../connections.js';
import type { RedirectPolicy } from '../redirect-uris.js';

/**
 * The hosts of the HTTPS callbacks real clients register (docs/clients.md): Claude, ChatGPT,
 * VS Code (stable and Insiders, beside its loopback one) and Cursor's web and agents callback.
 */
export const DEFAULT_REDIRECT_HOSTS: readonly string[] = [
  'claude.ai',
  'claude.com',
  'chatgpt.com',
  'vscode.dev',
  'insiders.vscode.dev',
  'www.cursor.com',
];

/**
 * What the authorization server's parts share, settled once from its options: who it is, where
 * it keeps things, how the sign-in goes upstream, the browser cookie names.
 */
export interface AuthServerSettings {
  issuer: string;
  /** The protected resource (`<issuer>/mcp`). */
  resource: string;
  logger: Logger;
  /** An HTTPS issuer: Secure cookies, `__Host-` names, the proxy must say HTTPS. */
  secure: boolean;
  redirectPolicy: RedirectPolicy;
  /** Seconds. */
  accessTokenTtl: number;
  /** Seconds (also the grant's and a remembered consent's). */
  refreshTokenTtl: number;
  store: KvStore;
  /** The same store, records sealed with the keyring. */
  sealed: SealedRecords;
  keyring: Keyring;
  connections: Connections;
  signIn: SignInClient;
  /** The upstream's name for pages and log lines (the sign-in connection's title). */
  upstream: string;
  /** Where the upstream sends the browser back: `/oauth/callback/<provider>`. */
  signInCallback: string;
  /** Our user id for an upstream identity. */
  userIdOf(identity: UpstreamIdentity): string;
  /** The cookie binding a pending upstream sign-in to the browser that started it. */
  bindingCookie: string;
  /** The CSRF token of interaction `uid`'s forms. */
  csrfFor(uid: string): string;
  /** Shown on the consent page. */
  serverName: string;
}

/** The settings and the oidc-provider instance serving now (replaced when the signing keys change). */
export interface AuthServerContext extends AuthServerSettings {
  readonly provider: Provider;
}

/** Checks the options (a ConfigError names the variable) and settles what the parts share. */
export function authServerSettings(
  options: Omit<AuthorizationServerOptions, 'signingKeys'>,
): AuthServerSettings {
  const issuer = options.issuer;
  const secure = new URL(issuer).protocol === 'https:';
  const redirectHosts = (options.redirectHosts ?? DEFAULT_REDIRECT_HOSTS).map((host) => host.toLowerCase());
  const accessTokenTtl = options.accessTokenTtl ?? 3600;
  const refreshTokenTtl = options.refreshTokenTtl ?? 30 * 24 * 3600;
  for (const [name, value] of [
    ['MCP_OAUTH_ACCESS_TTL', accessTokenTtl],
    ['MCP_OAUTH_REFRESH_TTL', refreshTokenTtl],
  ] as const) {
    if (!Number.isInteger(value) || value < 60) {
      throw new ConfigError(`${name} must be a whole number of seconds, at least 60; got ${value}.`);
    }
  }
  const signIn = options.signIn;
  const cookieKey = options.keyring.deriveKey('cookies');
  return {
    issuer,
    resource: options.resource,
    logger: options.logger ?? createLogger('hosted-auth'),
    secure,
    redirectPolicy: { hosts: redirectHosts, schemes: options.redirectSchemes ?? [] },
    accessTokenTtl,
    refreshTokenTtl,
    store: options.store,
    sealed: new SealedRecords(options.store, options.keyring),
    keyring: options.keyring,
    connections: options.connections,
    signIn,
    upstream: signIn.connection.title,
    signInCallback: `/oauth/callback/${signIn.connection.provider}`,
    userIdOf: (identity) => signInUserId(signIn.connection.provider, identity.id),
    bindingCookie: secure ? '__Host-xmcp-login' : 'xmcp-login',
    csrfFor: (uid) => csrfToken(cookieKey, `csrf:${uid}`),
    serverName: options.serverName ?? new URL(issuer).host,
  };
}
