import { AsyncLocalStorage } from 'node:async_hooks';
import {
  createLogger,
  type Logger,
  type OperationEvent,
  type TelemetryObserver,
  type ToolCallEnd,
  type ToolCallOutcome,
} from '@x/mcp-core';
import { currentRequest } from '@x/mcp-core/node';
import { redactArguments } from './redact.js';
import type { AuditSink } from './sinks.js';

/** What a record says happened. */
export type AuditEvent =
  | 'tools/call'
  | 'prompts/get'
  | 'resources/read'
  | 'sign-in'
  | 'revoke'
  | 'forget'
  | 'request';

/** An event the server records besides calls: a sign-in (consent given), a revocation. */
export interface AuditEntry {
  event: AuditEvent;
  /** `ok` or an error code. */
  outcome: string;
  userId?: string | undefined;
  /** The user's email when it is known at hand (a refused sign-in has no stored connection to look it up in). */
  email?: string | undefined;
  clientId?: string | undefined;
  /** What was called: the served name of the tool, prompt or resource. */
  name?: string | undefined;
  /** What a sign-in granted: the scopes the client asked for (oidc-provider checked them). */
  scope?: string | undefined;
  /** Refused by the server's narrowing, scopes or policy (not by the upstream). */
  denied?: boolean;
  durationMs?: number;
  /** Arguments as the caller sent them: redacted before they are written. */
  arguments?: unknown;
  upstream?: UpstreamCount;
  requestId?: string | undefined;
  /** A short reason from a fixed vocabulary (never free text from a caller), e.g. `refresh token reused`. */
  reason?: string;
}

interface UpstreamCount {
  requests: number;
  services?: Record<string, number>;
}

/** Who is who: the user's email and the client's name, looked up once and cached. */
export interface AuditDirectory {
  userEmail(userId: string): Promise<string | undefined>;
  clientName(clientId: string): Promise<string | undefined>;
}

export interface AuditLogOptions {
  sink: AuditSink;
  /** The key of the arguments' keyed hashes (derived from `MCP_SECRET`). */
  argumentKey: Uint8Array;
  directory?: AuditDirectory;
  /** How long records wait for the ones after them before a batch is written. Default 20 ms. */
  flushIntervalMs?: number;
  /** Most records held while the sink is unavailable; later ones are dropped and counted. Default 100,000. */
  maxBuffered?: number;
  /** How long a looked-up email or client name is kept. Default 10 minutes. */
  directoryTtlMs?: number;
  logger?: Logger;
}

const KIND_EVENT: Record<OperationEvent['kind'], AuditEvent> = {
  tool: 'tools/call',
  prompt: 'prompts/get',
  resource: 'resources/read',
};
/** Outcomes that, with no upstream request made, mean the server refused the call itself (narrowing, scopes, policy, rate limit). */
const DENIED: ReadonlySet<string> = new Set(['PERMISSION_DENIED', 'TOOL_NOT_ENABLED', 'RATE_LIMITED']);
const MAX_CACHED = 10_000;

interface Pending {
  time: number;
  entry: AuditEntry;
}

interface CallScope {
  requests: number;
  services: Record<string, number> | undefined;
}

/**
 * The audit log: one record per tool call, prompt, resource read (refused ones included),
 * sign-in and revocation, hash-chained in its sink.
 *
 * Recording costs the call a push onto an array: redaction, lookups of emails and client names
 * (cached), sealing and the write happen in batches, off the call's path, every
 * `flushIntervalMs`. `close()` (the server's shutdown) writes everything; on `exit` a file or
 * stdout sink still gets what is buffered, synchronously. An abrupt kill loses at most the
 * records of the last interval (and, for Redis, the batch being sent).
 */
export class AuditLog {
  readonly sink: AuditSink;
  readonly #key: Uint8Array;
  readonly #directory: AuditDirectory | undefined;
  readonly #intervalMs: number;
  readonly #maxBuffered: number;
  readonly #ttlMs: number;
  readonly #logger: Logger;
  /** The call of each HTTP request being served (one JSON-RPC call per stateless request). */
  readonly #byRequest = new WeakMap<object, CallScope>();
  /** Outside an HTTP request (in process): the call, carried by an AsyncLocalStorage. */
  readonly #calls = new AsyncLocalStorage<CallScope>();
  readonly #emails = new Map<string, { value: string | undefined; at: number }>();
  readonly #clients = new Map<string, { value: string | undefined; at: number }>();
  #buffer: Pending[] = [];
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<boolean> | undefined;
  #dropped = 0;
  #closed = false;
  /** `close()` has begun: no more timers, its own flushes write the rest. */
  #closing = false;
  #failing = false;
  readonly #cleanups: Array<() => void> = [];
  readonly #onExit = () => this.#exitFlush();

