#!/usr/bin/env node
// Time to ready, the way MCP clients start a stdio server (issue #25): spawn → `initialize` →
// `notifications/initialized` and, at once, `tools/list`, `prompts/list`, `resources/list` and
// `resources/templates/list`, each only when the server advertises it (Claude Code and VS Code
// list all three when they connect, to offer slash commands and @-mentions) → the first
// `tools/call` once every listing is in. Measured for the four provider bins and the composed
// `x-mcp-server` against a plain one-tool SDK v2 server (the reference), the same server on SDK
// v1 and the floor (a bare Node NDJSON echo), interleaved round-robin, one discarded start each
// (it warms the OS file cache and, on Node ≥ 22.1, the compile cache), then medians.
//
// Two points per start: `listed` (every listing answered: the client can show the tools, prompts
// and resources) and `ready` (the first call's result), wall time and the server's CPU time.
// The calls need no upstream and no login: without credentials they answer a clear error at once.
//
//   node bench/bins.mjs                 9 rounds (about 30 s on a quiet machine)
//   node bench/bins.mjs --quick         5 rounds
//   node bench/bins.mjs --only forge-mcp,x-mcp-server
//   node bench/bins.mjs --compare ../other-checkout   the same bins of another built checkout too
//   node bench/bins.mjs --help
//
// Build first (`pnpm bench:bins` does): the bins run from their packages' dist/.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  COLD_LIMIT_MS,
  cpuTimeMs,
  fmt,
  guardRun,
  initializeParams,
  log,
  machine,
  median,
  pinning,
  quantile,
  ROOT,
  rotate,
  StdioDriver,
  stop,
  usePinning,
} from './lib.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));

const { values: flags } = parseArgs({
  options: {
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    runs: { type: 'string' },
    pin: { type: 'boolean', default: true },
    out: { type: 'string' },
    compare: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
  allowNegative: true,
});

if (flags.help) {
  console.log(`Usage: node bench/bins.mjs [options]

  --only <names>  comma-separated bins to measure (the references always run)
  --quick         5 rounds instead of 9
  --runs <n>      rounds (one start of every server each, interleaved; default 9)
  --no-pin        do not pin this driver to CPU 0 and the servers to CPU 1
  --compare <dir> also measure the bins of another built checkout (e.g. main), as "<bin> (before)"
  --out <file>    results file (default bench/results/bins.json)`);
  process.exit(0);
}

const runs = flags.runs === undefined ? (flags.quick ? 5 : 9) : Number(flags.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`--runs must be a positive integer, got "${flags.runs}"`);
  process.exit(2);
}

const ECHO = { name: 'echo', arguments: { text: 'ready' } };
/** What an MCP client launches (`dist/bin.js` is what `npx` runs), and a first call without upstream. */
const BINS = [
  {
    name: 'basecamp-mcp',
    file: 'packages/basecamp/dist/bin.js',
    call: { name: 'list_projects', arguments: {} },
  },
  { name: 'forge-mcp', file: 'packages/forge/dist/bin.js', call: { name: 'list_tickets', arguments: {} } },
  {
    name: 'context-forge-mcp',
    file: 'packages/context-forge/dist/bin.js',
    call: { name: 'project_list', arguments: {} },
  },
  // No BBj installation here: TOOL_NOT_ENABLED at once, from the real handler.
  {
    name: 'bbj-mcp',
    file: 'packages/bbj-rag/dist/bin.js',
    call: { name: 'validate_bbj_syntax', arguments: { code: 'print "ready"' } },
  },
  {
    name: 'x-mcp-server',
    file: 'apps/server/dist/bin.js',
    call: { name: 'context_forge_project_list', arguments: {} },
  },
];
const REFERENCES = [
  { name: 'floor', file: 'bench/fixtures/floor.mjs', call: ECHO },
  { name: 'plain-sdk', file: 'bench/fixtures/plain-sdk.mjs', call: ECHO },
  { name: 'plain-sdk-v1', file: 'bench/fixtures/plain-sdk-v1.mjs', call: ECHO },
];

const only = flags.only?.split(',').map((name) => name.trim());
const unknown = only?.filter((name) => !BINS.some((bin) => bin.name === name)) ?? [];
if (unknown.length > 0) {
  console.error(`Unknown bin(s): ${unknown.join(', ')}. Known: ${BINS.map((bin) => bin.name).join(', ')}`);
  process.exit(2);
}
const bins = only ? BINS.filter((bin) => only.includes(bin.name)) : BINS;
const compareRoot = flags.compare ? resolve(flags.compare) : undefined;
const targets = [
  ...REFERENCES.map((item) => ({ ...item, path: join(ROOT, item.file) })),
  ...bins.flatMap((bin) => [
    ...(compareRoot ? [{ ...bin, name: `${bin.name} (before)`, path: join(compareRoot, bin.file) }] : []),
    { ...bin, path: join(ROOT, bin.file) },
  ]),
];
for (const { path } of targets) {
  if (!existsSync(path)) {
    console.error(`Missing ${path}. Build first: pnpm bench:bins (or pnpm build).`);
    process.exit(1);
  }
}

usePinning(flags.pin);
guardRun(15 * 60_000);

// An empty home: no login file, no config. Node's compile cache (Node ≥ 22.1, turned on by the
// launcher) is warm from the discarded start on, as on a user's machine from the second start.
const home = await mkdtemp(join(tmpdir(), 'x-bench-bins-'));
const env = {
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_CACHE_HOME: join(home, '.cache'),
  CONTEXT_FORGE_DATA_DIR: join(home, 'context-forge'),
  FORGE_CONFIG_PATH: join(home, 'forge/config.json'),
};

