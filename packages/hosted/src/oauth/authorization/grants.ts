import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InteractionDetails } from 'oidc-provider';
import { MCP_SCOPES, mcpAccess, mcpScopesOf } from '../scopes.js';
import type { AuthServerContext } from './context.js';
import type { ConsentDecision, RememberedConsent } from './records.js';

/** What the discovery documents list in `scopes_supported` (oidc-provider always adds `openid`). */
const GRANTABLE_SCOPES = new Set([...MCP_SCOPES, 'offline_access', 'openid']);

/** The scopes an interaction's authorization request asks for. */
export const requestedScopes = (details: InteractionDetails): string[] => [
  ...new Set((details.params.scope ?? '').split(' ').filter(Boolean)),
];

/**
 * How a sign-in ends: the grant of what the person decided, the consent remembered for this
 * client (`consent:<user>:<client>`), and oidc-provider told to finish the authorization.
 */
export function createGrants(context: AuthServerContext) {
  const { store, resource, refreshTokenTtl } = context;
  /**
   * A new grant holding exactly what the person decided now (never merged into the browser's
   * earlier grant for this client, which may hold a scope refused today). Every scope asked for
   * is either granted or refused in it: one neither sends a signed-in browser back to consent,
   * and back here, forever.
   */
  async function grantFor(details: InteractionDetails, accountId: string, granted: readonly string[]) {
    const clientId = details.params.client_id as string;
    const grant = new context.provider.Grant({ accountId, clientId });
    const requested = requestedScopes(details);
    const refused = mcpScopesOf(requested).filter((scope) => !granted.includes(scope));
    const others = requested.filter((scope) => GRANTABLE_SCOPES.has(scope) && !MCP_SCOPES.includes(scope));
    if (others.length + granted.length > 0) grant.addOIDCScope([...others, ...granted].join(' '));
    if (refused.length > 0) grant.rejectOIDCScope(refused.join(' '));
    for (const indicator of new Set([resource, details.params.resource ?? resource])) {
      if (granted.length > 0) grant.addResourceScope(indicator, granted.join(' '));
      if (refused.length > 0) grant.rejectResourceScope(indicator, refused.join(' '));
    }
    return grant.save();
  }

  const consentKey = (userId: string, clientId: string) => `consent:${userId}:${clientId}`;

  /** What this user approved for this client before, if the record is still there. */
  async function rememberedConsent(userId: string, clientId: string): Promise<RememberedConsent | undefined> {
    const entry = await store.get(consentKey(userId, clientId));
    if (!entry) return undefined;
    try {
      const parsed = JSON.parse(entry.value) as Partial<RememberedConsent> | number;
      if (typeof parsed === 'object' && (parsed.access === 'read' || parsed.access === 'write')) {
        return { at: Number(parsed.at), access: parsed.access };
      }
    } catch {
      // Not JSON: see below.
    }
    // A record from before scopes (the time of consent alone): that consent was to everything.
    return { at: Number(entry.value), access: 'write' };
  }

  async function finishSignedIn(
    req: IncomingMessage,
    res: ServerResponse,
    details: InteractionDetails,
    userId: string,
    decision: ConsentDecision,
  ) {
    const grantId = await grantFor(details, userId, decision.granted);
    const remembered: RememberedConsent = { at: Date.now(), access: decision.remember };
    await store.set(consentKey(userId, details.params.client_id as string), JSON.stringify(remembered), {
      ttlMs: refreshTokenTtl * 1000,
    });
    await context.provider.interactionFinished(
      req,
      res,
      { login: { accountId: userId }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  /**
   * A decision written by a replica from before scopes (a sign-in under way during a rolling
   * deploy) approved everything the client asked for.
   */
  const decisionOf = (details: InteractionDetails, saved: ConsentDecision | undefined): ConsentDecision => {
    if (saved) return saved;
    const asked = mcpScopesOf(requestedScopes(details));
    return { granted: asked, remember: mcpAccess(asked) === 'write' ? 'write' : 'read' };
  };

  return { rememberedConsent, finishSignedIn, decisionOf };
}

/** How a sign-in ends (see {@link createGrants}). */
export type Grants = ReturnType<typeof createGrants>;
