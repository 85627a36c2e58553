import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import { type Logger, McpToolError } from '@x/mcp-core';
import { isLoopbackHost, requestTarget } from '@x/mcp-core/node';
import { createLocalJWKSet, type JWK, jwtVerify } from 'jose';
import { KeyUnavailableError, StoreUnavailableError } from '../errors.js';
import { narrowedPath } from './narrowed-resource.js';
import { mcpAccess, READ_SCOPE, READ_WRITE_SCOPES } from './scopes.js';

export interface ResourceServerOptions {
  issuer: string;
  /** `<issuer>/mcp`. */
  resource: string;
  /** The authorization server's public signing keys (replaced by {@link ResourceServer.useKeys}). */
  jwks: readonly JWK[];
  /**
   * A token names a key id not among the keys (another replica adopted a new key set first):
   * look for new keys, which arrive through `useKeys`, before the token is verified.
   */
  onUnknownKey?(kid: string): Promise<unknown>;
  /**
   * Whether the caller of a verified token may use the server now (its grant is not revoked,
   * its upstream connection works); `extra.userId` and `extra.grantId` name them. Retryable
   * errors (store, upstream sign-in service) become 503.
   */
  isActive(auth: AuthInfo): Promise<boolean>;
  /** Clock skew tolerated on `exp`/`iat`, in seconds. Default 30. */
  clockToleranceSeconds?: number;
  /**
   * Access tokens whose signature and claims were verified, kept (an LRU, by SHA-256 of the
   * whole token) until their `exp`, so a client's next request skips the ES256 verification.
   * `isActive` still runs on every request. Default 10,000; 0 turns it off.
   */
  verifiedTokenCacheSize?: number;
  /** Where a record this replica cannot open is reported (the key id it needs; never a secret). */
  logger?: Logger;
}

export interface ResourceServer {
  /** The RFC 9728 document's URL, advertised in every challenge (a narrowed URL's own, on its requests). */
  metadataUrl: string;
  /**
   * Serves the metadata at `/.well-known/oauth-protected-resource[/mcp]`, and at
   * `/.well-known/oauth-protected-resource/mcp/x/…` for every narrowed connector URL (its
   * `resource` is that URL); `false` for other paths.
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** An `/mcp` request's caller, or the 400/401/403/503 answer. */
  authenticate(request: Request): Promise<AuthInfo | Response>;
  /**
   * The 403 `insufficient_scope` answer to a request its token's scopes do not cover, naming
   * every scope the operation needs in one challenge (the client steps up with them), and the
   * metadata of the URL the request went to.
   */
  insufficientScope(request: Request, scopes: readonly string[], description: string): Response;
  /** How many verified access tokens are cached now. */
  readonly verifiedTokens: number;
  /** Verifies with these public keys from now on (the authorization server's new key set). */
  useKeys(jwks: readonly JWK[]): void;
}

/** What a verified access token says, kept until its `exp`. */
interface VerifiedToken {
  clientId: string;
  scopes: readonly string[];
  /** Epoch seconds. */
  exp: number;
  userId: string;
  grantId: string;
}

/**
 * The `/mcp` side: our own ES256 JWT access tokens only, verified locally for signature,
 * algorithm, `typ`, issuer, audience (= the resource), expiry and scope; the user must still
 * have an active connection. Anything else — an upstream token, `alg: none`, another audience or
 * issuer, an expired token, a token in the query — is refused with the RFC 6750/9728 challenge.
 * A store outage answers 503 with `Retry-After`, never 401.
 */
