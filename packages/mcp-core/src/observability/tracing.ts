import type { Logger } from '../logger.js';
import type { TelemetryObserver } from './events.js';

/**
 * OpenTelemetry spans per tool call and per upstream request, exported over OTLP/HTTP (JSON).
 * The OpenTelemetry packages are optional peer dependencies, imported only from here and only
 * when tracing is turned on, so a server without `OTEL_EXPORTER_OTLP_ENDPOINT` never loads them.
 *
 * Span attributes are the tool name, the outcome (`error.type`), the upstream service, method,
 * host and status: never arguments, results, paths, queries, user ids or tokens.
 */

export const TRACING_PACKAGES = [
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace-node',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/resources',
] as const;

/**
 * A specifier in a variable: bundlers (ours for the benchmark bin, or a user's bundling the core)
 * leave the import to run time instead of pulling OpenTelemetry into every bundle.
 */
const load = (specifier: string): Promise<unknown> => import(specifier);

export interface Tracing {
  observer: TelemetryObserver;
  /** Sends what is buffered and stops the exporter. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  serviceName: string;
  serviceVersion: string;
  logger: Logger;
}

/**
 * Starts the tracer provider (batching, OTLP/HTTP exporter configured by the standard
 * `OTEL_EXPORTER_OTLP_*` variables, `OTEL_SERVICE_NAME` over `serviceName`). Resolves
 * `undefined`, with a warning naming the packages to install, when they are missing.
 */
export async function startTracing(options: TracingOptions): Promise<Tracing | undefined> {
  let modules: [
    typeof import('@opentelemetry/api'),
    typeof import('@opentelemetry/sdk-trace-node'),
    typeof import('@opentelemetry/exporter-trace-otlp-http'),
    typeof import('@opentelemetry/resources'),
  ];
  try {
    modules = (await Promise.all(TRACING_PACKAGES.map(load))) as typeof modules;
  } catch (error) {
    options.logger.warn(
      `OTEL_EXPORTER_OTLP_ENDPOINT is set but the OpenTelemetry packages cannot be loaded; serving without traces. Install them next to the server: npm install ${TRACING_PACKAGES.join(' ')}`,
      { error },
    );
    return undefined;
  }
  const [api, sdk, exporterModule, resources] = modules;
  const resource = resources.defaultResource().merge(
    resources.resourceFromAttributes({
      'service.name': process.env.OTEL_SERVICE_NAME || options.serviceName,
      'service.version': options.serviceVersion,
    }),
  );
  const provider = new sdk.NodeTracerProvider({
    resource,
    spanProcessors: [new sdk.BatchSpanProcessor(new exporterModule.OTLPTraceExporter())],
  });
  // Installs the AsyncLocalStorage context manager, so upstream spans nest under their tool call.
  provider.register();
  const tracer = api.trace.getTracer('@x/mcp-core', options.serviceVersion);
  const { SpanKind, SpanStatusCode, context, trace } = api;

  const observer: TelemetryObserver = {
    toolCall(event) {
      const span = tracer.startSpan(`tools/call ${event.tool}`, {
        kind: SpanKind.INTERNAL,
        attributes: {
          'mcp.method.name': 'tools/call',
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': event.tool,
          'network.transport': event.request.transport === 'http' ? 'tcp' : 'pipe',
        },
      });
      const active = trace.setSpan(context.active(), span);
      return {
        run: (work) => context.with(active, work),
        end: ({ outcome }) => {
          if (outcome !== 'ok') {
            span.setAttribute('error.type', outcome);
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          span.end();
        },
      };
    },
    upstreamRequest(event) {
      const url = new URL(event.origin);
      const span = tracer.startSpan(event.method, {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': event.method,
          'server.address': url.hostname,
          'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
          'peer.service': event.service,
        },
      });
      return {
        end: ({ status, failure }) => {
          if (status !== undefined) span.setAttribute('http.response.status_code', status);
          if (failure !== undefined || (status !== undefined && status >= 500)) {
            span.setAttribute('error.type', failure ?? String(status));
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          span.end();
        },
      };
    },
  };
  return {
    observer,
    shutdown: async () => {
      try {
        await provider.shutdown();
      } catch (error) {
        options.logger.warn('could not send the last traces', { error });
      }
    },
  };
}
