import { McpToolError, type McpToolErrorOptions } from '@x/mcp-core';

const UNAVAILABLE = Symbol.for('@x/mcp-hosted.StoreUnavailableError');
const DECRYPT = Symbol.for('@x/mcp-hosted.DecryptError');

/** Seconds a caller is told to wait (`Retry-After`) when the store cannot be reached. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/**
 * The store could not be reached or did not answer (Redis down, connection lost, a file
 * write failed). Retryable: the server answers 503 with `Retry-After`, never 401, so clients
 * do not all re-authorize at once.
 */
export class StoreUnavailableError extends McpToolError {
  readonly [UNAVAILABLE] = true;
  readonly retryAfterSeconds: number;

  constructor(message: string, options: { cause?: unknown; retryAfterSeconds?: number } = {}) {
    const retryAfterSeconds = options.retryAfterSeconds ?? STORE_RETRY_AFTER_SECONDS;
    super('UPSTREAM_UNAVAILABLE', message, {
      retryable: true,
      cause: options.cause,
      details: { retry_after_ms: retryAfterSeconds * 1000 },
    });
    this.name = 'StoreUnavailableError';
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** Works across duplicate installs of this package, unlike `instanceof`. */
  static override isInstance(value: unknown): value is StoreUnavailableError {
    return (
      typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[UNAVAILABLE] === true
    );
  }
}

/**
 * A ciphertext could not be opened: tampered, truncated, written for another record key,
 * or sealed with a key that is neither `MCP_SECRET` nor `MCP_SECRET_PREVIOUS`. The message
 * never contains key material or plaintext.
 */
export class DecryptError extends McpToolError {
  readonly [DECRYPT] = true;
  /** What was wrong: `format` (not our ciphertext, truncated), `unknown-key` or `authentication`. */
  readonly reason: 'format' | 'unknown-key' | 'authentication';

  constructor(reason: DecryptError['reason'], message: string, options?: McpToolErrorOptions) {
    super('INTERNAL_ERROR', message, options);
    this.name = 'DecryptError';
    this.reason = reason;
  }

  static override isInstance(value: unknown): value is DecryptError {
    return (
      typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DECRYPT] === true
    );
  }
}
