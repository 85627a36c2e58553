import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import { type Logger, McpToolError } from '@x/mcp-core';
import { KeyUnavailableError, StoreUnavailableError } from '../../errors.js';
import { mcpAccess, READ_SCOPE } from '../scopes.js';
import type { ResourceMetadata } from './metadata.js';

export interface AdmissionOptions {
  /** `<issuer>/mcp`: the resource a token must name. */
  resource: string;
  verifier: OAuthTokenVerifier;
  metadata: ResourceMetadata;
  /** Whether the caller of a verified token may use the server now (see ResourceServerOptions). */
  isActive(auth: AuthInfo): Promise<boolean>;
  logger?: Logger;
}

export interface Admission {
  /** An `/mcp` request's caller, or the 400/401/403/503 answer. */
  authenticate(request: Request): Promise<AuthInfo | Response>;
  /** The 403 `insufficient_scope` answer naming `scopes`, pointing at the request URL's metadata. */
  insufficientScope(request: Request, scopes: readonly string[], description: string): Response;
}

/**
 * Who may call `/mcp`, in order: no token in the URL (400), a valid bearer token (401), an MCP
 * scope (403), a grant and upstream connection still active (401). A store or upstream sign-in
 * outage is a 503 with `Retry-After`, never a 401 a client would act on.
 */
export function createAdmission(options: AdmissionOptions): Admission {
  const resourceUrl = new URL(options.resource);
  const { verifier, metadata } = options;
  /**
   * The SDK's bearer check, challenging with `answer` (a narrowed URL's metadata). Not its
   * `requireBearerAuth`, which wants every one of its scopes: any MCP scope will do here.
   */
  const gate = async (request: Request, answer: ResourceMetadata['challenge']) => {
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
      resourceMetadataUrl: metadata.challengeFor(new URL(request.url).pathname).resourceMetadataUrl,
    });
  /** The active check; a retryable failure (store, upstream sign-in service) is the 503. */
  const active = async (decision: AuthInfo): Promise<Response | undefined> => {
    try {
      if (await options.isActive(decision)) return undefined;
      return bearerAuthChallengeResponse(
        new OAuthError(OAuthErrorCode.InvalidToken, 'Your sign-in has ended; authorize this server again.'),
        metadata.challenge,
      );
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
  };

  return {
    insufficientScope,
    async authenticate(request) {
      const url = new URL(request.url);
      const answer = metadata.challengeFor(url.pathname);
      if (url.searchParams.has('access_token')) {
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
      return (await active(decision)) ?? decision;
    },
  };
}
