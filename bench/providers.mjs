#!/usr/bin/env node
// Provider benchmark: for each scenario in bench/providers/<id>.mjs, the provider bin's cold start
// against the floor fixture and the plain SDK server fixture, and the median latency of each tool call through a real MCP client
// over stdio against the plain equivalent (`baseline()`: a fetch, a file read...) in this process.
//
//   node bench/providers.mjs                    every scenario
//   node bench/providers.mjs --only forge,bbj-rag
//   node bench/providers.mjs --help
//
// Build first (`pnpm bench:providers` does): scenarios run the packages' built dist/.
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  coldStart,
  fmt,
  guardRun,
  log,
  machine,
  median,
  pinning,
  quantile,
  ROOT,
  rotate,
  serverCommand,
  usePinning,
} from './lib.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const FLOOR = join(HERE, 'fixtures/floor.mjs');
const PLAIN_SDK = join(HERE, 'fixtures/plain-sdk.mjs');

const { values: flags } = parseArgs({
  options: {
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    'cold-runs': { type: 'string' },
    calls: { type: 'string' },
    reps: { type: 'string' },
    pin: { type: 'boolean', default: true },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
  allowNegative: true,
});

if (flags.help) {
  console.log(`Usage: node bench/providers.mjs [options]

  --only <ids>       comma-separated scenario ids (default: every bench/providers/*.mjs)
  --quick            short run: 5 cold starts, 3 repetitions of 100 calls
  --cold-runs <n>    cold starts per bin and for the floor, interleaved (default 15)
  --calls <n>        timed sequential calls per repetition, after as many warm-up calls (default 200)
  --reps <n>         repetitions, each MCP batch followed by a baseline batch, order alternating (default 5)
  --no-pin           do not pin this driver to CPU 0 and the servers to CPU 1
  --out <file>       results file (default bench/results/providers.json)`);
  process.exit(0);
}

const count = (raw, fallback, name) => {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`--${name} must be a positive integer, got "${raw}"`);
    process.exit(2);
  }
  return value;
};
const config = {
  coldRuns: count(flags['cold-runs'], flags.quick ? 5 : 15, 'cold-runs'),
  calls: count(flags.calls, flags.quick ? 100 : 200, 'calls'),
  reps: count(flags.reps, flags.quick ? 3 : 5, 'reps'),
};

usePinning(flags.pin);
guardRun(20 * 60_000);

async function loadScenarios() {
  const dir = join(HERE, 'providers');
  const files = existsSync(dir) ? (await readdir(dir)).filter((file) => file.endsWith('.mjs')).sort() : [];
  const scenarios = [];
  for (const file of files) scenarios.push((await import(pathToFileURL(join(dir, file)).href)).default);
  const only = flags.only?.split(',').map((id) => id.trim());
  const chosen = only ? scenarios.filter((scenario) => only.includes(scenario.id)) : scenarios;
  const unknown = only?.filter((id) => !scenarios.some((scenario) => scenario.id === id)) ?? [];
  if (unknown.length > 0) {
    console.error(
      `Unknown scenario(s): ${unknown.join(', ')}. Known: ${scenarios.map((s) => s.id).join(', ')}`,
    );
    process.exit(2);
  }
  for (const scenario of chosen) {
    if (!existsSync(join(ROOT, scenario.bin))) {
      console.error(`Missing ${scenario.bin}. Build first: pnpm bench:providers (or pnpm build).`);
      process.exit(1);
    }
  }
  return chosen;
}

/** Per-call latencies (ms) of `count` sequential runs of `fn`. */
async function timeCalls(fn, count) {
  const samples = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return samples;
}

