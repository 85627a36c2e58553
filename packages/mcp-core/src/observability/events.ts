import type { ErrorCode } from '../errors.js';
import type { RequestInfo } from '../tool.js';

/**
 * The seam between what the core does and who watches it. The execute path and the upstream
 * client announce each tool call and each upstream exchange here; metrics, traces and logs
 * subscribe with `observe`. With no observer (the default, and every stdio server) the only
 * cost is one array length check per call.
 *
 * Events carry no arguments, results, paths, queries or credentials: only the tool name, the
 * outcome, the upstream service and method, and the status.
 */

/** `ok`, a code of the shared vocabulary, or `error` for an `isError` result in no known code. */
export type ToolCallOutcome = 'ok' | ErrorCode | 'error';

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

/** What an observer hands back for one call or exchange. */
export interface ObservedScope<End> {
  end(result: End): void;
  /** Runs the work inside the observer's context (a trace span), so nested events see it. */
  run?<T>(work: () => T): T;
}

export interface TelemetryObserver {
  toolCall?(event: ToolCallEvent): ObservedScope<ToolCallEnd> | undefined;
  upstreamRequest?(event: UpstreamRequestEvent): ObservedScope<UpstreamRequestEnd> | undefined;
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
): Combined<End> {
  const scopes: ObservedScope<End>[] = [];
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
  return combine(scopes);
}

export function startToolCall(event: ToolCallEvent): Combined<ToolCallEnd> {
  return start((observer) => observer.toolCall, event);
}

export function startUpstreamRequest(event: UpstreamRequestEvent): Combined<UpstreamRequestEnd> {
  return start((observer) => observer.upstreamRequest, event);
}
