import { randomBytes } from 'node:crypto';
import { isLoopbackHost } from '@x/mcp-core/node';
import { cookie, readForm, sameSecret, sha256 } from '../browser.js';
import { consentPage, sendError, sendPage } from '../pages.js';
import { READ_SCOPE } from '../scopes.js';
import type { AuthServerContext } from './context.js';
import type { Grants } from './grants.js';
import type { InteractionRequest } from './interaction.js';
import { type ConsentDecision, PENDING_TTL_MS, type PendingLogin, pendingKey } from './records.js';

/**
 * The consent step of `/interaction/<uid>`: `page` shows what the client asks for (or finishes
 * at once on a consent remembered for a signed-in browser); `decide` takes the answer (`POST
 * …/decision`, the page's CSRF token, one button) and finishes for a signed-in browser, or only
 * then starts the upstream sign-in with a single-use state bound to this browser.
 */
export function createConsent(context: AuthServerContext, grants: Grants) {
  const { sealed, signIn, upstream, secure, bindingCookie, csrfFor, connections } = context;

  async function page({
    req,
    res,
    uid,
    details,
    clientId,
    client,
    sessionUser,
    asked,
    askedAccess,
  }: InteractionRequest) {
    // Remembered consent: this browser is signed in, this user approved as much for this
    // client before, and the sign-in connection still works: no page at all. Asking for
    // more than was approved (a step-up to `mcp:write`) shows the page again.
    const remembered = sessionUser ? await grants.rememberedConsent(sessionUser, clientId) : undefined;
    if (
      sessionUser &&
      remembered &&
      (remembered.access === 'write' || askedAccess !== 'write') &&
      (await connections.isActive(sessionUser))
    ) {
      await grants.finishSignedIn(req, res, details, sessionUser, {
        granted: asked,
        remember: remembered.access,
      });
      return;
    }
    const redirect = new URL(details.params.redirect_uri as string);
    sendPage(
      res,
      200,
      'Approve access',
      consentPage({
        action: `/interaction/${uid}/decision`,
        csrf: csrfFor(uid),
        serverName: context.serverName,
        clientName: client.clientName ?? clientId,
        redirectHost: redirect.host,
        loopback: isLoopbackHost(redirect.hostname),
        access: askedAccess === 'write' ? 'write' : 'read',
        // It gets a refresh token when it may use one (`issueRefreshToken`), offline_access or not.
        offline: client.grantTypeAllowed('refresh_token'),
        // Read only is a choice when the client asks for more and a token can say `mcp:read`.
        readOnlyChoice: askedAccess === 'write' && asked.includes(READ_SCOPE),
        upstream,
        accessWords: signIn.connection.access,
      }),
    );
  }

  async function decide(request: InteractionRequest) {
    const { req, res, uid, details, clientId, sessionUser } = request;
    const decision = await formDecision(context, grants, request);
    if (!decision) return;
    if (sessionUser && (await connections.isActive(sessionUser))) {
      await grants.finishSignedIn(req, res, details, sessionUser, decision);
      return;
    }
    // Only now, after consent: a single-use state kept server-side, bound to this browser.
    const state = randomBytes(32).toString('base64url');
    const binding = randomBytes(32).toString('base64url');
    await sealed.set(
      pendingKey(state),
      { uid, clientId, binding: sha256(binding), decision } satisfies PendingLogin,
      { ttlMs: PENDING_TTL_MS },
    );
    res.writeHead(303, {
      location: signIn.authorizationUrl(state),
      'set-cookie': cookie(bindingCookie, binding, { secure, maxAge: PENDING_TTL_MS / 1000 }),
      'cache-control': 'no-store',
    });
    res.end();
  }

  return { page, decide };
}

/** What the form decided, or undefined when the answer (an error page, a denial) has been sent. */
async function formDecision(
  context: AuthServerContext,
  grants: Grants,
  request: InteractionRequest,
): Promise<ConsentDecision | undefined> {
  const { req, res, uid, clientId, sessionUser, asked, askedAccess } = request;
  const { csrfFor } = context;
  const form = await readForm(req);
  if (!sameSecret(form.get('csrf'), csrfFor(uid))) {
    sendError(res, 403, 'The form was not sent from this sign-in page (CSRF check failed).');
    return undefined;
  }
  // One button's value: a form carrying two (`read` and `approve`) is not a choice.
  const decisions = form.getAll('decision');
  if (decisions.length !== 1) {
    sendError(res, 400, 'Choose one of the buttons on the consent page.');
    return undefined;
  }
  // What is granted comes from the request the client made, never from the form: the
  // form only says everything asked for (`approve`) or read only (`read`).
  if (decisions[0] === 'approve') {
    const decision: ConsentDecision = {
      granted: asked,
      remember: askedAccess === 'write' ? 'write' : 'read',
    };
    // Approving a narrower request does not forget a wider approval of the same client.
    if (sessionUser && (await grants.rememberedConsent(sessionUser, clientId))?.access === 'write') {
      decision.remember = 'write';
    }
    return decision;
  }
  if (decisions[0] === 'read') {
    if (!asked.includes(READ_SCOPE)) {
      sendError(res, 400, 'This client did not ask for read-only access (mcp:read); approve or deny.');
      return undefined;
    }
    return { granted: [READ_SCOPE], remember: 'read' };
  }
  await context.provider.interactionFinished(
    req,
    res,
    { error: 'access_denied', error_description: 'The user denied access.' },
    { mergeWithLastSubmission: false },
  );
  return undefined;
}
