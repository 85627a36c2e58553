/**
 * The environment variables every bin's runner reads itself (`runBin`), beside a provider's own
 * table: listed by `--help`, and left out when a provider's table is compared with its
 * `server.json` (`environmentProblems`). Constants only, so the `./upstream` entry can use them.
 */
export const RUNNER_ENVIRONMENT: readonly { name: string; description: string }[] = [
  {
    name: 'MCP_HTTP_TOKEN',
    description: 'bearer token required by --http (needed to listen beyond loopback)',
  },
  { name: 'PORT', description: 'default for --port' },
  { name: 'MCP_SURFACE', description: 'list (default) or search: the default for --surface' },
  {
    name: 'MCP_CONFIRM',
    description: 'on (default) or off: off is --no-confirm (no person is asked to confirm destructive calls)',
  },
  {
    name: 'MCP_HTTP_HEADERS_TIMEOUT',
    description: 'with --http: milliseconds a client has to send its request headers (default 10000)',
  },
  {
    name: 'MCP_HTTP_REQUEST_TIMEOUT',
    description: 'with --http: milliseconds a client has to send its whole request (default 30000)',
  },
  {
    name: 'MCP_HTTP_KEEPALIVE_TIMEOUT',
    description: 'with --http: milliseconds an idle keep-alive connection stays open (default 5000)',
  },
  { name: 'MCP_LOG_LEVEL', description: 'debug | info | warn | error | silent (default info)' },
  {
    name: 'MCP_LOG_FORMAT',
    description: 'json: one JSON object per log line; with --http also one per tool call (default text)',
  },
  {
    name: 'MCP_METRICS_TOKEN',
    description: 'with --http: bearer token for /metrics (needed to serve it beyond loopback)',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    description: 'with --http: send OpenTelemetry traces there (needs the @opentelemetry/* packages)',
  },
];
