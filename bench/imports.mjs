#!/usr/bin/env node
// Import profile of each provider and of the composed server: in a fresh Node process per run,
// the time of each step up to the first `tools/list` payload, loading the library entry points
// unbundled from node_modules (what a library user pays; the bins bundle the same code).
//
//   node bench/imports.mjs            7 fresh processes per provider, medians
//   node bench/imports.mjs --runs 3
//
// Steps: Node's own start-up until this script runs, `import('zod')`, the MCP SDK server
// entry points, `@x/mcp-core`, the provider's `index.js`, its factory, registering its tools
// (`ToolRegistry.use`: descriptors, zod → JSON Schema) and `toMcpTools()`.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, log, median, ROOT } from './lib.mjs';

const { values: flags } = parseArgs({
  options: { runs: { type: 'string', default: '7' }, step: { type: 'string' }, help: { type: 'boolean' } },
});
if (flags.help) {
  console.log('Usage: node bench/imports.mjs [--runs <n>]');
  process.exit(0);
}

const PROVIDERS = [
  { name: 'basecamp', entry: 'packages/basecamp/dist/index.js', factory: 'createBasecampProvider' },
  { name: 'forge', entry: 'packages/forge/dist/index.js', factory: 'createForgeProvider' },
  {
    name: 'context-forge',
    entry: 'packages/context-forge/dist/index.js',
    factory: 'createContextForgeProvider',
  },
  { name: 'bbj-rag', entry: 'packages/bbj-rag/dist/index.js', factory: 'createBbjRagProvider' },
  { name: 'server (compose, all four)', entry: 'apps/server/dist/index.js', factory: 'compose' },
];

if (flags.step) {
  // The child: one profile, printed as JSON.
  const provider = PROVIDERS[Number(flags.step)];
  const { performance } = await import('node:perf_hooks');
  const times = { 'node start-up': performance.now() };
  let last = performance.now();
  const mark = (label) => {
    const now = performance.now();
    times[label] = now - last;
    last = now;
  };
  await import('zod');
  mark('zod');
  await import('@modelcontextprotocol/server');
  await import('@modelcontextprotocol/server/stdio');
  mark('MCP SDK server');
  const core = await import('@x/mcp-core');
  mark('@x/mcp-core');
  const module = await import(join(ROOT, provider.entry));
  mark('provider index.js');
  const created = await module[provider.factory]({});
  mark('factory');
  const registry = new core.ToolRegistry();
  if (Array.isArray(created)) for (const { provider: one, use } of created) registry.use(one, use);
  else registry.use(created);
  mark('register tools');
  const tools = registry.toMcpTools();
  mark('toMcpTools');
  times.tools = tools.length;
  times.total = performance.now();
  process.stdout.write(JSON.stringify(times));
  process.exit(0);
}

const runs = Number(flags.runs);
const home = join(ROOT, 'bench/results/.imports-home');
const rows = [];
for (const [index, provider] of PROVIDERS.entries()) {
  log(`${provider.name}: ${runs} fresh processes...`);
  const samples = [];
  for (let run = 0; run < runs + 1; run++) {
    const output = execFileSync(
      process.execPath,
      [join(ROOT, 'bench/imports.mjs'), '--step', String(index)],
      {
        encoding: 'utf8',
        env: { ...process.env, NODE_OPTIONS: '', HOME: home, MCP_LOG_LEVEL: 'silent' },
      },
    );
    if (run > 0) samples.push(JSON.parse(output)); // the first run warms the page cache
  }
  const labels = Object.keys(samples[0]).filter((label) => label !== 'tools');
  rows.push({
    name: provider.name,
    tools: samples[0].tools,
    steps: Object.fromEntries(labels.map((label) => [label, median(samples.map((sample) => sample[label]))])),
  });
}
const labels = Object.keys(rows[0].steps);
console.log(
  [
    `| step (median ms, ${runs} runs) | ${rows.map((row) => `${row.name} (${row.tools} tools)`).join(' | ')} |`,
    `| --- | ${rows.map(() => '---:').join(' | ')} |`,
    ...labels.map((label) => `| ${label} | ${rows.map((row) => fmt(row.steps[label])).join(' | ')} |`),
  ].join('\n'),
);