  constructor(options: AuditLogOptions) {
    this.sink = options.sink;
    this.#key = options.argumentKey;
    this.#directory = options.directory;
    this.#intervalMs = options.flushIntervalMs ?? 20;
    this.#maxBuffered = options.maxBuffered ?? 100_000;
    this.#ttlMs = options.directoryTtlMs ?? 10 * 60_000;
    this.#logger = options.logger ?? createLogger('audit');
    process.on('exit', this.#onExit);
  }

  /** Records dropped because the sink could not keep up (or was unreachable). */
  get dropped(): number {
    return this.#dropped;
  }

  /** For `observe()`: every call with its arguments, outcome, duration and upstream requests. */
  readonly observer: TelemetryObserver = {
    operation: (event) => {
      const scope: CallScope = { requests: 0, services: undefined };
      const request = currentRequest();
      const time = Date.now();
      // Under an HTTP request its context carries the call: no AsyncLocalStorage of our own.
      if (request) this.#byRequest.set(request, scope);
      const end = ({ outcome, durationMs }: ToolCallEnd) => {
        if (request && this.#byRequest.get(request) === scope) this.#byRequest.delete(request);
        const auth = event.request.auth;
        const userId = auth?.extra?.userId;
        this.#push(time, {
          event: KIND_EVENT[event.kind],
          outcome,
          userId: typeof userId === 'string' ? userId : undefined,
          clientId: auth?.clientId,
          name: event.name,
          denied: isDenied(outcome, scope),
          durationMs,
          ...('arguments' in event ? { arguments: event.arguments } : {}),
          upstream: { requests: scope.requests, ...(scope.services ? { services: scope.services } : {}) },
          requestId: request?.request_id,
        });
      };
      return request ? { end } : { run: (work) => this.#calls.run(scope, work), end };
    },
    upstreamRequest: (event) => {
      const request = currentRequest();
      const scope = (request && this.#byRequest.get(request)) ?? this.#calls.getStore();
      if (scope) {
        scope.requests++;
        scope.services ??= {};
        scope.services[event.service] = (scope.services[event.service] ?? 0) + 1;
      }
      return undefined;
    },
  };

  /** Records an event that is not a call (a sign-in, a revocation). */
  record(entry: AuditEntry): void {
    this.#push(Date.now(), { requestId: currentRequest()?.request_id, ...entry });
  }

  /** Drops what is cached about a user (after a revocation or a new sign-in). */
  forgetUser(userId: string): void {
    this.#emails.delete(userId);
  }

  /** Writes everything recorded so far; false when the sink failed (the records are kept for a retry). */
  async flush(): Promise<boolean> {
    for (;;) {
      if (this.#flushing) await this.#flushing;
      if (this.#buffer.length === 0) return true;
      if (!(await this.#startFlush())) return false;
    }
  }

  /** Runs `cleanup` when the log closes, before its last write (e.g. stop observing). */
  onClose(cleanup: () => void): void {
    this.#cleanups.push(cleanup);
  }

  /** Writes everything, then closes the sink. What the sink still refuses is counted in the log. */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    for (const cleanup of this.#cleanups.splice(0)) cleanup();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    try {
      // One more attempt when the first fails (a sink that was just coming back).
      if (!(await this.flush()) && !(await this.flush())) {
        this.#logger.error('audit records lost at shutdown: the sink refused them', {
          sink: this.sink.name,
          records: this.#buffer.length,
        });
      }
    } finally {
      this.#closed = true;
      process.off('exit', this.#onExit);
      await this.sink.close();
    }
  }

  #push(time: number, entry: AuditEntry): void {
    if (this.#closed) return;
    if (this.#buffer.length >= this.#maxBuffered) {
      this.#dropped++;
      return;
    }
    this.#buffer.push({ time, entry });
    if (!this.#timer && !this.#flushing && !this.#closing) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        void this.#startFlush();
      }, this.#intervalMs);
      this.#timer.unref();
    }
  }

  #startFlush(): Promise<boolean> {
    if (this.#flushing) return this.#flushing;
    const run = this.#flushBatch().finally(() => {
      this.#flushing = undefined;
      if (this.#buffer.length > 0 && !this.#closing && !this.#timer) {
        this.#timer = setTimeout(
          () => {
            this.#timer = undefined;
            void this.#startFlush();
          },
          this.#failing ? 1000 : this.#intervalMs,
        );
        this.#timer.unref();
      }
    });
    this.#flushing = run;
    return run;
  }

