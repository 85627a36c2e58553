import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpToolError } from '@x/mcp-core';
import Provider, { type KoaContext, type OidcContext, errors as oidcErrors } from 'oidc-provider';
import { KeyUnavailableError, StoreUnavailableError } from '../../errors.js';
import { createOidcAdapter } from '../../oidc-adapter.js';
import type { SigningJwk, SigningKeySet } from '../../signing-keys.js';
import type { AuthorizationServerOptions } from '../authorization-server.js';
import { withInteractionCookies } from '../interaction-cookie.js';
import { isNarrowedResource } from '../narrowed-resource.js';
import { escapeHtml } from '../pages.js';
import { checkClientRedirects, logRefusedRedirect } from '../redirect-uris.js';
import { MCP_SCOPES } from '../scopes.js';
import { withClientTtl, withImpliedClientScopes } from './client-adapters.js';
import type { AuthServerSettings } from './context.js';
import { PENDING_TTL_MS } from './records.js';

/** Whether a client id URL may be fetched: HTTPS on the default port, an allowed host name (never an IP literal). */
export function cimdFetchAllowed(clientId: string, hosts: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  const host = url.hostname.toLowerCase();
  if (url.protocol !== 'https:' || url.port !== '' || /^[\d.]+$/.test(host) || host.startsWith('['))
    return false;
  return hosts.includes(host);
}

type ConfigurationOptions = Pick<AuthorizationServerOptions, 'clientTtl' | 'registration' | 'cimd'>;

/**
 * oidc-provider's configuration (all but `jwks`, which each instance gets): our storage adapter
 * (interactions in a cookie, client TTL, implied client scopes), the routes at the origin root,
 * PKCE, the client redirect policy, grants and TTLs, the features advertised, the error page.
 * oidc-provider copies its configuration when built, and `jwks` is fixed then.
 */
export function providerConfiguration(
  settings: AuthServerSettings,
  options: ConfigurationOptions,
): Record<string, unknown> {
  const { store, keyring, secure, accessTokenTtl, refreshTokenTtl } = settings;
  return {
    adapter: withInteractionCookies(
      withImpliedClientScopes(
        withClientTtl(createOidcAdapter(store, keyring), store, options.clientTtl ?? 30 * 24 * 3600),
      ),
      { keyring, secure },
    ),
    cookies: {
      // Signed with the current secret; cookies signed before a rotation still verify.
      keys: keyring.deriveKeys('cookies').map((key) => key.toString('base64url')),
      long: { httpOnly: true, sameSite: 'lax', secure },
      short: { httpOnly: true, sameSite: 'lax', secure },
    },
    routes: {
      authorization: '/authorize',
      token: '/token',
      registration: '/register',
      revocation: '/revoke',
      jwks: '/jwks',
    },
    responseTypes: ['code'],
    scopes: [...MCP_SCOPES, 'offline_access'],
    claims: { openid: ['sub'] },
    pkce: { required: () => true },
    clientAuthMethods: ['none', 'client_secret_post', 'client_secret_basic'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: 'ES256',
    },
    extraClientMetadata: redirectValidation(settings),
    loadExistingGrant,
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    // The grant id lets the resource server refuse tokens of a revoked grant (a reused code,
    // a replayed refresh token, a revocation) before they expire.
    extraTokenClaims: async (_ctx: unknown, token: { grantId?: string }) =>
      token.grantId ? { gid: token.grantId } : undefined,
    ttl: {
      AccessToken: accessTokenTtl,
      AuthorizationCode: 60,
      RefreshToken: refreshTokenTtl,
      Grant: refreshTokenTtl,
      Interaction: PENDING_TTL_MS / 1000,
      Session: 14 * 24 * 3600,
      IdToken: accessTokenTtl,
    },
    features: features(settings, options),
    ...(options.cimd?.fetch ? { fetch: options.cimd.fetch } : {}),
    renderError,
  };
}

/**
 * Registration (and every load of a stored or CIMD client): the redirect policy, and
 * loopback-only clients made native so that any port matches (redirect-uris.ts).
 */
function redirectValidation({ redirectPolicy, logger }: AuthServerSettings) {
  return {
    properties: ['redirect_uris'],
    validator(_ctx: unknown, key: string, _value: unknown, metadata: Record<string, unknown>) {
      if (key !== 'redirect_uris') return;
      const refusal = checkClientRedirects(metadata, redirectPolicy);
      if (refusal) {
        // The operator sees which client was refused and what would allow it.
        logRefusedRedirect(logger, refusal);
        const error = new (
          oidcErrors.InvalidRedirectUri as new () => Error & { error_description: string }
        )();
        // Its fixed description speaks of matching; the client is told what is refused and why.
        error.error_description = refusal.description;
        throw error;
      }
    },
  };
}

/**
 * A step-up: an authorization asking for a scope the person refused before (read only
 * granted, now `mcp:write`) is not answered from the browser's grant, which would hand out
 * the narrower token again without asking: the consent page is shown instead.
 */
