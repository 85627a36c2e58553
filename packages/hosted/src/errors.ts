import { McpToolError, type McpToolErrorOptions } from '@x/mcp-core';

const UNAVAILABLE = Symbol.for('@x/mcp-hosted.StoreUnavailableError');
const DECRYPT = Symbol.for('@x/mcp-hosted.DecryptError');
const KEY_UNAVAILABLE = Symbol.for('@x/mcp-hosted.KeyUnavailableError');

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
  /** With `unknown-key`: the id of the key that sealed it (16 hex digits, not secret). */
  readonly keyId: string | undefined;

  constructor(
    reason: DecryptError['reason'],
    message: string,
    options?: McpToolErrorOptions & { keyId?: string },
  ) {
    super('INTERNAL_ERROR', message, options);
    this.name = 'DecryptError';
    this.reason = reason;
    this.keyId = options?.keyId;
  }

  static override isInstance(value: unknown): value is DecryptError {
    return (
      typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DECRYPT] === true
    );
  }
}

/**
 * A stored record is sealed with a key this process does not hold: a replica left on the old
 * secret after `keys rotate`, or started with a secret the fleet never used. The store is there,
 * this replica cannot serve from it: a 503 with `Retry-After` (never a 500 or a 401, so clients do
 * not re-authorize), and a log line naming the key id it needs (never a secret).
 */
export class KeyUnavailableError extends StoreUnavailableError {
  readonly [KEY_UNAVAILABLE] = true;
  /** The id of the key the record needs (16 hex digits). */
  readonly keyId: string;

  constructor(keyId: string, heldKeyIds: readonly string[], options: { cause?: unknown } = {}) {
    super(
      `A stored record is sealed with key ${keyId}, which this replica does not hold (its keys: ` +
        `${heldKeyIds.join(', ')}): restart it with that key's secret as MCP_SECRET, or as ` +
        'MCP_SECRET_PREVIOUS during a rotation.',
      options,
    );
    this.name = 'KeyUnavailableError';
    this.keyId = keyId;
  }

  static override isInstance(value: unknown): value is KeyUnavailableError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[KEY_UNAVAILABLE] === true
    );
  }
}
