import type { UpstreamIdentity, UpstreamTokens } from '@x/mcp-core';
import { sha256 } from '../browser.js';
import type { McpAccess } from '../scopes.js';

// What a sign-in keeps in the store between its steps (sealed records, keys named here).

/** How long a started sign-in (its interaction, state, ticket, account choice) lasts. */
export const PENDING_TTL_MS = 10 * 60_000;

/** `pending:<sha256(state)>`: the upstream sign-in a consent started, until the callback consumes it. */
export interface PendingLogin {
  uid: string;
  clientId: string;
  /** sha256 of the browser binding cookie. */
  binding: string;
  /** Absent in a record written before scopes. */
  decision?: ConsentDecision;
}

/** `ticket:<uid>`: how the upstream callback ended, for `/interaction/<uid>/done`. */
export interface InteractionTicket {
  userId?: string;
  decision?: ConsentDecision;
  error?: string;
  description?: string;
}

/** `pick:<uid>`: a signed-in login with several admitted accounts, until the person picks one. */
export interface PendingPick {
  tokens: UpstreamTokens;
  identity: UpstreamIdentity;
  accounts: Array<{ id: string; name: string }>;
  decision?: ConsentDecision;
}

/** What the person decided on the consent page. */
export interface ConsentDecision {
  /** The MCP scopes granted: those asked for, or `mcp:read` alone. */
  granted: string[];
  /** What this client may have without the page next time. */
  remember: RememberedConsent['access'];
}

/** What a person approved for a client (`consent:<user>:<client>`), remembered for the next sign-in. */
export interface RememberedConsent {
  at: number;
  access: Exclude<McpAccess, 'none'>;
}

export const pendingKey = (state: string) => `pending:${sha256(state)}`;
