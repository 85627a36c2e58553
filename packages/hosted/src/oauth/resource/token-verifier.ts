import { hash } from 'node:crypto';
import {
  type AuthInfo,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import { createLocalJWKSet, type JWK, jwtVerify } from 'jose';

export interface TokenVerifierOptions {
  issuer: string;
  /** Every token's audience (`<issuer>/mcp`). */
  resource: string;
  /** The authorization server's public signing keys (replaced by {@link TokenVerifier.useKeys}). */
  jwks: readonly JWK[];
  /** A token names a key id not among the keys: look for new keys (they arrive through `useKeys`). */
  onUnknownKey?(kid: string): Promise<unknown>;
  /** Clock skew tolerated on `exp`/`iat`, in seconds. Default 30. */
  clockToleranceSeconds?: number;
  /** Verified tokens kept until their `exp` (an LRU). Default 10,000; 0 turns it off. */
  verifiedTokenCacheSize?: number;
}

/** The bearer check's verifier for the SDK, with the key set it verifies against. */
export interface TokenVerifier {
  verifier: OAuthTokenVerifier;
  /** How many verified access tokens are cached now. */
  readonly size: number;
  /** Verifies with these public keys from now on; forgets what the old set verified. */
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
 * Our own ES256 JWT access tokens only, verified locally for signature, algorithm, `typ`,
 * issuer, audience (= the resource) and expiry; anything else is `invalid_token`. A verified
 * token is kept (by SHA-256 of the whole token) until its `exp`, so a client's next request
 * skips the signature check.
 */
export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  const resourceUrl = new URL(options.resource);
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
  /** A new object per request (the request's checked credentials are keyed by it). */
  const authInfo = (token: string, claims: VerifiedToken): AuthInfo => ({
    token,
    clientId: claims.clientId,
    scopes: [...claims.scopes],
    expiresAt: claims.exp,
    resource: resourceUrl,
    extra: { userId: claims.userId, grantId: claims.grantId },
  });

  const verifier: OAuthTokenVerifier = {
    async verifyAccessToken(token) {
      // Keyed by a digest of the whole token: a token that differs in any character (a
      // tampered signature, a shared prefix) never matches an entry.
      const digest = cacheSize > 0 ? hash('sha256', token, 'base64url') : '';
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

  return {
    verifier,
    get size() {
      return verified.size;
    },
    useKeys,
  };
}
