/**
 * `@x/mcp-core/node`: serving on Node. The bin runner every provider's `bin.ts` calls, stdio
 * and Streamable HTTP serving. `node:http` loads only when HTTP serving starts, so a stdio
 * server never pays for it.
 */

import type { HttpHandle, ServeHttpOptions } from '../http.js';

export type { HttpAuth, HttpHandle, HttpTimeouts, MetricGauge, ServeHttpOptions } from '../http.js';
export { isLoopbackHost } from '../loopback.js';
export {
  NarrowingSyntaxError,
  narrowingAccesses,
  parseNarrowedPath,
  parseNarrowingHeaders,
  type RequestedNarrowing,
} from '../narrowing.js';
export { toolCallLog } from '../observability/call-log.js';
export { ServerMetrics } from '../observability/metrics.js';
export { currentRequest } from '../observability/request-context.js';
export { startTracing, type Tracing, type TracingOptions } from '../observability/tracing.js';
export { requestTarget } from '../request-target.js';
export {
  type BinCommand,
  type BinContext,
  type BinFlag,
  type EnvironmentVariable,
  type HttpAuthContext,
  type HttpAuthSetup,
  type ProviderEntry,
  type ProviderSource,
  type RunBinOptions,
  runBin,
  type SandboxHandle,
} from '../runner.js';
export { claimStdout, type ServeStdioOptions, type StdioHandle, serveStdio } from '../stdio.js';

/**
 * Stateless Streamable HTTP with Host/Origin checks, `/healthz`, `/readyz`, a request body
 * limit and a bearer token or auth strategy; see `ServeHttpOptions`.
 */
export async function serveHttp(options: ServeHttpOptions): Promise<HttpHandle> {
  const http = await import('../http.js');
  return http.serveHttp(options);
}
