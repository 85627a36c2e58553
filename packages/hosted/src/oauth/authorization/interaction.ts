import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InteractionDetails, OidcClient } from 'oidc-provider';
import { StoreUnavailableError } from '../../errors.js';
import { sendError } from '../pages.js';
import { type McpAccess, mcpAccess, mcpScopesOf } from '../scopes.js';
import { createAccountChoice } from './account-choice.js';
import { createConsent } from './consent.js';
import type { AuthServerContext } from './context.js';
import { type Grants, requestedScopes } from './grants.js';
import type { InteractionTicket } from './records.js';

/** One request to `/interaction/<uid>[/<step>]`, its interaction loaded and checked. */
export interface InteractionRequest {
  req: IncomingMessage;
  res: ServerResponse;
  uid: string;
  details: InteractionDetails;
  clientId: string;
  client: OidcClient;
  /** The user this browser is signed in as, if any. */
  sessionUser: string | undefined;
  /** The MCP scopes the client asked for, and what they add up to. */
  asked: string[];
  askedAccess: McpAccess;
}

/**
 * `/interaction/<uid>[/<step>]`, the pages of a sign-in oidc-provider hands over to us (its
 * interaction cookie is scoped to this path): the consent page (`GET`) and its answer (`POST
 * …/decision`, consent.ts), the return from the upstream sign-in (`GET …/done`), the account
 * picker (`…/account`, account-choice.ts). An interaction of another browser, an expired one or
 * one whose client is gone is refused with a page saying so.
 */
export function createInteraction(context: AuthServerContext, grants: Grants) {
  const consent = createConsent(context, grants);
  const accountChoice = createAccountChoice(context, grants);

  /** The interaction, or undefined when the answer (a 400 page) has been sent. */
  async function load(req: IncomingMessage, res: ServerResponse, uid: string) {
    let details: InteractionDetails;
    try {
      details = await context.provider.interactionDetails(req, res);
    } catch (error) {
      if (StoreUnavailableError.isInstance(error)) throw error;
      sendError(
        res,
        400,
        'This sign-in has expired or belongs to another browser. Start again from your MCP client.',
      );
      return undefined;
    }
    if (details.uid !== uid) {
      sendError(res, 400, 'This sign-in belongs to another browser session.');
      return undefined;
    }
    const clientId = details.params.client_id as string;
    const client = await context.provider.Client.find(clientId);
    if (!client) {
      sendError(res, 400, 'The client of this sign-in is no longer registered.');
      return undefined;
    }
    const asked = mcpScopesOf(requestedScopes(details));
    return {
      details,
      clientId,
      client,
      sessionUser: details.session?.accountId,
      asked,
      askedAccess: mcpAccess(asked),
    };
  }

  /** Back from the upstream sign-in: finish with the callback's ticket (used once). */
  async function done({ req, res, uid, details }: InteractionRequest) {
    const ticket = await context.sealed.consume<InteractionTicket>(`ticket:${uid}`);
    if (!ticket) {
      sendError(res, 400, 'This sign-in was already completed or has expired.');
      return;
    }
    if (ticket.error || !ticket.userId) {
      await context.provider.interactionFinished(
        req,
        res,
        {
          error: ticket.error ?? 'access_denied',
          error_description: ticket.description ?? 'Sign-in refused.',
        },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    await grants.finishSignedIn(
      req,
      res,
      details,
      ticket.userId,
      grants.decisionOf(details, ticket.decision),
    );
  }

  return async function interaction(
    req: IncomingMessage,
    res: ServerResponse,
    uid: string,
    step: string | undefined,
  ) {
    const loaded = await load(req, res, uid);
    if (!loaded) return;
    const request: InteractionRequest = { req, res, uid, ...loaded };
    if (step === undefined && req.method === 'GET') return consent.page(request);
    if (step === 'decision' && req.method === 'POST') return consent.decide(request);
    if (step === 'done' && req.method === 'GET') return done(request);
    if (step === 'account') return accountChoice(request);
    sendError(res, 405, 'Unsupported request.');
  };
}