/** The listings a client asks for after `initialize`, by the capabilities the server advertised. */
function listingsFor(capabilities = {}) {
  return [
    ...(capabilities.tools ? ['tools/list'] : []),
    ...(capabilities.prompts ? ['prompts/list'] : []),
    ...(capabilities.resources ? ['resources/list', 'resources/templates/list'] : []),
  ];
}

/** One start through the client sequence; wall and CPU time at `listed` and at `ready`. */
async function clientStart({ name, path, call }) {
  const t0 = performance.now();
  const driver = new StdioDriver([path], { env });
  try {
    return await driver.bounded(COLD_LIMIT_MS, `${name} start`, async () => {
      const init = await driver.request('initialize', initializeParams);
      driver.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const methods = listingsFor(init?.capabilities);
      const results = await Promise.all(methods.map((method) => driver.request(method)));
      const listedMs = performance.now() - t0;
      const listedCpuMs = cpuTimeMs(driver.child.pid);
      const tools = results[methods.indexOf('tools/list')]?.tools;
      if (!Array.isArray(tools) || !tools.some((tool) => tool.name === call.name)) {
        throw new Error(`${name}: tools/list does not list ${call.name}`);
      }
      const answer = await driver.request('tools/call', call);
      const readyMs = performance.now() - t0;
      const readyCpuMs = cpuTimeMs(driver.child.pid);
      if (!Array.isArray(answer?.content))
        throw new Error(`${name}: tools/call ${call.name} answered no result`);
      return { listedMs, listedCpuMs, readyMs, readyCpuMs, methods, tools: tools.length };
    });
  } finally {
    await stop(driver.child);
  }
}

const info = machine();
log(
  `Machine: ${info.nproc} CPUs (${info.cpu}), Node ${info.node}, load ${info.loadAverageAtStart.join(' ')}, ${pinning ? 'driver on CPU 0, servers on CPU 1' : 'unpinned'}.`,
);
log(`${targets.length} servers × ${runs} rounds, interleaved, after one discarded start each...`);
const samples = Object.fromEntries(targets.map((target) => [target.name, []]));
const shape = {};
try {
  for (const target of targets) {
    const first = await clientStart(target);
    shape[target.name] = { tools: first.tools, methods: first.methods };
  }
  for (let run = 0; run < runs; run++) {
    for (const target of rotate(targets, run)) samples[target.name].push(await clientStart(target));
  }
} finally {
  await rm(home, { recursive: true, force: true });
}

const stats = (values) => {
  const present = values.filter((value) => value !== undefined);
  return { medianMs: median(present), p10Ms: quantile(present, 0.1), p90Ms: quantile(present, 0.9) };
};
const summary = Object.fromEntries(
  Object.entries(samples).map(([name, values]) => [
    name,
    {
      ...shape[name],
      listed: stats(values.map((sample) => sample.listedMs)),
      listedCpu: stats(values.map((sample) => sample.listedCpuMs)),
      ready: stats(values.map((sample) => sample.readyMs)),
      readyCpu: stats(values.map((sample) => sample.readyCpuMs)),
    },
  ]),
);
const ratio = (name, key, reference = 'plain-sdk') =>
  summary[name][key].medianMs / summary[reference][key].medianMs;
const lists = (methods) =>
  methods.map((method) => method.replace('/list', '').replace('resources/templates', 'templates')).join(', ');

const lines = [
  '| server | tools | lists | listed (ms) | ready (ms) | p10–p90 | ready ÷ plain SDK v2 | CPU at ready (ms) | CPU ÷ plain SDK v2 | listed CPU ÷ plain |',
  '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
];
for (const { name } of targets) {
  const row = summary[name];
  lines.push(
    `| ${name} | ${row.tools} | ${lists(row.methods)} | ${fmt(row.listed.medianMs)} | ${fmt(row.ready.medianMs)} | ${fmt(row.ready.p10Ms, 0)}–${fmt(row.ready.p90Ms, 0)} | ${fmt(ratio(name, 'ready'), 2)}× | ${fmt(row.readyCpu.medianMs)} | ${fmt(ratio(name, 'readyCpu'), 2)}× | ${fmt(ratio(name, 'listedCpu'), 2)}× |`,
  );
}
// The target of issue #25: every bin ready (first call answered) no later than the plain SDK v2
// server, read on CPU time (the wall time swings with whatever else the machine runs).
const verdicts = targets.slice(REFERENCES.length).map(({ name }) => {
  const toPlain = ratio(name, 'readyCpu');
  return {
    name,
    toPlain,
    toPlainWall: ratio(name, 'ready'),
    toFloor: ratio(name, 'readyCpu', 'floor'),
    pass: toPlain <= 1,
  };
});
lines.push(
  '',
  '| bin | ready ÷ plain SDK v2 (CPU) | (wall) | ≤ 1.0× |',
  '| --- | ---: | ---: | --- |',
  ...verdicts.map(
    ({ name, toPlain, toPlainWall, pass }) =>
      `| ${name} | ${fmt(toPlain, 2)}× | ${fmt(toPlainWall, 2)}× | ${pass ? 'pass' : 'FAIL'} |`,
  ),
);
console.log(lines.join('\n'));

const out = flags.out ? resolve(flags.out) : join(HERE, 'results/bins.json');
await mkdir(dirname(out), { recursive: true });
await writeFile(
  out,
  `${JSON.stringify({ machine: info, runs, pinned: pinning, summary, verdicts, raw: samples, table: lines.join('\n') }, null, 2)}\n`,
);
log(`\n${runs} rounds. Results: ${relative(process.cwd(), out)}`);
process.exit(0);
