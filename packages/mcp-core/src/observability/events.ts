import type { ErrorCode } from '../errors.js';
import type { RequestInfo } from '../tool.js';

/**
 * The seam between what the core does and who watches it. The execute path and the upstream
 * client announce each tool call and each upstream exchange here; metrics, traces and logs
 * subscribe with `observe`. With no observer (the default, and every stdio server) the only
 * cost is one array length check per call.
 *
 * Events carry no arguments, results, paths, queries or credentials: only the tool name, the
 * outcome, the upstream service and method, and the status. The one exception is `operation`,
 * for an audit log only: it receives what the caller sent, and must redact it.
 */

/**
 * `ok`, a code of the shared vocabulary, `error` for an `isError` result in no known code, or
 * `input_required` for a round that asked the person to confirm (the handler has not run yet).
 */
export type ToolCallOutcome = 'ok' | ErrorCode | 'error' | 'input_required';

export interface ToolCallEvent {
  /** The name the tool is served under. */
  tool: string;
  request: RequestInfo;
}

export interface ToolCallEnd {
  outcome: ToolCallOutcome;
  durationMs: number;
}

export interface UpstreamRequestEvent {
  /** The service as the client names it ("Basecamp", "Forge"). */
  service: string;
  /** Upper case, e.g. `GET`. */
  method: string;
  /** The origin (scheme, host, port) of the API; never a path or query. */
  origin: string;
}

export interface UpstreamRequestEnd {
  /** The HTTP status; absent when no answer came. */
  status?: number;
  /** Why no answer came: the time limit, a network failure, or the caller cancelled. */
  failure?: 'timeout' | 'network' | 'cancelled';
  durationMs: number;
}

/** What a request ran: a tool (`tools/call`), a prompt (`prompts/get`) or a resource (`resources/read`). */
export type OperationKind = 'tool' | 'prompt' | 'resource';

/**
 * One `tools/call`, `prompts/get` or `resources/read`, refused ones included, with what the
 * caller sent. For an audit log, which must redact the arguments before they go anywhere.
 */
export interface OperationEvent {
  kind: OperationKind;
  /** The served name of the tool or prompt, or the resource's name. */
  name: string;
  request: RequestInfo;
  /**
   * The arguments as the client sent them (not validated), a resource's URI variables;
   * `undefined` when the announcer did not have them (a call refused before it was read).
   */
  arguments?: unknown;
}

/** What an observer hands back for one call or exchange. */
export interface ObservedScope<End> {
  end(result: End): void;
  /** Runs the work inside the observer's context (a trace span), so nested events see it. */
  run?<T>(work: () => T): T;
}

export interface TelemetryObserver {
  toolCall?(event: ToolCallEvent): ObservedScope<ToolCallEnd> | undefined;
  upstreamRequest?(event: UpstreamRequestEvent): ObservedScope<UpstreamRequestEnd> | undefined;
  /**
   * Every tool call, prompt and resource read with its arguments (see {@link OperationEvent}).
   * A scope's `run` wraps the work, so the upstream requests it makes can be counted per call.
   */
  operation?(event: OperationEvent): ObservedScope<ToolCallEnd> | undefined;
}

interface Hub {
  observers: readonly TelemetryObserver[];
}

// Shared across duplicate installs of the core in one process, like the error brand.
const HUB_KEY = Symbol.for('@x/mcp-core.telemetry');
const slot = globalThis as Record<symbol, Hub | undefined>;
slot[HUB_KEY] ??= { observers: [] };
const hub: Hub = slot[HUB_KEY];

/** Subscribes to tool calls and upstream requests in this process; returns the unsubscribe. */
export function observe(observer: TelemetryObserver): () => void {
  hub.observers = [...hub.observers, observer];
  return () => {
    hub.observers = hub.observers.filter((known) => known !== observer);
  };
}

/** Whether anyone listens: the hot paths check this before building an event. */
export function observed(): boolean {
  return hub.observers.length > 0;
}

/** One scope that ends and runs through every observer's scope. */
interface Combined<End> {
  run<T>(work: () => T): T;
  end(result: Omit<End, 'durationMs'>): void;
}

const now = (): number => performance.now();

function combine<End extends { durationMs: number }>(scopes: ObservedScope<End>[]): Combined<End> {
  const started = now();
  return {
    run<T>(work: () => T): T {
      let wrapped = work;
      for (const scope of scopes) {
        if (scope.run) {
          const inner = wrapped;
          const withRun = scope as Required<ObservedScope<End>>;
          wrapped = () => withRun.run(inner);
        }
      }
      return wrapped();
    },
    end(result) {
      const full = { ...result, durationMs: now() - started } as End;
      for (const scope of scopes) {
        try {
          scope.end(full);
        } catch {
          // An observer's failure must never change a call's result.
        }
      }
    },
  };
}

function start<Event, End extends { durationMs: number }>(
  pick: (observer: TelemetryObserver) => ((event: Event) => ObservedScope<End> | undefined) | undefined,
  event: Event,
  scopes: ObservedScope<End>[] = [],
): ObservedScope<End>[] {
  for (const observer of hub.observers) {
    const begin = pick(observer);
    if (!begin) continue;
    try {
      const scope = begin.call(observer, event);
      if (scope) scopes.push(scope);
    } catch {
      // As above: observing is best effort.
    }
  }
  return scopes;
}

/**
 * A tool call: announced to `toolCall` observers (no arguments) and to `operation` observers
 * (with `args` when the announcer has them; a call refused before its arguments were read has
 * none).
 */
export function startToolCall(event: ToolCallEvent, args?: unknown): Combined<ToolCallEnd> {
  const scopes = start((observer) => observer.toolCall, event);
  const operation: OperationEvent = { kind: 'tool', name: event.tool, request: event.request };
  if (args !== undefined) operation.arguments = args;
  return combine(start((observer) => observer.operation, operation, scopes));
}

/** A prompt or resource read (tools go through {@link startToolCall}): to `operation` observers. */
export function startOperation(event: OperationEvent): Combined<ToolCallEnd> {
  return combine(start((observer) => observer.operation, event));
}

export function startUpstreamRequest(event: UpstreamRequestEvent): Combined<UpstreamRequestEnd> {
  return combine(start((observer) => observer.upstreamRequest, event));
}
