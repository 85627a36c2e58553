import { NotFoundError, PermissionDeniedError, toolRef } from '@x/mcp-core';
import type { StatusErrorMap } from '@x/mcp-core/upstream';
import { LOGIN_COMMAND } from '../auth/config-file.js';

export { LOGIN_COMMAND };

export interface FailureContext {
  /** The ticket the request was about, for a useful 404. */
  ticketId?: string;
  teamId: string;
}

/**
 * Forge's own answers for 403 and 404 on top of the shared status map. Decided by status code
 * only: the upstream's error text varies between versions and is shown, never matched.
 */
export function forgeStatusErrors(context: FailureContext): StatusErrorMap {
  return (failure) => {
    const request = `${failure.method} ${failure.path}`;
    const said = failure.message ? ` Forge said: "${failure.message}"` : '';
    if (failure.status === 403) {
      return new PermissionDeniedError(
        `Forge refused access to ${context.ticketId ? `ticket ${context.ticketId}` : request} (403).${said} Check that your account is a member of team ${context.teamId}, or run ${LOGIN_COMMAND} with the right account.`,
        { details: { status: 403 } },
      );
    }
    if (failure.status === 404) {
      if (context.ticketId) {
        // An HTML 404 is not the API speaking: most likely FORGE_API_URL lacks the /api prefix.
        const hint =
          failure.body === undefined
            ? ' (Forge answered without JSON: check that FORGE_API_URL ends in /api.)'
            : '';
        return new NotFoundError(
          `Ticket not found: ${context.ticketId}. Use ${toolRef('list_tickets')} to see ticket IDs.${hint}`,
        );
      }
      return new NotFoundError(
        `Forge has no ${request} (404). Check FORGE_API_URL: it must include the /api prefix.`,
      );
    }
    return undefined;
  };
}
