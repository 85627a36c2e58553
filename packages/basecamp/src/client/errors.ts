import {
  InvalidInputError,
  LimitExceededError,
  type McpToolError,
  NotFoundError,
  PermissionDeniedError,
  parseRetryAfter,
  RateLimitedError,
  UpstreamError,
} from '@x/mcp-core';

export interface FailureContext {
  method: string;
  /** The path below the account, e.g. `/todos/1.json`. */
  path: string;
  /** What the request was about, for a useful 404: "To-do 123 was not found ... Use list_todos ...". */
  notFound?: string;
}

/**
 * The one place an upstream HTTP failure becomes a tool error, decided by status code only:
 * Basecamp's error text is shown to the agent, never matched. 401 is handled before this
 * (refresh and retry) and 429 / 5xx after the client's own retries.
 */
export function errorForStatus(
  status: number,
  headers: Headers,
  body: unknown,
  context: FailureContext,
): McpToolError {
  const upstream = upstreamMessage(body);
  const said = upstream ? ` Basecamp said: "${upstream}"` : '';
  const request = `${context.method} ${context.path}`;
  if (status === 400 || status === 422) {
    return new InvalidInputError(
      `Basecamp rejected ${request} (${status}).${said} Fix the input and call again.`,
      {
        details: { status, ...(upstream ? { upstream_message: upstream } : {}) },
      },
    );
  }
  if (status === 403) {
    return new PermissionDeniedError(
      `Basecamp refused ${request} (403): your account is not allowed to do this (e.g. it needs admin or owner rights).${said}`,
    );
  }
  if (status === 404) {
    const reason = headers
      .get('reason')
      ?.replace(/[\r\n]/g, ' ')
      .slice(0, 200);
    if (reason) {
      return new NotFoundError(
        `Basecamp answered 404 with "Reason: ${reason}" for ${request}: the account itself is unusable (an inactive account is an expired trial or a suspension), so every request to it fails until that is fixed in Basecamp. Do not retry.`,
        { details: { reason } },
      );
    }
    return new NotFoundError(
      context.notFound ??
        `Basecamp has nothing at ${request} (404): it was deleted, or your account cannot see it.`,
    );
  }
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(headers.get('retry-after'));
    return new RateLimitedError(
      `Basecamp is rate limiting requests.${retryAfterMs === undefined ? ' Wait a moment' : ` Wait ${Math.ceil(retryAfterMs / 1000)} s`} and call again.`,
      { details: retryAfterMs === undefined ? {} : { retry_after_ms: retryAfterMs } },
    );
  }
  if (status === 507) {
    return new LimitExceededError(
      `Basecamp refused ${request} (507): the account reached a plan limit (e.g. its number of projects or storage).${said}`,
    );
  }
  if (status >= 500) {
    return new UpstreamError(`Basecamp failed with ${status} on ${request}. Try again in a moment.`, {
      retryable: true,
      details: { status },
    });
  }
  return new UpstreamError(`Basecamp answered ${status} to ${request}.${said}`, { details: { status } });
}

/** Basecamp answers `{ "error": "..." }`, sometimes `{ "errors": [...] }` or `{ "message": "..." }`. */
function upstreamMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return clean(body);
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const candidates = [record.error, record.message, record.errors];
  for (const candidate of candidates) {
    if (typeof candidate === 'string' && candidate.trim()) return clean(candidate);
    if (Array.isArray(candidate)) {
      const joined = candidate.filter((item) => typeof item === 'string').join('; ');
      if (joined) return clean(joined);
    }
    if (candidate && typeof candidate === 'object') {
      const joined = Object.entries(candidate as Record<string, unknown>)
        .map(([key, value]) => `${key} ${Array.isArray(value) ? value.join(', ') : String(value)}`)
        .join('; ');
      if (joined) return clean(joined);
    }
  }
  return undefined;
}

function clean(raw: string): string | undefined {
  const withoutTags = raw.replace(/<[^>]*>/g, ' ');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters from upstream text
  const text = withoutTags.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim();
  if (!text) return undefined;
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
