import {
  ConflictError,
  InvalidInputError,
  type McpToolError,
  NotFoundError,
  PermissionDeniedError,
  parseRetryAfter,
  RateLimitedError,
  toolRef,
  UpstreamError,
} from '@x/mcp-core';

export const LOGIN_COMMAND = '`forge-mcp login` (or `forge login`)';

export interface FailureContext {
  method: string;
  /** The API path without the base URL, e.g. `/tickets/T-1`. */
  path: string;
  /** The ticket the request was about, for a useful 404. */
  ticketId?: string;
  teamId: string;
}

/**
 * The one place an upstream HTTP failure becomes a tool error. Decided by status code only:
 * the upstream's error text varies between versions and is shown, never matched.
 */
export function errorForStatus(
  status: number,
  headers: Headers,
  body: unknown,
  context: FailureContext,
): McpToolError {
  const upstream = upstreamMessage(body);
  const said = upstream ? ` Forge said: "${upstream}"` : '';
  const request = `${context.method} ${context.path}`;
  if (status === 400 || status === 422) {
    return new InvalidInputError(`Forge rejected ${request} (${status}).${said}`, {
      details: { status },
    });
  }
  if (status === 403) {
    return new PermissionDeniedError(
      `Forge refused access to ${context.ticketId ? `ticket ${context.ticketId}` : request} (403).${said} Check that your account is a member of team ${context.teamId}, or run ${LOGIN_COMMAND} with the right account.`,
    );
  }
  if (status === 404) {
    if (context.ticketId) {
      // An HTML 404 is not the API speaking: most likely FORGE_API_URL lacks the /api prefix.
      const hint =
        body === undefined ? ' (Forge answered without JSON: check that FORGE_API_URL ends in /api.)' : '';
      return new NotFoundError(
        `Ticket not found: ${context.ticketId}. Use ${toolRef('list_tickets')} to see ticket IDs.${hint}`,
      );
    }
    return new NotFoundError(
      `Forge has no ${request} (404). Check FORGE_API_URL: it must include the /api prefix.`,
    );
  }
  if (status === 409) return new ConflictError(`Forge reported a conflict for ${request}.${said}`);
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(headers.get('retry-after'));
    return new RateLimitedError(
      `Forge is rate limiting requests.${retryAfterMs === undefined ? ' Wait a moment' : ` Wait ${Math.ceil(retryAfterMs / 1000)} s`} and try again.`,
      { details: retryAfterMs === undefined ? {} : { retry_after_ms: retryAfterMs } },
    );
  }
  if (status >= 500) {
    return new UpstreamError(
      `Forge failed with ${status} on ${request}, also when retried. Try again in a moment.`,
      { retryable: true, details: { status } },
    );
  }
  return new UpstreamError(`Forge answered ${status} to ${request}.${said}`, { details: { status } });
}

/** NestJS answers `{ statusCode, message: string | string[], error }`; the device flow `{ error }`. */
function upstreamMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const raw = Array.isArray(record.message)
    ? record.message.filter((item) => typeof item === 'string').join('; ')
    : typeof record.message === 'string'
      ? record.message
      : typeof record.error === 'string'
        ? record.error
        : undefined;
  if (!raw) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters from upstream text
  const clean = raw.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return clean.length > 300 ? `${clean.slice(0, 300)}…` : clean;
}
