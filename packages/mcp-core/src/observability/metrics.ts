import type {
  ObservedScope,
  TelemetryObserver,
  ToolCallEnd,
  ToolCallEvent,
  UpstreamRequestEnd,
  UpstreamRequestEvent,
} from './events.js';

/**
 * A small Prometheus registry (text exposition format 0.0.4) for what `serveHttp` exposes at
 * `/metrics`. Labels are fixed per metric and their values are bounded by construction: tool
 * names the server registered, the closed error vocabulary, service names from code, HTTP
 * methods folded onto a fixed set, and status classes. Never an argument, a path or a user.
 */

/** Seconds. From a cached 304 (a few ms) to the default 60 s tool time budget. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] as const;

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);

interface Metric {
  render(lines: string[]): void;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function labelText(names: readonly string[], values: readonly string[], extra?: string): string {
  const parts = names.map((name, index) => `${name}="${escapeLabel(values[index] ?? '')}"`);
  if (extra) parts.push(extra);
  return parts.length > 0 ? `{${parts.join(',')}}` : '';
}

function formatNumber(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(12)));
}

export class Counter implements Metric {
  readonly #series = new Map<string, { values: readonly string[]; count: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labels: readonly string[],
  ) {}

  inc(values: readonly string[], by = 1): void {
    const key = values.join('\u0000');
    const series = this.#series.get(key);
    if (series) series.count += by;
    else this.#series.set(key, { values: [...values], count: by });
  }

  /** The value of one series (tests, diagnostics). */
  get(values: readonly string[]): number {
    return this.#series.get(values.join('\u0000'))?.count ?? 0;
  }

  render(lines: string[]): void {
    lines.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`);
    for (const { values, count } of this.#series.values()) {
      lines.push(`${this.name}${labelText(this.labels, values)} ${formatNumber(count)}`);
    }
  }
}

export class Histogram implements Metric {
  readonly #series = new Map<
    string,
    { values: readonly string[]; buckets: number[]; sum: number; count: number }
  >();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labels: readonly string[],
    readonly bounds: readonly number[] = DURATION_BUCKETS,
  ) {}

  observe(values: readonly string[], value: number): void {
    const key = values.join('\u0000');
    let series = this.#series.get(key);
    if (!series) {
      series = { values: [...values], buckets: new Array(this.bounds.length).fill(0), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    // Non-cumulative per bucket here; cumulated when rendered.
    const index = this.bounds.findIndex((bound) => value <= bound);
    if (index >= 0) series.buckets[index] = (series.buckets[index] ?? 0) + 1;
    series.sum += value;
    series.count += 1;
  }

  render(lines: string[]): void {
    lines.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`);
    for (const { values, buckets, sum, count } of this.#series.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, index) => {
        cumulative += buckets[index] ?? 0;
        lines.push(
          `${this.name}_bucket${labelText(this.labels, values, `le="${formatNumber(bound)}"`)} ${cumulative}`,
        );
      });
      lines.push(`${this.name}_bucket${labelText(this.labels, values, 'le="+Inf"')} ${count}`);
      lines.push(`${this.name}_sum${labelText(this.labels, values)} ${formatNumber(sum)}`);
      lines.push(`${this.name}_count${labelText(this.labels, values)} ${count}`);
    }
  }
}

export class Gauge implements Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly read: () => number,
  ) {}

  render(lines: string[]): void {
    lines.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} gauge`);
    lines.push(`${this.name} ${formatNumber(this.read())}`);
  }
}

/** `2xx` … `5xx` for a status, `error` when no answer came (time limit, network). */
export function statusClass(status: number | undefined): string {
  if (status === undefined || status < 100 || status > 599) return 'error';
  return `${Math.floor(status / 100)}xx`;
}

/** The method as a label: one of the six methods the upstream clients send, or `OTHER`. */
export function methodLabel(method: string): string {
  return METHODS.has(method) ? method : 'OTHER';
}

/** The metrics `/metrics` serves, fed by the core's tool-call and upstream-request events. */
export class ServerMetrics {
  readonly toolCalls = new Counter(
    'mcp_tool_calls_total',
    'Tool calls by tool and outcome (ok or the error code).',
    ['tool', 'outcome'],
  );
  readonly toolDuration = new Histogram(
    'mcp_tool_call_duration_seconds',
    'Tool call duration in seconds, from validated arguments to the result, by tool.',
    ['tool'],
  );
  readonly upstreamRequests = new Counter(
    'mcp_upstream_requests_total',
    'Requests sent to upstream services (every attempt, retries included), by service, method and status class.',
    ['service', 'method', 'status_class'],
  );
  readonly upstreamDuration = new Histogram(
    'mcp_upstream_request_duration_seconds',
    'Upstream exchange duration in seconds (sending to the last byte of the body), by service.',
    ['service'],
  );
  #inFlight = 0;
  readonly #metrics: Metric[];

  constructor(extra: readonly Gauge[] = []) {
    this.#metrics = [
      this.toolCalls,
      this.toolDuration,
      new Gauge('mcp_tool_calls_in_flight', 'Tool calls running now.', () => this.#inFlight),
      this.upstreamRequests,
      this.upstreamDuration,
      new Gauge('process_resident_memory_bytes', 'Resident set size in bytes.', () =>
        typeof process.memoryUsage.rss === 'function' ? process.memoryUsage.rss() : process.memoryUsage().rss,
      ),
      new Gauge('nodejs_heap_used_bytes', 'V8 heap in use, in bytes.', () => process.memoryUsage().heapUsed),
      ...extra,
    ];
  }

  /** The observer to pass to `observe`. */
  readonly observer: TelemetryObserver = {
    toolCall: (event: ToolCallEvent): ObservedScope<ToolCallEnd> => {
      this.#inFlight++;
      return {
        end: ({ outcome, durationMs }) => {
          this.#inFlight--;
          this.toolCalls.inc([event.tool, outcome]);
          this.toolDuration.observe([event.tool], durationMs / 1000);
        },
      };
    },
    upstreamRequest: (event: UpstreamRequestEvent): ObservedScope<UpstreamRequestEnd> => ({
      end: ({ status, durationMs }) => {
        this.upstreamRequests.inc([event.service, methodLabel(event.method), statusClass(status)]);
        this.upstreamDuration.observe([event.service], durationMs / 1000);
      },
    }),
  };

  /** The text exposition: `Content-Type: text/plain; version=0.0.4`. */
  render(): string {
    const lines: string[] = [];
    for (const metric of this.#metrics) metric.render(lines);
    return `${lines.join('\n')}\n`;
  }
}

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
