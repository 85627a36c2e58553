#!/usr/bin/env node
// Cold start of every shipped bin, in one interleaved run: spawn → first `tools/list` answer over
// stdio for the four provider bins and the composed `x-mcp-server`, side by side with the floor
// (bare Node NDJSON echo), a plain one-tool SDK v2 server and the same server on SDK v1. Each bin
// twice: with its start-cache entry (a user's every start after the first; the discarded start
// writes it) and without one (`(no entry)`: a fresh cache directory per start, the very first
// start). For forge-mcp and x-mcp-server also spawn → the result of a `tools/call` sent as soon
// as the listing arrives (`call`), with and without an entry: the first call must not wait longer.
//
//   node bench/bins.mjs                 15 cold starts each (about 40 s)
//   node bench/bins.mjs --quick         7 each
//   node bench/bins.mjs --only forge-mcp,x-mcp-server
//   node bench/bins.mjs --compare ../other-checkout   the same bins of another built checkout too
//   node bench/bins.mjs --help
//
// Build first (`pnpm bench` does): the bins run from their packages' dist/.
import { existsSync, mkdtempSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  coldStartDetailed,
  fmt,
  guardRun,
  log,
  machine,
  median,
  pinning,
  quantile,
  ROOT,
  rotate,
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
  --quick         7 cold starts each instead of 15
  --runs <n>      cold starts per server, interleaved (default 15)
  --no-pin        do not pin this driver to CPU 0 and the servers to CPU 1
  --compare <dir> also measure the bins of another built checkout (e.g. main), as "<bin> (before)"
  --out <file>    results file (default bench/results/bins.json)`);
  process.exit(0);
}

const runs = flags.runs === undefined ? (flags.quick ? 7 : 15) : Number(flags.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`--runs must be a positive integer, got "${flags.runs}"`);
  process.exit(2);
}

/** What an MCP client launches; `dist/bin.js` is the file `npx` runs from the published package. */
const BINS = [
  { name: 'basecamp-mcp', file: 'packages/basecamp/dist/bin.js' },
  // A call that needs no upstream: without a login it answers a clear error at once.
  { name: 'forge-mcp', file: 'packages/forge/dist/bin.js', call: { name: 'list_tickets', arguments: {} } },
  { name: 'context-forge-mcp', file: 'packages/context-forge/dist/bin.js' },
  { name: 'bbj-mcp', file: 'packages/bbj-rag/dist/bin.js' },
  {
    name: 'x-mcp-server',
    file: 'apps/server/dist/bin.js',
    call: { name: 'context_forge_project_list', arguments: {} },
  },
];
const REFERENCES = [
  { name: 'floor', file: 'bench/fixtures/floor.mjs' },
  { name: 'plain-sdk', file: 'bench/fixtures/plain-sdk.mjs' },
  { name: 'plain-sdk-v1', file: 'bench/fixtures/plain-sdk-v1.mjs' },
];

const only = flags.only?.split(',').map((name) => name.trim());
const unknown = only?.filter((name) => !BINS.some((bin) => bin.name === name)) ?? [];
if (unknown.length > 0) {
  console.error(`Unknown bin(s): ${unknown.join(', ')}. Known: ${BINS.map((bin) => bin.name).join(', ')}`);
  process.exit(2);
}
const bins = only ? BINS.filter((bin) => only.includes(bin.name)) : BINS;
const compareRoot = flags.compare ? resolve(flags.compare) : undefined;
const measured = [
  ...REFERENCES.map((item) => ({ ...item, path: join(ROOT, item.file) })),
  ...bins.flatMap((bin) => [
    ...(compareRoot ? [{ name: `${bin.name} (before)`, path: join(compareRoot, bin.file) }] : []),
    { ...bin, path: join(ROOT, bin.file) },
  ]),
];
for (const { path } of measured) {
  if (!existsSync(path)) {
    console.error(`Missing ${path}. Build first: pnpm bench (or pnpm build).`);
    process.exit(1);
  }
}

usePinning(flags.pin);
guardRun(15 * 60_000);

// An empty home: no login file, no config, no compile cache from an earlier run of the user.
const home = await mkdtemp(join(tmpdir(), 'x-bench-bins-'));
const env = {
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_CACHE_HOME: join(home, '.cache'),
  CONTEXT_FORGE_DATA_DIR: join(home, 'context-forge'),
  FORGE_CONFIG_PATH: join(home, 'forge/config.json'),
};
// A fresh start-cache directory per start: no entry, as at the very first start.
const noEntry = () => ({ ...env, MCP_START_CACHE_DIR: mkdtempSync(join(home, 'no-entry-')) });
const targets = measured.flatMap(({ name, path, call }, index) => {
  if (index < REFERENCES.length) return [{ name, args: [path], env }];
  return [
    { name, args: [path], env },
    { name: `${name} (no entry)`, args: [path], env: noEntry },
    ...(call
      ? [
          { name: `${name} call`, args: [path], env, call },
          { name: `${name} call (no entry)`, args: [path], env: noEntry, call },
        ]
      : []),
  ];
});

const checkTools = (name) => (result) => {
  if (!Array.isArray(result?.tools) || result.tools.length === 0) {
    throw new Error(`${name}: tools/list answered no tools`);
  }
};

const info = machine();
log(
  `Machine: ${info.nproc} CPUs (${info.cpu}), Node ${info.node}, load ${info.loadAverageAtStart.join(' ')}, ${pinning ? 'driver on CPU 0, servers on CPU 1' : 'unpinned'}.`,
);
log(`${targets.length} servers × ${runs} cold starts, interleaved, after one discarded start each...`);
const samples = Object.fromEntries(targets.map((target) => [target.name, []]));
const toolCounts = {};
try {
  for (const target of targets) {
    await coldStartDetailed(target, (result) => {
      checkTools(target.name)(result);
      toolCounts[target.name] = result.tools.length;
    });
  }
  for (let run = 0; run < runs; run++) {
    for (const target of rotate(targets, run)) {
      samples[target.name].push(await coldStartDetailed(target, checkTools(target.name)));
    }
  }
} finally {
  await rm(home, { recursive: true, force: true });
}

const stats = (values) => ({
  medianMs: median(values),
  p10Ms: quantile(values, 0.1),
  p90Ms: quantile(values, 0.9),
});
const summary = Object.fromEntries(
  Object.entries(samples).map(([name, values]) => [
    name,
    {
      ...stats(values.map((sample) => sample.ms)),
      cpu: stats(values.map((sample) => sample.cpuMs).filter((ms) => ms !== undefined)),
    },
  ]),
);
const ratio = (name, reference, key) =>
  key === 'cpu'
    ? summary[name].cpu.medianMs / summary[reference].cpu.medianMs
    : summary[name].medianMs / summary[reference].medianMs;

const lines = [
  '| server | tools | median (ms) | p10 | p90 | ÷ floor | ÷ plain SDK v2 | ÷ plain SDK v1 | CPU (ms) | CPU ÷ floor | CPU ÷ plain SDK v2 |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
];
for (const { name } of targets) {
  const row = summary[name];
  lines.push(
    `| ${name} | ${toolCounts[name]} | ${fmt(row.medianMs)} | ${fmt(row.p10Ms)} | ${fmt(row.p90Ms)} | ${fmt(ratio(name, 'floor'), 2)}× | ${fmt(ratio(name, 'plain-sdk'), 2)}× | ${fmt(ratio(name, 'plain-sdk-v1'), 2)}× | ${fmt(row.cpu.medianMs)} | ${fmt(ratio(name, 'floor', 'cpu'), 2)}× | ${fmt(ratio(name, 'plain-sdk', 'cpu'), 2)}× |`,
  );
}
const verdicts = measured
  .slice(REFERENCES.length)
  .flatMap(({ name }) => [name, `${name} (no entry)`])
  .map((name) => {
    const toFloor = ratio(name, 'floor');
    const toPlain = ratio(name, 'plain-sdk');
    return { name, toFloor, toPlain, pass: toFloor <= 2 && toPlain < 1 };
  });
lines.push(
  '',
  '| bin | ≤ 2.0× floor | faster than plain SDK v2 | result |',
  '| --- | ---: | ---: | --- |',
  ...verdicts.map(
    ({ name, toFloor, toPlain, pass }) =>
      `| ${name} | ${fmt(toFloor, 2)}× | ${fmt(toPlain, 2)}× | ${pass ? 'pass' : 'FAIL'} |`,
  ),
);
console.log(lines.join('\n'));

const out = flags.out ? resolve(flags.out) : join(HERE, 'results/bins.json');
await mkdir(dirname(out), { recursive: true });
await writeFile(
  out,
  `${JSON.stringify({ machine: info, runs, pinned: pinning, summary, verdicts, raw: samples, table: lines.join('\n') }, null, 2)}\n`,
);
log(`\n${runs} cold starts each. Results: ${relative(process.cwd(), out)}`);
process.exit(0);
