import { McpToolError } from './errors.js';
import type { Logger } from './logger.js';

export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

/**
 * A JSON-RPC error of `prompts/get` or `resources/read`. Unlike tools, these have no error
 * result, so failures travel as protocol errors; both SDKs send a thrown error's numeric
 * `code`, `message` and `data` as they are. `data.error_code` carries our error vocabulary.
 */
export class McpRequestError extends Error {
  readonly code: number;
  readonly data: Record<string, unknown>;
  constructor(code: number, message: string, data: Record<string, unknown>) {
    super(message);
    this.name = 'McpRequestError';
    this.code = code;
    this.data = data;
  }
}

/**
 * Maps a failure onto a protocol error: bad input and unknown ids are invalid params
 * (`-32602`, with `uri` for resources so clients recognise "resource not found"), every other
 * `McpToolError` an internal error with its message (written for the model, never secret),
 * anything else an internal error whose detail only the log sees.
 */
export function toRequestError(error: unknown, what: string, log: Logger, uri?: string): McpRequestError {
  if (error instanceof McpRequestError) return error;
  if (McpToolError.isInstance(error)) {
    if (error.code === 'INTERNAL_ERROR' && error.cause !== undefined) {
      log.error(error.message, { cause: describe(error.cause) });
    }
    const data: Record<string, unknown> = {
      error_code: error.code,
      retryable: error.retryable,
      ...error.details,
    };
    if (uri !== undefined) data.uri = uri;
    const code =
      error.code === 'INVALID_INPUT' || error.code === 'NOT_FOUND' ? INVALID_PARAMS : INTERNAL_ERROR;
    return new McpRequestError(code, error.message, data);
  }
  const reference = globalThis.crypto.randomUUID().slice(0, 8);
  log.error(`unexpected failure (ref ${reference})`, { error: describe(error) });
  return new McpRequestError(
    INTERNAL_ERROR,
    `${what} failed unexpectedly (ref ${reference}). The details are in the server log.`,
    { error_code: 'INTERNAL_ERROR', retryable: false },
  );
}

function describe(error: unknown): unknown {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return String(error);
}
