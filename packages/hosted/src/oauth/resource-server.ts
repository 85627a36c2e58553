import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Logger } from '@x/mcp-core';
import type { JWK } from 'jose';
import { createAdmission } from './resource/admission.js';
import { createResourceMetadata } from './resource/metadata.js';
import { createTokenVerifier } from './resource/token-verifier.js';

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

/**
 * The `/mcp` side: our own ES256 JWT access tokens only, verified locally for signature,
 * algorithm, `typ`, issuer, audience (= the resource), expiry and scope; the user must still
 * have an active connection. Anything else — an upstream token, `alg: none`, another audience or
 * issuer, an expired token, a token in the query — is refused with the RFC 6750/9728 challenge.
 * A store outage answers 503 with `Retry-After`, never 401. The parts: the metadata documents
 * and challenges (resource/metadata.ts), the token check (resource/token-verifier.ts), who is
 * let in (resource/admission.ts).
 */
export function createResourceServer(options: ResourceServerOptions): ResourceServer {
  const metadata = createResourceMetadata(options.issuer, options.resource);
  const tokens = createTokenVerifier({
    issuer: options.issuer,
    resource: options.resource,
    jwks: options.jwks,
    ...(options.onUnknownKey ? { onUnknownKey: options.onUnknownKey } : {}),
    ...(options.clockToleranceSeconds === undefined
      ? {}
      : { clockToleranceSeconds: options.clockToleranceSeconds }),
    ...(options.verifiedTokenCacheSize === undefined
      ? {}
      : { verifiedTokenCacheSize: options.verifiedTokenCacheSize }),
  });
  const admission = createAdmission({
    resource: options.resource,
    verifier: tokens.verifier,
    metadata,
    isActive: options.isActive,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  return {
    metadataUrl: metadata.metadataUrl,
    get verifiedTokens() {
      return tokens.size;
    },
    useKeys: tokens.useKeys,
    insufficientScope: admission.insufficientScope,
    handle: metadata.handle,
    authenticate: admission.authenticate,
  };
}
