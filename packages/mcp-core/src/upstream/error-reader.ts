/**
 * Error readers: how a provider tells the upstream client where its service puts errors. A REST
 * service says it with the status; a GraphQL service answers most failures with 200 and an
 * `errors` list, a JSON-RPC service with an `error` member. A reader finds them, so the client
 * treats them as it treats the statuses they stand for (renew on 401, wait on 429, retry a 5xx
 * that is safe to retry) and maps them onto the same typed errors.
 */

/** An upstream answer as an error reader sees it. */
export interface UpstreamAnswer {
  /** The HTTP status. */
  status: number;
  headers: Headers;
  /** The body parsed as JSON; `undefined` when empty or not JSON. */
  body: unknown;
}

/** What an error reader found in an answer. */
export interface UpstreamErrorFinding {
  /**
   * The HTTP status the answer stands for: a GraphQL `UNAUTHENTICATED` inside a 200 is a 401, a
   * `RATELIMITED` inside a 400 is a 429. Default: the answer's own status. A finding on a 2xx
   * answer is a failure whatever its status (an `UPSTREAM_ERROR` when it stays 2xx).
   */
  status?: number;
  /** The upstream's own words, as sent: the client cleans, redacts and shortens them. */
  message?: string;
  /** The upstream's error code (e.g. `RATE_LIMITED`), named in the message and the details. */
  code?: string;
}

/**
 * Finds the error in an answer; `undefined` when there is none (a 2xx is then a success, and a
 * non-2xx is read as without a reader: its status, the default message extraction).
 */
export type UpstreamErrorReader = (answer: UpstreamAnswer) => UpstreamErrorFinding | undefined;

export interface GraphqlErrorReaderOptions {
  /**
   * Answer errors that come with `data` that is not `null` as a success, for a caller that reads
   * `errors` next to the partial data itself. Default `false`: any error fails the request.
   */
  partialData?: boolean;
  /** More codes and the statuses they stand for, tried before the built-in ones (upper case). */
  codes?: Readonly<Record<string, number>>;
}

/**
 * The statuses GraphQL error codes stand for: Apollo Server's `extensions.code` (`UNAUTHENTICATED`,
 * `FORBIDDEN`, `BAD_USER_INPUT`, ...), GitHub's top-level `type` (`NOT_FOUND`, `FORBIDDEN`,
 * `RATE_LIMITED`) and Linear's `extensions.code`/`extensions.type` (`AUTHENTICATION_ERROR`,
 * `RATELIMITED`, `INVALID_INPUT`), written in upper case with `_` for spaces and dashes.
 */
const GRAPHQL_CODES: Readonly<Record<string, number>> = {
  UNAUTHENTICATED: 401,
  AUTHENTICATION_ERROR: 401,
  FORBIDDEN: 403,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ENTITY_NOT_FOUND: 404,
  RATE_LIMITED: 429,
  RATELIMITED: 429,
  BAD_USER_INPUT: 400,
  INVALID_INPUT: 400,
  INPUT_ERROR: 400,
  GRAPHQL_PARSE_FAILED: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  BAD_REQUEST: 400,
  CONFLICT: 409,
  INTERNAL_SERVER_ERROR: 500,
};

/**
 * The reader of a GraphQL service (GraphQL over HTTP: errors in `errors[]`, each with a
 * `message`, often a code in `extensions.code`, GitHub's in `type`). The message is every
 * distinct `errors[].message` (Linear's `extensions.userPresentableMessage` when sent) joined
 * with `; `; the status is that of the first error whose code is known, else the answer's own
 * (so an error without a known code in a 200 is an `UPSTREAM_ERROR` quoting the message). A
 * non-2xx answer without `errors` (GitHub's 401 `{ message }`) is left to the default reading.
 */
export function graphqlErrorReader(options: GraphqlErrorReaderOptions = {}): UpstreamErrorReader {
  const codes = { ...GRAPHQL_CODES, ...options.codes };
  return ({ status, body }) => {
    if (typeof body !== 'object' || body === null) return undefined;
    const { errors, data } = body as { errors?: unknown; data?: unknown };
    if (!Array.isArray(errors) || errors.length === 0) return undefined;
    const ok = status >= 200 && status < 300;
    if (ok && options.partialData && data !== null && data !== undefined) return undefined;
    const messages = new Set<string>();
    let code: string | undefined;
    let mapped: number | undefined;
    for (const error of errors) {
      if (typeof error !== 'object' || error === null) continue;
      const text = errorText(error as GraphqlError);
      if (text) messages.add(text);
      const own = errorCodes(error as GraphqlError);
      code ??= own[0];
      const known =
        mapped === undefined ? own.find((candidate) => codes[candidate] !== undefined) : undefined;
      if (known !== undefined) {
        mapped = codes[known];
        code = known;
      }
    }
    const message = [...messages].join('; ');
    return {
      ...(mapped === undefined ? {} : { status: mapped }),
      ...(message ? { message } : {}),
      ...(code === undefined ? {} : { code }),
    };
  };
}

interface GraphqlError {
  message?: unknown;
  type?: unknown;
  extensions?: { code?: unknown; type?: unknown; userPresentableMessage?: unknown };
}

function errorText(error: GraphqlError): string | undefined {
  const presentable = error.extensions?.userPresentableMessage;
  if (typeof presentable === 'string' && presentable.trim()) return presentable;
  return typeof error.message === 'string' && error.message.trim() ? error.message : undefined;
}

/** An error's codes, normalised: `extensions.code`, then GitHub's `type`, then Linear's `extensions.type`. */
function errorCodes(error: GraphqlError): string[] {
  return [error.extensions?.code, error.type, error.extensions?.type]
    .filter((candidate): candidate is string => typeof candidate === 'string' && candidate.trim() !== '')
    .map((candidate) =>
      candidate
        .trim()
        .toUpperCase()
        .replace(/[\s-]+/g, '_'),
    );
}
