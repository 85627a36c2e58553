#!/usr/bin/env node
// What observing a tool call costs, in process (no network, no child process, so the figure is the
// hooks' own cost, not the machine's noise): the same registry calls with no observer, with the
// /metrics observer, + the JSON request log (written to a no-op sink), + OpenTelemetry spans
// (batched to a fake OTLP collector on 127.0.0.1). Two tools: `echo` (no I/O) and `fetch_item`
// (one request through the core's upstream client to a local HTTP server, so upstream events
// and child spans are included).
//
//   pnpm turbo run build --filter=@x/mcp-core && node bench/observability.mjs [--calls 20000] [--rounds 5]
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { fmt, log, machine, median } from './lib.mjs';

const { values: flags } = parseArgs({
  options: {
    calls: { type: 'string' },
    rounds: { type: 'string' },
    quick: { type: 'boolean', default: false },
  },
});
const calls = Number(flags.calls ?? (flags.quick ? 5_000 : 20_000));
const rounds = Number(flags.rounds ?? (flags.quick ? 3 : 5));

const core = await import('../packages/mcp-core/dist/index.js');
const node = await import('../packages/mcp-core/dist/node/index.js');
const { createUpstreamClient } = await import('../packages/mcp-core/dist/upstream/index.js');

// A local upstream and a fake OTLP collector.
const upstream = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"id":"1","name":"Item"}');
});
await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve));
let exports = 0;
const collector = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    exports++;
    res.end('{}');
  });
});
await new Promise((resolve) => collector.listen(0, '127.0.0.1', resolve));
process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${collector.address().port}`;

const quiet = core.createLogger('bench', { level: 'silent' });
const client = createUpstreamClient({
  name: 'Items API',
  baseUrl: `http://127.0.0.1:${upstream.address().port}`,
  urlSetting: 'ITEMS_API_URL',
});
const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const registry = new core.ToolRegistry({ logger: quiet })
  .register(
    core.defineTool({
      name: 'echo',
      description: 'Returns the text.',
      inputSchema: z.strictObject({ text: z.string().describe('The text') }),
      annotations: readOnly,
      handler: ({ text }) => text,
    }),
  )
  .register(
    core.defineTool({
      name: 'fetch_item',
      description: 'Reads one item.',
      inputSchema: z.strictObject({ id: z.string().describe('The id') }),
      annotations: readOnly,
      handler: async ({ id }, context) =>
        (await client.request('GET', `/items/${id}`, { signal: context.signal })).data,
    }),
  );

// What serveHttp subscribes for each setting (the same observers, not copies).
const metrics = new node.ServerMetrics();
const jsonLog = core.createLogger('bench', { format: 'json', write: () => {} });
let tracing;
const SETUPS = {
  'no observer (default, stdio)': [],
  metrics: [metrics.observer],
  'metrics + JSON request log': [metrics.observer, 'log'],
  'metrics + JSON request log + traces': [metrics.observer, 'log', 'trace'],
};

// serveHttp runs each request in an AsyncLocalStorage context when the request log is on.
let context;
// CPU time of this process, not wall time: on a shared machine the wall clock measures the neighbours.
async function measure(tool, args, count) {
  const t0 = process.cpuUsage();
  for (let index = 0; index < count; index++) {
    const result = context
      ? await context.run({ request_id: randomUUID() }, () => registry.call(tool, args))
      : await registry.call(tool, args);
    if (result.isError) throw new Error(`${tool} failed: ${result.content[0]?.text}`);
  }
  const used = process.cpuUsage(t0);
  return (used.user + used.system) / count;
}

const { toolCallLog } = node;
const results = {};
for (const name of Object.keys(SETUPS)) results[name] = { echo: [], fetch_item: [] };

async function runSetup(name, parts) {
  const stops = [];
  for (const part of parts) {
    if (part === 'log') {
      stops.push(core.observe(toolCallLog(jsonLog)));
      context = new AsyncLocalStorage();
    } else if (part === 'trace') {
      tracing ??= await node.startTracing({ serviceName: 'bench', serviceVersion: '0', logger: quiet });
      stops.push(core.observe(tracing.observer));
    } else stops.push(core.observe(part));
  }
  await measure('echo', { text: 'warm' }, 2_000);
  results[name].echo.push(await measure('echo', { text: 'hello' }, calls));
  await measure('fetch_item', { id: 'warm' }, 200);
  results[name].fetch_item.push(await measure('fetch_item', { id: '42' }, Math.max(500, calls / 20)));
  for (const stop of stops) stop();
  context?.disable();
  context = undefined;
}

// Tracing installs a global context manager that stays: its rounds come after all the others.
const entries = Object.entries(SETUPS);
for (let round = 0; round < rounds; round++) {
  for (const [name, parts] of entries.filter(([, parts]) => !parts.includes('trace')))
    await runSetup(name, parts);
  log(`round ${round + 1}/${rounds} done`);
}
for (let round = 0; round < rounds; round++) {
  for (const [name, parts] of entries.filter(([, parts]) => parts.includes('trace')))
    await runSetup(name, parts);
}
await tracing?.shutdown();

const off = results['no observer (default, stdio)'];
const rows = [
  '| setup | `echo`: CPU µs per call | + over none | `fetch_item`: CPU µs per call | + over none |',
  '| --- | ---: | ---: | ---: | ---: |',
  ...Object.entries(results).map(([name, value]) => {
    const echo = median(value.echo);
    const fetch = median(value.fetch_item);
    return `| ${name} | ${fmt(echo, 2)} | ${fmt(echo - median(off.echo), 2)} | ${fmt(fetch, 1)} | ${fmt(fetch - median(off.fetch_item), 1)} |`;
  }),
];
process.stdout.write(`${rows.join('\n')}\n`);
log(
  `${calls} echo and ${Math.max(500, calls / 20)} fetch_item calls per setup and round, ${rounds} rounds, medians; Node ${process.version}; ${JSON.stringify(machine().loadAverageAtStart)} load; ${exports} trace exports`,
);
upstream.close();
collector.close();
