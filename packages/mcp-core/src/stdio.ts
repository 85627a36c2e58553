import { Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/server';
import { serveStdio as sdkServeStdio } from '@modelcontextprotocol/server/stdio';
import { createLogger, type Logger } from './logger.js';
import { DEFAULT_TIMEOUT_MS } from './registry.js';
import { type CreateMcpServerOptions, createMcpServer } from './server.js';
import { DEFAULT_MAX_MESSAGE_BYTES, StdioWire } from './stdio-wire.js';
import type { Surface } from './surface/search.js';
import { TaskHost } from './tasks.js';

export interface ServeStdioOptions
  extends Omit<CreateMcpServerOptions, 'registry' | 'transport' | 'surface'> {
  /** The tools, or a function that loads them on the first message (keeps start-up fast). */
  registry: CreateMcpServerOptions['registry'] | (() => Promise<CreateMcpServerOptions['registry']>);
  /** `search` serves three tools that reach the others; a function is asked with the registry (a config file may say). */
  surface?: Surface | (() => Promise<Surface>);
  logger?: Logger;
  /**
   * When stdin ends, requests already read are still answered, for at most this long; then
   * the connection closes. Default: the default call time budget (60 000 ms).
   */
  drainTimeoutMs?: number;
  /** A longer stdin line is answered with a JSON-RPC error and skipped. Default 10 MiB. */
  maxMessageBytes?: number;
}

export interface StdioHandle {
  /**
   * Resolves when the connection has closed: stdin ended and every request read before was
   * answered (or `drainTimeoutMs` passed), stdout failed, or `close` was called.
   */
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves over stdin/stdout. Before anything else, stdout is taken over: JSON-RPC frames
 * go to the real stdout, and every other write (a stray `console.log` in a handler or a
 * dependency) is sent to stderr, so the protocol stream cannot be corrupted.
 */
export function serveStdio(options: ServeStdioOptions): StdioHandle {
  const logger = options.logger ?? createLogger(options.name);
  const protocolOut = claimStdout();
  let registryPromise: Promise<CreateMcpServerOptions['registry']> | undefined;
  const loadRegistry = () => {
    registryPromise ??=
      typeof options.registry === 'function' ? options.registry() : Promise.resolve(options.registry);
    return registryPromise;
  };
  // One connection, one process: task state in memory, unless the caller brings a host.
  const tasks = options.tasks ?? new TaskHost();
  const transport = new StdioWire({
    input: process.stdin,
    output: protocolOut,
    logger,
    drainTimeoutMs: options.drainTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
  });
  const handle = sdkServeStdio(
    async (): Promise<McpServer> => {
      const registry = await loadRegistry();
      const surface = typeof options.surface === 'function' ? await options.surface() : options.surface;
      return createMcpServer({
        name: options.name,
        version: options.version,
        ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
        registry,
        transport: 'stdio',
        ...(surface ? { surface } : {}),
        ...(options.confirm === false ? { confirm: false } : {}),
        tasks,
      });
    },
    {
      transport,
      onerror: (error) => logger.error('stdio transport error', { error }),
    },
  );
  return {
    closed: transport.closed,
    close: async () => {
      await handle.close();
      await transport.close();
    },
  };
}

let claimed: Writable | undefined;

/** Redirects `process.stdout.write` to stderr and returns a stream to the real stdout. */
export function claimStdout(): Writable {
  if (claimed) return claimed;
  const stdout = process.stdout;
  const realWrite = stdout.write.bind(stdout);
  const toStderr = process.stderr.write.bind(process.stderr);
  stdout.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) =>
    toStderr(chunk as string, encoding as BufferEncoding, callback as () => void)) as typeof stdout.write;
  claimed = new Writable({
    // Frames pass through as the strings they are; no Buffer copy per message.
    decodeStrings: false,
    write(chunk, encoding, callback) {
      realWrite(chunk, encoding, callback);
    },
  });
  stdout.on('error', (error) => claimed?.destroy(error));
  return claimed;
}