async function loadExistingGrant(ctx: KoaContext) {
  const oidc = ctx.oidc as OidcContext;
  const finished = oidc.result?.consent?.grantId;
  const grantId = finished ?? (oidc.client && oidc.session?.grantIdFor(oidc.client.clientId));
  const grant = grantId ? await oidc.provider?.Grant.find(grantId) : undefined;
  if (!grant || finished) return grant;
  const refused = new Set(grant.getRejectedOIDCScope().split(' '));
  for (const indicator of Object.keys(oidc.resourceServers ?? {})) {
    for (const scope of grant.getRejectedResourceScope(indicator).split(' ')) refused.add(scope);
  }
  const asked = String(oidc.params?.scope ?? '').split(' ');
  return asked.some((scope) => scope && refused.has(scope)) ? undefined : grant;
}

/** Only what is routed at the origin root is advertised: no userinfo, no logout endpoint. */
function features(settings: AuthServerSettings, options: ConfigurationOptions) {
  const { resource, accessTokenTtl, redirectPolicy } = settings;
  const registration = options.registration ?? true;
  const resourceVariants = new Set([resource, `${resource}/`]);
  return {
    devInteractions: { enabled: false },
    userinfo: { enabled: false },
    rpInitiatedLogout: { enabled: false },
    pushedAuthorizationRequests: { enabled: false },
    registration: { enabled: registration, initialAccessToken: false },
    registrationManagement: { enabled: registration, rotateRegistrationAccessToken: false },
    revocation: { enabled: true },
    ...(options.cimd
      ? {
          clientIdMetadataDocument: {
            enabled: true,
            ack: 'draft-02',
            allowFetch: async (_ctx: unknown, clientId: string) =>
              cimdFetchAllowed(clientId, (options.cimd as { hosts: readonly string[] }).hosts),
            allowClient: async (_ctx: unknown, client: { redirectUris: string[]; applicationType: string }) =>
              checkClientRedirects(
                { redirect_uris: [...client.redirectUris], application_type: client.applicationType },
                redirectPolicy,
              ) === undefined,
            cacheDuration: { min: 300, max: 86_400 },
          },
        }
      : {}),
    resourceIndicators: {
      enabled: true,
      defaultResource: async () => resource,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx: unknown, indicator: string) => {
        // A narrowed connector URL (/mcp/x/…) is this server too: its tokens are bound to /mcp.
        if (!resourceVariants.has(indicator) && !isNarrowedResource(resource, indicator)) {
          throw new (oidcErrors.InvalidTarget as new (description: string) => Error)(
            `this server issues tokens only for ${resource}`,
          );
        }
        return {
          scope: MCP_SCOPES.join(' '),
          audience: resource,
          accessTokenTTL: accessTokenTtl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        };
      },
    },
  };
}

async function renderError(ctx: KoaContext, out: Record<string, string>) {
  const message = out.error_description ?? out.error ?? 'The request could not be processed.';
  ctx.set('content-type', 'text/html; charset=utf-8');
  ctx.set('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
  ctx.body = `<!doctype html><title>Error</title><h1>${escapeHtml(out.error ?? 'error')}</h1><p>${escapeHtml(message)}</p>`;
}

/** The oidc-provider instance serving now, and its Node request handler. */
export interface ProviderInstance {
  provider: Provider;
  callback: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

/**
 * oidc-provider fixes its signing keys when it is built (no API swaps them): another key set in
 * the store means a new instance on the same store and configuration. Requests already inside
 * the old instance finish there. `current` is the instance to serve with now.
 */
export function providerInstances(
  settings: AuthServerSettings,
  configuration: Record<string, unknown>,
  signingKeys: SigningKeySet,
): { readonly current: ProviderInstance } {
  const { issuer, secure, logger } = settings;
  // A store outage is a 503 with Retry-After on the AS too, never a 4xx a client would act on.
  // A code or refresh token redeemed by two replicas at once: the adapter's compare-and-set
  // lets one win and throws ConflictError for the other, which is an invalid_grant.
  const storeDown = new WeakSet<object>();
  const conflicts = new WeakSet<object>();
  const onServerError = (ctx: KoaContext, error: unknown) => {
    if (StoreUnavailableError.isInstance(error)) {
      storeDown.add(ctx);
      if (KeyUnavailableError.isInstance(error)) logger.error(error.message, { keyId: error.keyId });
    } else if (McpToolError.isInstance(error) && error.code === 'CONFLICT') conflicts.add(ctx);
    else logger.error('authorization server error', { error });
  };
  const answerErrors = async (ctx: KoaContext, next: () => Promise<void>) => {
    await next();
    if (conflicts.has(ctx)) {
      ctx.status = 400;
      ctx.body = { error: 'invalid_grant', error_description: 'grant request is invalid' };
    } else if (storeDown.has(ctx)) {
      ctx.status = 503;
      ctx.set('retry-after', '5');
      ctx.body = {
        error: 'temporarily_unavailable',
        error_description: 'The store is unreachable; retry shortly.',
      };
    }
  };
  const createProvider = (keys: readonly SigningJwk[]): ProviderInstance => {
    const created = new Provider(issuer, {
      ...configuration,
      jwks: { keys: keys.map((key) => ({ ...key })) },
    });
    if (secure) created.proxy = true;
    created.on('server_error', onServerError);
    created.use(answerErrors);
    return {
      provider: created,
      callback: created.callback() as (req: IncomingMessage, res: ServerResponse) => Promise<void>,
    };
  };
  const instances = { current: createProvider(signingKeys.keys) };
  signingKeys.onChange((keys) => {
    instances.current = createProvider(keys);
  });
  return instances;
}
