import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UpstreamIdentity, UpstreamTokens } from '@x/mcp-core';
import type { AuthorizationServerOptions } from '../authorization-server.js';
import { cookie, readCookie, sameSecret, sha256 } from '../browser.js';
import { sendError } from '../pages.js';
import type { AuthServerContext, AuthServerSettings } from './context.js';
import {
  type InteractionTicket,
  PENDING_TTL_MS,
  type PendingLogin,
  type PendingPick,
  pendingKey,
} from './records.js';

/** Who may sign in: the operator's allowlists and policy. */
export type SignInAdmission = Pick<
  AuthorizationServerOptions,
  'allowedAccounts' | 'allowedEmailDomains' | 'signInRefusal'
>;

/** What the allowlists and the policy say of a signed-in upstream identity. */
export type AccountsVerdict =
  /** The policy refuses every account the allowlists admit: its sentence, shown as a 403. */
  | { refused: 'policy'; reason: string }
  /** No account is left (none allowed, or the email's domain is not): `emailDomain` when that was why. */
  | { refused: 'none'; emailDomain?: string }
  | { refused?: undefined; accounts: Array<UpstreamIdentity['accounts'][number]> };

/**
 * The identity's accounts the server admits: the provider's identify() lists only the accounts
 * its tools serve; of those, the allowed accounts, none when the email's domain is not allowed,
 * and those the policy does not refuse.
 */
export function admitAccounts(
  admission: SignInAdmission,
  userId: string,
  identity: UpstreamIdentity,
): AccountsVerdict {
  const allowedAccounts = new Set(admission.allowedAccounts ?? []);
  const allowedDomains = new Set((admission.allowedEmailDomains ?? []).map((domain) => domain.toLowerCase()));
  const accounts = identity.accounts.filter(
    (account) => allowedAccounts.size === 0 || allowedAccounts.has(account.id),
  );
  const domain = identity.email.split('@').at(-1)?.toLowerCase() ?? '';
  const domainRefused = allowedDomains.size > 0 && !allowedDomains.has(domain);
  if (domainRefused) accounts.length = 0;
  const refusals = accounts.map((account) =>
    admission.signInRefusal?.({ userId, email: identity.email, accountId: account.id }),
  );
  const refusal = refusals.find((reason) => reason !== undefined);
  if (accounts.length > 0 && refusals.every((reason) => reason !== undefined)) {
    return { refused: 'policy', reason: refusal as string };
  }
  const admitted = accounts.filter((_, i) => !refusals[i]);
  if (admitted.length === 0) return { refused: 'none', ...(domainRefused ? { emailDomain: domain } : {}) };
  return { accounts: admitted };
}

/** Keeps the signed-in connection (encrypted in the store) and says who signed in. */
export async function saveConnection(
  context: AuthServerSettings,
  identity: UpstreamIdentity,
  tokens: UpstreamTokens,
  account: { id: string; name: string },
): Promise<string> {
  const userId = context.userIdOf(identity);
  await context.connections.save(userId, {
    status: 'active',
    ...tokens,
    accountId: account.id,
    accountName: account.name,
    identity: { id: identity.id, name: identity.name, email: identity.email },
    updatedAt: Date.now(),
  });
  context.logger.info('signed in', { user: userId, account: account.id });
  return userId;
}

/**
 * `/oauth/callback/<provider>`, where the upstream sends the browser back: the single-use state
 * (consumed first) must be one this server gave out, to this browser (its binding cookie); the
 * code becomes tokens and an identity; the allowlists and the policy decide; the connection is
 * saved, and the browser goes back into `/interaction/<uid>/done` (the interaction cookie is
 * scoped there), or to the account picker when several accounts are admitted.
 */
export function createUpstreamCallback(context: AuthServerContext, admission: SignInAdmission) {
  const { sealed, signIn, upstream, logger, secure, bindingCookie } = context;

  return async function upstreamCallback(req: IncomingMessage, res: ServerResponse, url: URL) {
    const state = url.searchParams.get('state');
    if (req.method !== 'GET' || !state) {
      sendError(res, 400, 'The sign-in answer has no state.');
      return;
    }
    // Consumed before anything else: a state works once, whatever happens next.
    const pending = await sealed.consume<PendingLogin>(pendingKey(state));
    const binding = readCookie(req, bindingCookie);
    if (!pending || !binding || !sameSecret(sha256(binding), pending.binding)) {
      sendError(res, 400, 'Unknown, expired or foreign sign-in state. Start again from your MCP client.');
      return;
    }
    const clearCookie = cookie(bindingCookie, '', { secure, maxAge: 0 });
    const finish = async (ticket: InteractionTicket) => {
      await sealed.set(`ticket:${pending.uid}`, ticket, { ttlMs: PENDING_TTL_MS });
      res.writeHead(303, {
        location: `/interaction/${pending.uid}/done`,
        'set-cookie': clearCookie,
        'cache-control': 'no-store',
      });
      res.end();
    };
    const code = url.searchParams.get('code');
    if (!code) {
      await finish({ error: 'access_denied', description: `${upstream} sign-in was cancelled.` });
      return;
    }
    let tokens: UpstreamTokens;
    let identity: UpstreamIdentity;
    try {
      tokens = await signIn.exchangeCode(code);
      identity = await signIn.identify(tokens.accessToken);
    } catch (error) {
      logger.warn(`${upstream} sign-in failed`, { error: (error as Error).message });
      sendError(res, 502, `${upstream} sign-in failed. Try again from your MCP client.`);
      return;
    }
    const verdict = admitAccounts(admission, context.userIdOf(identity), identity);
    if (verdict.refused === 'policy') {
      await signIn.revoke(tokens.accessToken);
      logger.warn('sign-in refused by the policy', { identity: identity.id });
      sendError(res, 403, verdict.reason);
      return;
    }
    if (verdict.refused === 'none') {
      await signIn.revoke(tokens.accessToken);
      // The login's served account ids: the values the allowlist would need.
      const had = identity.accounts.map((account) => account.id);
      logger.warn(`sign-in refused: no allowed ${upstream} account`, {
        identity: identity.id,
        accounts: had.join(', ') || 'none',
        ...(verdict.emailDomain === undefined ? {} : { emailDomain: verdict.emailDomain }),
      });
      await finish({
        error: 'access_denied',
        description: `Your ${upstream} login is not admitted to this server.`,
      });
      return;
    }
    const { accounts } = verdict;
    if (accounts.length > 1) {
      await sealed.set(
        `pick:${pending.uid}`,
        {
          tokens,
          identity,
          accounts: accounts.map(({ id, name }) => ({ id, name })),
          ...(pending.decision ? { decision: pending.decision } : {}),
        } satisfies PendingPick,
        { ttlMs: PENDING_TTL_MS },
      );
      res.writeHead(303, {
        location: `/interaction/${pending.uid}/account`,
        'set-cookie': clearCookie,
        'cache-control': 'no-store',
      });
      res.end();
      return;
    }
    const userId = await saveConnection(
      context,
      identity,
      tokens,
      accounts[0] as UpstreamIdentity['accounts'][number],
    );
    await finish({ userId, ...(pending.decision ? { decision: pending.decision } : {}) });
  };
}