async function connect(scenario, setup) {
  const [command, args] = serverCommand([join(ROOT, scenario.bin), ...(setup.args ?? [])]);
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', ...setup.env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'x-bench-providers', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

async function measureCalls(scenario, setup) {
  const client = await connect(scenario, setup);
  try {
    const rows = [];
    for (const call of setup.calls) {
      const viaMcp = async () => {
        const result = await client.callTool(call.tool);
        if (result.isError) throw new Error(`${call.label}: ${result.content?.[0]?.text}`);
      };
      await timeCalls(viaMcp, config.calls); // warm-up: JIT, connections, caches on both sides
      await timeCalls(call.baseline, config.calls);
      const mcp = [];
      const baseline = [];
      for (let rep = 0; rep < config.reps; rep++) {
        const order = rep % 2 === 0 ? [viaMcp, call.baseline] : [call.baseline, viaMcp];
        for (const fn of order) {
          const samples = await timeCalls(fn, config.calls);
          (fn === viaMcp ? mcp : baseline).push(median(samples));
        }
      }
      rows.push({
        label: call.label,
        mcpMedianMs: median(mcp),
        baselineMedianMs: median(baseline),
        ratio: median(mcp) / median(baseline),
        repMedians: { mcp, baseline },
      });
    }
    return rows;
  } finally {
    await client.close();
  }
}

async function measureColdStarts(scenario, setup) {
  const targets = [
    { name: scenario.id, args: [join(ROOT, scenario.bin), ...(setup.args ?? [])], env: setup.env },
    { name: 'plain-sdk', args: [PLAIN_SDK] },
    { name: 'floor', args: [FLOOR] },
  ];
  const samples = Object.fromEntries(targets.map((target) => [target.name, []]));
  for (const target of targets) await coldStart(target); // page cache
  for (let run = 0; run < config.coldRuns; run++) {
    for (const target of rotate(targets, run)) samples[target.name].push(await coldStart(target));
  }
  const ours = samples[scenario.id];
  return {
    binMs: median(ours),
    binP10Ms: quantile(ours, 0.1),
    binP90Ms: quantile(ours, 0.9),
    floorMs: median(samples.floor),
    plainSdkMs: median(samples['plain-sdk']),
    ratio: median(ours) / median(samples.floor),
    ratioToPlainSdk: median(ours) / median(samples['plain-sdk']),
  };
}

async function main() {
  const info = machine();
  const scenarios = await loadScenarios();
  if (scenarios.length === 0) {
    console.error('No scenarios in bench/providers/.');
    process.exit(1);
  }
  log(
    `Machine: ${info.nproc} CPUs (${info.cpu}), Node ${info.node}, ${pinning ? 'driver on CPU 0, servers on CPU 1' : 'unpinned'}.`,
  );
  const results = [];
  for (const scenario of scenarios) {
    log(`${scenario.id}: setting up...`);
    const setup = await scenario.setup();
    try {
      log(`${scenario.id}: ${config.coldRuns} cold starts each, interleaved with the floor...`);
      const cold = await measureColdStarts(scenario, setup);
      log(`${scenario.id}: ${config.reps} × ${config.calls} calls per tool, MCP and baseline alternating...`);
      const calls = await measureCalls(scenario, setup);
      results.push({ id: scenario.id, cold, calls });
    } finally {
      await setup.close?.();
    }
  }

  const lines = [
    '| provider | measure | ours (ms) | reference (ms) | ratio |',
    '| --- | --- | ---: | ---: | ---: |',
  ];
  for (const { id, cold, calls } of results) {
    lines.push(
      `| ${id} | cold start, spawn → tools/list: bin vs floor | ${fmt(cold.binMs)} | ${fmt(cold.floorMs)} | ${fmt(cold.ratio, 2)}× |`,
      `| ${id} | cold start: bin vs a plain SDK v2 server (one tool) | ${fmt(cold.binMs)} | ${fmt(cold.plainSdkMs)} | ${fmt(cold.ratioToPlainSdk, 2)}× |`,
    );
    for (const row of calls) {
      lines.push(
        `| ${id} | \`${row.label}\` per call: MCP client over stdio vs plain baseline | ${fmt(row.mcpMedianMs, 3)} | ${fmt(row.baselineMedianMs, 3)} | ${fmt(row.ratio, 2)}× |`,
      );
    }
  }
  console.log(lines.join('\n'));
  const out = flags.out ? resolve(flags.out) : join(HERE, 'results/providers.json');
  await mkdir(dirname(out), { recursive: true });
  await writeFile(
    out,
    `${JSON.stringify({ machine: info, config: { ...config, pinned: pinning }, results }, null, 2)}\n`,
  );
  log(
    `\n${config.reps} reps × ${config.calls} calls, ${config.coldRuns} cold starts. Results: ${relative(process.cwd(), out)}`,
  );
}

await main();
process.exit(0);
