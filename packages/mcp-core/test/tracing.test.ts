import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { connectHttp, errorBody, resultData, startHttpBin } from '../src/testing/index.js';
import { startItemsApi } from './fixtures/observed.js';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const recorder = fileURLToPath(new URL('./fixtures/record-imports.mjs', import.meta.url));

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code?: number };
}

/** A fake OTLP/HTTP collector on 127.0.0.1: keeps the spans of every JSON `POST /v1/traces`. */
async function startCollector() {
  const spans: OtlpSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        bodies.push(body);
        const payload = JSON.parse(body) as {
          resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
        };
        for (const resource of payload.resourceSpans) {
          for (const scope of resource.scopeSpans) spans.push(...scope.spans);
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, bodies };
}

/** The observed fixture bin over HTTP, every resolved module specifier recorded to a file. */
async function startObservedBin(env: Record<string, string | undefined>) {
  const api = await startItemsApi();
  cleanup.push(api.close);
  const directory = mkdtempSync(join(tmpdir(), 'mcp-tracing-'));
  cleanup.push(() => rmSync(directory, { recursive: true, force: true }));
  const record = join(directory, 'imports.txt');
  const bin = await startHttpBin({
    command: process.execPath,
    args: ['--import', recorder, '--import', 'tsx', 'test/fixtures/observed-bin.ts', '--http', '--port', '0'],
    cwd: packageRoot,
    env: {
      ITEMS_API_URL: api.url,
      RECORD_IMPORTS_FILE: record,
      OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
      ...env,
    },
  });
  cleanup.push(() => {
    bin.child.kill('SIGKILL');
  });
  const connection = await connectHttp(bin.url);
  try {
    const found = await connection.client.callTool({ name: 'get_item', arguments: { id: 'ok-arg-1' } });
    expect(resultData(found)).toEqual({ id: 'ok-arg-1', name: 'Item ok-arg-1' });
    const missing = await connection.client.callTool({ name: 'get_item', arguments: { id: 'gone-arg-2' } });
    expect(errorBody(missing).error_code).toBe('NOT_FOUND');
  } finally {
    await connection.close();
  }
  // SIGTERM: the runner closes the server, which flushes the traces before exiting.
  bin.child.kill('SIGTERM');
  expect(await bin.exited).toBe(0);
  return { imports: readFileSync(record, 'utf8').split('\n'), stderr: bin.stderr() };
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  return value ? Object.values(value)[0] : undefined;
};

describe('OpenTelemetry tracing', () => {
  it('loads no @opentelemetry module when OTEL_EXPORTER_OTLP_ENDPOINT is not set', async () => {
    const { imports } = await startObservedBin({});
    // The recorder works: it saw the SDK and the core being loaded.
    expect(imports.some((specifier) => specifier.startsWith('@modelcontextprotocol/server'))).toBe(true);
    expect(imports.filter((specifier) => specifier.includes('@opentelemetry'))).toEqual([]);
  });

  it('sends a span per tool call and per upstream request to the OTLP endpoint, without arguments', async () => {
    const collector = await startCollector();
    const { imports } = await startObservedBin({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_SERVICE_NAME: 'observed-test',
    });
    expect(imports).toContain('@opentelemetry/sdk-trace-node');
    const body = collector.bodies.join('\n');
    expect(body).toContain('observed-test');
    expect(body).not.toContain('arg-1');
    expect(body).not.toContain('arg-2');

    const calls = collector.spans.filter((span) => span.name === 'tools/call get_item');
    expect(calls).toHaveLength(2);
    const requests = collector.spans.filter((span) => span.name === 'GET');
    expect(requests).toHaveLength(2);
    for (const call of calls) {
      expect(attribute(call, 'gen_ai.tool.name')).toBe('get_item');
      expect(attribute(call, 'mcp.method.name')).toBe('tools/call');
      // Each upstream request is a child of its tool call, in the same trace.
      const child = requests.find((span) => span.parentSpanId === call.spanId);
      expect(child?.traceId).toBe(call.traceId);
      expect(attribute(child as OtlpSpan, 'peer.service')).toBe('Items API');
    }
    const failed = calls.find((span) => attribute(span, 'error.type') === 'NOT_FOUND');
    expect(failed?.status?.code).toBe(2);
    const statuses = requests.map((span) => Number(attribute(span, 'http.response.status_code'))).sort();
    expect(statuses).toEqual([200, 404]);
  });
});
