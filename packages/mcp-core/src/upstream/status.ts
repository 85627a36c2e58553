import {
  ConflictError,
  InvalidInputError,
  type McpToolError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitedError,
  TokenExpiredError,
  UpstreamError,
  UpstreamUnavailableError,
} from '../errors.js';

/** An upstream answer that is not a success, as the status → error map sees it. */
export interface UpstreamFailure {
  /** The service as named in messages, e.g. "Basecamp". */
  service: string;
  method: string;
  /** The request path on the upstream (no query, no origin), e.g. `/999/todos/1.json`. */
  path: string;
  /**
   * The status the answer stands for: the HTTP status, or the one an error reader found (a
   * GraphQL `NOT_FOUND` inside a 200 is a 404 here).
   */
  status: number;
  /** The HTTP status, when an error reader gave the answer another `status`. */
  httpStatus?: number;
  /** The upstream's error code an error reader found, e.g. `RATE_LIMITED`. */
  code?: string;
  headers: Headers;
  /** The body parsed as JSON; `undefined` when empty or not JSON. */
  body: unknown;
  /** The readable part of the body: cleaned, token-shaped text and known secrets redacted, cut short. */
  message: string | undefined;
  /** The caller's 404 text, naming the thing and the tool that lists valid IDs. */
  notFound: string | undefined;
  /** `Retry-After` in milliseconds, when sent and readable. */
  retryAfterMs: number | undefined;
  /** Redacts token-shaped text and the request's known secrets, for anything else quoted. */
  redact(text: string): string;
}

/**
 * A provider's own answer for some statuses (Basecamp's 404 `Reason` header and 507, a 422 body
 * with field errors); `undefined` falls back to the default map.
 */
export type StatusErrorMap = (failure: UpstreamFailure) => McpToolError | undefined;

/**
 * The one default status → error map: 400/422 `INVALID_INPUT`, 401 `TOKEN_EXPIRED` (only reached
 * after the credentials were renewed once, or when there are none to renew), 403
 * `PERMISSION_DENIED`, 404 `NOT_FOUND` with the caller's hint, 409 `CONFLICT`, 429 `RATE_LIMITED`
 * with `retry_after_ms`, 502/503/504 `UPSTREAM_UNAVAILABLE`, other 5xx `UPSTREAM_ERROR`
 * (retryable), anything else `UPSTREAM_ERROR`. The upstream's text is quoted, never matched. An
 * error an error reader found is named by its code (`(NOT_FOUND)`), with `upstream_code` and, when
 * the HTTP status differs, `http_status` in the details; one inside a 2xx that stands for no other
 * status is an `UPSTREAM_ERROR` quoting the upstream's message.
 */
export function defaultStatusError(failure: UpstreamFailure): McpToolError {
  const { service, status } = failure;
  const request = `${failure.method} ${failure.path}`;
  const said = failure.message ? ` ${service} said: "${failure.message}"` : '';
  const upstream = failure.message ? { upstream_message: failure.message } : {};
  // An error a reader found is named by its code, not by a status the upstream never sent.
  const found = failure.code !== undefined || failure.httpStatus !== undefined;
  const label = failure.code ?? String(status);
  const origin = {
    status,
    ...(failure.httpStatus === undefined ? {} : { http_status: failure.httpStatus }),
    ...(failure.code === undefined ? {} : { upstream_code: failure.code }),
  };
  if (status === 400 || status === 422) {
    return new InvalidInputError(
      `${service} rejected ${request} (${label}).${said} Fix the input and call again.`,
      { details: { ...origin, ...upstream } },
    );
  }
  if (status === 401) {
    return new TokenExpiredError(
      `${service} rejected the credentials (${label}) for ${request}: they expired or were revoked. Sign in again, then call the tool again.`,
      { details: origin },
    );
  }
  if (status === 403) {
    return new PermissionDeniedError(
      `${service} refused ${request} (${label}): your account is not allowed to do this.${said}`,
      { details: origin },
    );
  }
  if (status === 404) {
    if (!found) {
      return new NotFoundError(
        failure.notFound ??
          `${service} has nothing at ${request} (404): it does not exist, or your account cannot see it.`,
      );
    }
    return new NotFoundError(
      failure.notFound ??
        `${service} found nothing for ${request} (${label}): it does not exist, or your account cannot see it.${said}`,
      { details: { ...origin, ...upstream } },
    );
  }
  if (status === 409) {
    return new ConflictError(
      `${service} reported a conflict for ${request} (${label}).${said} Read the current state, then decide whether to call again.`,
      { details: origin },
    );
  }
  if (status === 429) {
    const wait = failure.retryAfterMs;
    return new RateLimitedError(
      `${service} is rate limiting requests.${wait === undefined ? ' Wait a moment' : ` Wait ${Math.ceil(wait / 1000)} s`} and call again.`,
      { details: { ...origin, ...(wait === undefined ? {} : { retry_after_ms: wait }) } },
    );
  }
  if (status === 502 || status === 503 || status === 504) {
    return new UpstreamUnavailableError(
      `${service} is unavailable (${label} on ${request}). Try again in a moment.`,
      {
        details: {
          ...origin,
          ...(failure.retryAfterMs === undefined ? {} : { retry_after_ms: failure.retryAfterMs }),
        },
      },
    );
  }
  if (status >= 500) {
    return new UpstreamError(`${service} failed with ${label} on ${request}. Try again in a moment.`, {
      retryable: true,
      details: origin,
    });
  }
  if (status >= 200 && status < 300) {
    // An error a reader found inside a success, with no code it knows.
    return new UpstreamError(
      `${service} reported an error for ${request}${failure.code === undefined ? '' : ` (${failure.code})`}.${said}`,
      { details: { ...origin, ...upstream } },
    );
  }
  return new UpstreamError(`${service} answered ${status} to ${request}.${said}`, { details: { status } });
}