  async #flushBatch(): Promise<boolean> {
    const batch = this.#buffer;
    if (batch.length === 0) return true;
    this.#buffer = [];
    try {
      await this.#lookUp(batch);
      const entries = batch.map((pending) => this.#shape(pending));
      if (this.#dropped > 0) {
        entries.push(
          this.#shape({ time: Date.now(), entry: { event: 'tools/call', outcome: 'error' } }, this.#dropped),
        );
      }
      await this.sink.write(entries);
      this.#dropped = 0;
      if (this.#failing) this.#logger.info('audit log writes again', { sink: this.sink.name });
      this.#failing = false;
      return true;
    } catch (error) {
      // Kept for the next attempt, ahead of what came meanwhile (up to the bound).
      const kept = [...batch, ...this.#buffer];
      this.#dropped += Math.max(0, kept.length - this.#maxBuffered);
      this.#buffer = kept.slice(0, this.#maxBuffered);
      if (!this.#failing) {
        this.#logger.error('audit log write failed; retrying', {
          sink: this.sink.name,
          error: (error as Error).message,
        });
      }
      this.#failing = true;
      return false;
    }
  }

  /** The emails and client names of a batch that are not cached yet, looked up together. */
  async #lookUp(batch: readonly Pending[]): Promise<void> {
    const directory = this.#directory;
    if (!directory) return;
    const now = Date.now();
    const users = new Set<string>();
    const clients = new Set<string>();
    for (const { entry } of batch) {
      if (entry.userId && !fresh(this.#emails.get(entry.userId), now, this.#ttlMs)) users.add(entry.userId);
      if (entry.clientId && !fresh(this.#clients.get(entry.clientId), now, this.#ttlMs))
        clients.add(entry.clientId);
    }
    const look = async (
      ids: Set<string>,
      cache: Map<string, { value: string | undefined; at: number }>,
      find: (id: string) => Promise<string | undefined>,
    ) => {
      if (cache.size + ids.size > MAX_CACHED) cache.clear();
      await Promise.all(
        [...ids].map(async (id) => {
          let value: string | undefined;
          try {
            value = await find(id);
          } catch {
            // The store is unreachable: the record goes out without it (retried next time).
            return;
          }
          cache.set(id, { value, at: now });
        }),
      );
    };
    await Promise.all([
      look(users, this.#emails, (id) => directory.userEmail(id)),
      look(clients, this.#clients, (id) => directory.clientName(id)),
    ]);
  }

  /** The record as written (before its seq, prev and hash). */
  #shape({ time, entry }: Pending, dropped?: number): object {
    if (dropped !== undefined) {
      return { time: new Date(time).toISOString(), event: 'dropped', outcome: 'error', count: dropped };
    }
    const record: Record<string, unknown> = {
      time: new Date(time).toISOString(),
      event: entry.event,
      outcome: entry.outcome,
    };
    if (entry.denied) record.denied = true;
    record.user = entry.userId
      ? { id: entry.userId, email: entry.email ?? this.#emails.get(entry.userId)?.value ?? null }
      : null;
    record.client = entry.clientId
      ? { id: entry.clientId, name: this.#clients.get(entry.clientId)?.value ?? null }
      : null;
    record.request_id = entry.requestId ?? null;
    if (entry.name !== undefined) record.name = entry.name;
    if (entry.scope !== undefined) record.scope = entry.scope;
    if (entry.durationMs !== undefined) record.duration_ms = Math.round(entry.durationMs * 10) / 10;
    if (entry.upstream) record.upstream = entry.upstream;
    if ('arguments' in entry) record.args = redactArguments(entry.arguments, this.#key);
    if (entry.reason !== undefined) record.reason = entry.reason;
    return record;
  }

  /** At exit without `close()`: what a synchronous sink can still take, without lookups. */
  #exitFlush(): void {
    if (this.#closed || this.#flushing || this.#buffer.length === 0 || !this.sink.synchronous) return;
    const batch = this.#buffer;
    this.#buffer = [];
    try {
      void this.sink.write(batch.map((pending) => this.#shape(pending)));
    } catch {
      // Nothing more can be done while exiting.
    }
  }
}

function fresh(cached: { at: number } | undefined, now: number, ttlMs: number): boolean {
  return cached !== undefined && now - cached.at < ttlMs;
}

function isDenied(outcome: ToolCallOutcome, scope: CallScope): boolean {
  // The upstream's own 403 or 429 comes after an upstream request; the server's refusals before any.
  return DENIED.has(outcome) && scope.requests === 0;
}