export function createResourceServer(options: ResourceServerOptions): ResourceServer {
  const resourceUrl = new URL(options.resource);
  const metadataUrl = getOAuthProtectedResourceMetadataUrl(resourceUrl);
  let keySet = createLocalJWKSet({ keys: [...options.jwks] });
  let knownKids = new Set(options.jwks.map((key) => key.kid));
  const cacheSize = options.verifiedTokenCacheSize ?? 10_000;
  /** SHA-256 of the token → its verified claims; cleared when the key set changes. */
  const verified = new Map<string, VerifiedToken>();
  /** Bumped with every new key set: a verification that began under another one is not kept. */
  let keysGeneration = 0;
  const useKeys = (jwks: readonly JWK[]) => {
    keySet = createLocalJWKSet({ keys: [...jwks] });
    knownKids = new Set(jwks.map((key) => key.kid));
    // A key may have left the set: what it verified is verified again.
    verified.clear();
    keysGeneration++;
  };
  /** A token naming a key id we do not know: the key set may have changed elsewhere first. */
  const refreshKeys = async (token: string) => {
    if (!options.onUnknownKey) return;
    let kid: unknown;
    try {
      kid = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8')).kid;
    } catch {
      return;
    }
    if (typeof kid !== 'string' || knownKids.has(kid)) return;
    // The store cannot answer: the token stays unverifiable for now.
    await options.onUnknownKey(kid).catch(() => undefined);
  };
  const tolerance = options.clockToleranceSeconds ?? 30;
  const metadata = buildOAuthProtectedResourceMetadata({
    oauthMetadata: {
      issuer: options.issuer,
      authorization_endpoint: `${options.issuer}/authorize`,
      token_endpoint: `${options.issuer}/token`,
      response_types_supported: ['code'],
    },
    resourceServerUrl: resourceUrl,
    scopesSupported: [...READ_WRITE_SCOPES],
    dangerouslyAllowInsecureIssuerUrl: isLoopbackHost(new URL(options.issuer).hostname),
  });
  const document = JSON.stringify({ ...metadata, bearer_methods_supported: ['header'] });
  // What a client without a token should ask for: read and write (the person may grant read
  // only). `mcp` is still accepted: tokens issued before `mcp:read` and `mcp:write` carry it.
  const challenge = { requiredScopes: [...READ_WRITE_SCOPES], resourceMetadataUrl: metadataUrl };
  const wellKnown = '/.well-known/oauth-protected-resource';
  /**
   * A narrowed connector URL (`/mcp/x/<provider>.<toolset>`, `/mcp/readonly`) is a resource of its own
   * to a client: its metadata names it (clients refuse a `resource` other than the URL they
   * connect to, RFC 9728 §3.3), and its 401 points there. Its tokens are the server's: the
   * authorization server binds them to `<issuer>/mcp`, so one token serves every narrowing.
   */
  const challengeFor = (path: string | undefined) => {
    const narrowed = narrowedPath(resourceUrl.pathname, path);
    return narrowed
      ? { ...challenge, resourceMetadataUrl: `${resourceUrl.origin}${wellKnown}${narrowed}` }
      : challenge;
  };

  const verifier: OAuthTokenVerifier = {
    async verifyAccessToken(token) {
      // Keyed by a digest of the whole token: a token that differs in any character (a
      // tampered signature, a shared prefix) never matches an entry.
      const digest = cacheSize > 0 ? createHash('sha256').update(token).digest('base64url') : '';
      const hit = cacheSize > 0 ? verified.get(digest) : undefined;
      if (hit) {
        verified.delete(digest);
        if (hit.exp * 1000 > Date.now()) {
          verified.set(digest, hit);
          return authInfo(token, hit);
        }
      }
      let payload: Awaited<ReturnType<typeof jwtVerify>>['payload'];
      await refreshKeys(token);
      const generation = keysGeneration;
      try {
        ({ payload } = await jwtVerify(token, keySet, {
          issuer: options.issuer,
          audience: options.resource,
          algorithms: ['ES256'],
          typ: 'at+jwt',
          clockTolerance: tolerance,
          requiredClaims: ['exp', 'sub', 'client_id', 'gid'],
        }));
      } catch {
        throw new OAuthError(
          OAuthErrorCode.InvalidToken,
          'The access token is invalid, expired or not for this server.',
        );
      }
      const claims: VerifiedToken = {
        clientId: String(payload.client_id),
        scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
        exp: payload.exp as number,
        userId: payload.sub as string,
        grantId: String(payload.gid),
      };
      // Only until `exp` itself (the clock tolerance is for verifying, not for keeping).
      if (cacheSize > 0 && generation === keysGeneration && claims.exp * 1000 > Date.now()) {
        verified.set(digest, claims);
        if (verified.size > cacheSize) verified.delete(verified.keys().next().value as string);
      }
      return authInfo(token, claims);
    },
  };
  /**
   * The SDK's bearer check, challenging with `answer` (a narrowed URL's metadata). Not its
   * `requireBearerAuth`, which wants every one of its scopes: any MCP scope will do here.
   */
  const gate = async (request: Request, answer: typeof challenge) => {
    const [header] = (request.headers.get('authorization') ?? '').split(',');
    try {
      return await verifyBearerToken(header || undefined, {
        resourceMetadataUrl: answer.resourceMetadataUrl,
        expectedResource: resourceUrl,
        verifier,
      });
    } catch (error) {
      return bearerAuthChallengeResponse(error, answer);
    }
  };
  const insufficientScope = (request: Request, scopes: readonly string[], description: string) =>
    bearerAuthChallengeResponse(new OAuthError(OAuthErrorCode.InsufficientScope, description), {
      requiredScopes: [...scopes],
      resourceMetadataUrl: challengeFor(new URL(request.url).pathname).resourceMetadataUrl,
    });
  /** A new object per request (the request's checked credentials are keyed by it). */
  const authInfo = (token: string, claims: VerifiedToken): AuthInfo => ({
    token,
    clientId: claims.clientId,
    scopes: [...claims.scopes],
    expiresAt: claims.exp,
    resource: resourceUrl,
    extra: { userId: claims.userId, grantId: claims.grantId },
  });

  return {
    metadataUrl,
    get verifiedTokens() {
      return verified.size;
    },
    useKeys,
    insufficientScope,
    handle(req, res) {
      const path = requestTarget(req.url)?.pathname;
      let body = document;
      if (path !== wellKnown && path !== new URL(metadataUrl).pathname) {
        const narrowed = path?.startsWith(`${wellKnown}/`)
          ? narrowedPath(resourceUrl.pathname, path.slice(wellKnown.length))
          : undefined;
        if (!narrowed) return false;
        body = JSON.stringify({
          ...metadata,
          resource: `${resourceUrl.origin}${narrowed}`,
          bearer_methods_supported: ['header'],
        });
      }
      const cors = { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, OPTIONS' };
      if (req.method === 'OPTIONS') {
        res.writeHead(204, { ...cors, 'access-control-allow-headers': '*' });
        res.end();
      } else if (req.method === 'GET' || req.method === 'HEAD') {
        res.writeHead(200, { ...cors, 'content-type': 'application/json', 'cache-control': 'max-age=300' });
        res.end(req.method === 'HEAD' ? undefined : body);
      } else {
        res.writeHead(405, { ...cors, allow: 'GET, OPTIONS' });
        res.end();
      }
      return true;
    },
    async authenticate(request) {
      const url = new URL(request.url);
      const query = url.searchParams;
      const answer = challengeFor(url.pathname);
      if (query.has('access_token')) {
        return bearerAuthChallengeResponse(
          new OAuthError(
            OAuthErrorCode.InvalidRequest,
            'Send the access token in the Authorization header, never in the URL.',
          ),
          answer,
        );
      }
      const decision = await gate(request, answer);
      if (decision instanceof Response) return decision;
      if (mcpAccess(decision.scopes) === 'none') {
        return insufficientScope(
          request,
          [READ_SCOPE],
          'This token has no MCP scope; authorize with mcp:read.',
        );
      }
      try {
        if (!(await options.isActive(decision))) {
          return bearerAuthChallengeResponse(
            new OAuthError(
              OAuthErrorCode.InvalidToken,
              'Your sign-in has ended; authorize this server again.',
            ),
            challenge,
          );
        }
      } catch (error) {
        // The store or the upstream sign-in service cannot answer now: retry later, never 401.
        if (!McpToolError.isInstance(error) || !error.retryable) throw error;
        // A record sealed with a key this replica lacks: a 503 too, and the operator is told which key.
        if (KeyUnavailableError.isInstance(error)) {
          options.logger?.error(error.message, { keyId: error.keyId });
        }
        const retryAfter = StoreUnavailableError.isInstance(error)
          ? error.retryAfterSeconds
          : Math.max(1, Math.ceil(Number(error.details.retry_after_ms ?? 5000) / 1000));
        return new Response(
          JSON.stringify({ error: 'temporarily_unavailable', error_description: 'Retry shortly.' }),
          { status: 503, headers: { 'content-type': 'application/json', 'retry-after': String(retryAfter) } },
        );
      }
      return decision;
    },
  };
}
