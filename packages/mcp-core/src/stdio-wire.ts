import type { Readable, Writable } from 'node:stream';
import {
  type JSONRPCMessage,
  parseJSONRPCMessage,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/server';
import type { Logger } from './logger.js';

/** Largest single stdio message (one line), as the SDK's own stdio transport allows. */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** How much of an oversized line is kept to find its `id`. */
const OVERSIZED_PREFIX_BYTES = 64 * 1024;

export interface StdioWireOptions {
  input: Readable;
  output: Writable;
  logger: Logger;
  /** After the input ends, how long to wait for answers to requests already read. */
  drainTimeoutMs: number;
  /** A longer line is answered with an error and skipped. Default 10 MiB. */
  maxMessageBytes?: number;
}

type RequestId = string | number;

/**
 * Newline-delimited JSON-RPC over a pair of streams, for `serveStdio`. Unlike the SDK's stdio
 * transport it does not drop work when the input ends: a client that writes its requests and
 * closes stdin (scripts, smoke tests, some clients) still gets every answer, within
 * `drainTimeoutMs`, before the connection closes. A line that is not JSON-RPC, or is larger than
 * `maxMessageBytes`, is answered with a JSON-RPC error and reading goes on.
 */
export class StdioWire implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** Resolves once the wire has closed (drained after end of input, or `close`). */
  readonly closed: Promise<void>;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #logger: Logger;
  readonly #drainTimeoutMs: number;
  readonly #maxMessageBytes: number;
  readonly #pending = new Set<RequestId>();
  #line: Buffer[] = [];
  #lineBytes = 0;
  /** Set while skipping the rest of an oversized line: the start of it, to find the id. */
  #oversized: Buffer | undefined;
  #ended = false;
  #closed = false;
  #drainTimer: ReturnType<typeof setTimeout> | undefined;
  #resolveClosed: () => void = () => {};

  constructor(options: StdioWireOptions) {
    this.#input = options.input;
    this.#output = options.output;
    this.#logger = options.logger;
    this.#drainTimeoutMs = options.drainTimeoutMs;
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
  }

  async start(): Promise<void> {
    this.#input.on('data', this.#onData);
    this.#input.on('end', this.#onEnd);
    this.#input.on('close', this.#onEnd);
    this.#input.on('error', this.#onInputError);
    this.#output.on('error', this.#onOutputError);
    if (this.#input.readableEnded) this.#onEnd();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error('stdio connection is closed');
    // A response (to a request we read) settles it. Checked by shape: a schema parse of every
    // outgoing result would cost more than the write.
    const { id } = message as { id?: unknown };
    if (!('method' in message) && (typeof id === 'string' || typeof id === 'number')) this.#settle(id);
    const text = serializeMessage(message);
    if (!this.#output.write(text)) {
      await new Promise<void>((resolve) => {
        this.#output.once('drain', resolve);
        this.#output.once('close', resolve);
      });
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#drainTimer !== undefined) clearTimeout(this.#drainTimer);
    this.#input.off('data', this.#onData);
    this.#input.off('end', this.#onEnd);
    this.#input.off('close', this.#onEnd);
    this.#input.off('error', this.#onInputError);
    this.#output.off('error', this.#onOutputError);
    // Late write failures (the client is gone) must not become uncaught errors.
    this.#output.on('error', () => {});
    if (this.#input.listenerCount('data') === 0) this.#input.pause();
    this.#line = [];
    this.#pending.clear();
    this.onclose?.();
    this.#resolveClosed();
  }

  readonly #onData = (chunk: Buffer | string): void => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let newline = data.indexOf(10); newline !== -1; newline = data.indexOf(10)) {
      this.#append(data.subarray(0, newline));
      this.#endLine();
      data = data.subarray(newline + 1);
    }
    if (data.length > 0) this.#append(data);
  };

  readonly #onEnd = (): void => {
    if (this.#ended) return;
    this.#ended = true;
    // A last line without a newline still counts.
    if (this.#lineBytes > 0 || this.#oversized) this.#endLine();
    this.#closeWhenDrained();
  };

  readonly #onInputError = (error: Error): void => {
    this.onerror?.(error);
  };

  readonly #onOutputError = (error: Error): void => {
    // The client closed its end: nothing more can be answered.
    this.onerror?.(error);
    void this.close();
  };

  #append(piece: Buffer): void {
    if (this.#oversized) {
      if (this.#oversized.length < OVERSIZED_PREFIX_BYTES) {
        const room = OVERSIZED_PREFIX_BYTES - this.#oversized.length;
        this.#oversized = Buffer.concat([this.#oversized, piece.subarray(0, room)]);
      }
      return;
    }
    if (this.#lineBytes + piece.length > this.#maxMessageBytes) {
      // Keep only the start (for the id) and skip the rest of the line as it streams in.
      this.#oversized = Buffer.concat([...this.#line, piece]).subarray(0, OVERSIZED_PREFIX_BYTES);
      this.#line = [];
      this.#lineBytes = 0;
      return;
    }
    if (piece.length === 0) return;
    this.#line.push(piece);
    this.#lineBytes += piece.length;
  }

  #endLine(): void {
    if (this.#oversized) {
      const id = idOfTruncatedMessage(this.#oversized.toString('utf8'));
      this.#oversized = undefined;
      const limit = formatBytes(this.#maxMessageBytes);
      this.#logger.warn(`discarded a message larger than ${limit} (id ${JSON.stringify(id)})`);
      this.#reply(id, -32600, `Message too large: one stdio message may be at most ${limit}.`);
      return;
    }
    const text = Buffer.concat(this.#line).toString('utf8').replace(/\r$/, '');
    this.#line = [];
    this.#lineBytes = 0;
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#logger.warn('discarded a line that is not JSON');
      this.#reply(null, -32700, 'Parse error: each line must be one JSON-RPC message.');
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      const id = (value as { id?: unknown } | null)?.id;
      this.#reply(
        typeof id === 'string' || typeof id === 'number' ? id : null,
        -32600,
        'Invalid Request: not a JSON-RPC 2.0 message.',
      );
      return;
    }
    if (this.#closed) return;
    // Already validated above; tell a request (method and id) from a notification by shape.
    const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown };
    if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')) {
      this.#pending.add(id);
    } else if (method === 'notifications/cancelled') {
      const cancelled = (params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof cancelled === 'string' || typeof cancelled === 'number') this.#settle(cancelled);
    }
    this.onmessage?.(message);
  }

  #reply(id: RequestId | null, code: number, message: string): void {
    if (this.#closed) return;
    // The SDK's message type has no null id; JSON-RPC uses one when the id is unknown.
    const response = { jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage;
    this.send(response).catch((error: unknown) => this.onerror?.(error as Error));
  }

  #settle(id: RequestId): void {
    this.#pending.delete(id);
    if (this.#ended) this.#closeWhenDrained();
  }

  #closeWhenDrained(): void {
    if (this.#closed) return;
    if (this.#pending.size === 0) {
      // Let the answer just written reach the stream before the server is torn down.
      setImmediate(() => void this.close());
      return;
    }
    this.#drainTimer ??= setTimeout(() => {
      this.#logger.warn(
        `input ended; ${this.#pending.size} request(s) still unanswered after ${this.#drainTimeoutMs} ms, closing`,
      );
      void this.close();
    }, this.#drainTimeoutMs);
  }
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/**
 * The top-level `id` of a JSON-RPC message of which only the start is known, or null. Scans
 * strings and nesting so an `id` inside `params` is never taken for the message's own.
 */
export function idOfTruncatedMessage(text: string): RequestId | null {
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') depth--;
    else if (char === '"') {
      const end = stringEnd(text, index);
      if (end === -1) return null;
      if (depth === 1 && text.slice(index, end + 1) === '"id"') {
        let next = skipSpace(text, end + 1);
        if (text[next] === ':') {
          next = skipSpace(text, next + 1);
          if (text[next] === '"') {
            const valueEnd = stringEnd(text, next);
            if (valueEnd === -1) return null;
            try {
              return JSON.parse(text.slice(next, valueEnd + 1)) as string;
            } catch {
              return null;
            }
          }
          const number = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(next, next + 32));
          return number ? Number(number[0]) : null;
        }
      }
      index = end;
    }
  }
  return null;
}

function stringEnd(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index++) {
    if (text[index] === '\\') index++;
    else if (text[index] === '"') return index;
  }
  return -1;
}

function skipSpace(text: string, from: number): number {
  let index = from;
  while (index < text.length && /\s/.test(text[index] ?? '')) index++;
  return index;
}
