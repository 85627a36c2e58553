import { readForm, sameSecret } from '../browser.js';
import { accountPickerPage, sendError, sendPage } from '../pages.js';
import type { AuthServerContext } from './context.js';
import type { Grants } from './grants.js';
import type { InteractionRequest } from './interaction.js';
import type { PendingPick } from './records.js';
import { saveConnection } from './upstream-callback.js';

/**
 * `/interaction/<uid>/account`: a login admitted on several accounts picks one (`GET` shows the
 * choice; `POST` takes it, once, with the page's CSRF token, among the listed accounts only),
 * and the sign-in finishes with that account's connection.
 */
export function createAccountChoice(context: AuthServerContext, grants: Grants) {
  const { sealed, store, upstream, csrfFor } = context;
  return async function accountChoice({ req, res, uid, details }: InteractionRequest) {
    const pick = (await sealed.get<PendingPick>(`pick:${uid}`))?.value;
    if (!pick) {
      sendError(res, 400, 'This account choice has expired. Start again from your MCP client.');
      return;
    }
    if (req.method === 'GET') {
      sendPage(
        res,
        200,
        'Choose an account',
        accountPickerPage({
          upstream,
          action: `/interaction/${uid}/account`,
          csrf: csrfFor(uid),
          accounts: pick.accounts,
        }),
      );
      return;
    }
    const form = await readForm(req);
    if (!sameSecret(form.get('csrf'), csrfFor(uid))) {
      sendError(res, 403, 'The form was not sent from this sign-in page (CSRF check failed).');
      return;
    }
    const chosen = pick.accounts.find((account) => account.id === form.get('account'));
    if (!chosen) {
      sendError(res, 400, 'Choose one of the listed accounts.');
      return;
    }
    if ((await store.consume(`pick:${uid}`)) === undefined) {
      sendError(res, 400, 'This account choice was already made.');
      return;
    }
    const userId = await saveConnection(context, pick.identity, pick.tokens, chosen);
    await grants.finishSignedIn(req, res, details, userId, grants.decisionOf(details, pick.decision));
  };
}
