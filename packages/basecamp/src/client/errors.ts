import { LimitExceededError, NotFoundError, PermissionDeniedError } from '@x/mcp-core';
import type { StatusErrorMap } from '@x/mcp-core/upstream';

/**
 * Basecamp's own answers on top of the shared status map: a 404 with a `Reason` header (the
 * account itself is unusable), a 403 (only privileged actions get one) and a 507 (a plan limit).
 * Decided by status and header only: Basecamp's error text is shown to the agent, never matched.
 */
export const basecampStatusErrors: StatusErrorMap = (failure) => {
  const request = `${failure.method} ${failure.path}`;
  const said = failure.message ? ` Basecamp said: "${failure.message}"` : '';
  if (failure.status === 403) {
    return new PermissionDeniedError(
      `Basecamp refused ${request} (403): your account is not allowed to do this (e.g. it needs admin or owner rights).${said}`,
      { details: { status: 403 } },
    );
  }
  if (failure.status === 404) {
    const reason = failure.redact(
      failure.headers
        .get('reason')
        ?.replace(/[\r\n]/g, ' ')
        .slice(0, 200) ?? '',
    );
    if (!reason) return undefined;
    return new NotFoundError(
      `Basecamp answered 404 with "Reason: ${reason}" for ${request}: the account itself is unusable (an inactive account is an expired trial or a suspension), so every request to it fails until that is fixed in Basecamp. Do not retry.`,
      { details: { reason } },
    );
  }
  if (failure.status === 507) {
    return new LimitExceededError(
      `Basecamp refused ${request} (507): the account reached a plan limit (e.g. its number of projects or storage).${said}`,
      { details: { status: 507 } },
    );
  }
  return undefined;
};
