#!/usr/bin/env node
// What the agent pays for our tools, before it does any work: for every shipped bin, every
// Basecamp toolset and the composed server, the built bin is started over stdio (as a client
// starts it) and asked `initialize` and `tools/list`. Per surface:
//
//   - tools: how many `tools/list` returns;
//   - model-visible bytes: the sum over the tools of the UTF-8 bytes of
//     JSON.stringify({ name, description, input_schema }) — what the Messages API and function
//     calling put in front of the model for a tool (title, annotations and the output schema are
//     not sent to the model);
//   - tokens: model-visible bytes / 3.6, an estimate. Minified JSON Schema with English
//     descriptions runs at about 3.6 bytes per token in the tokenizers of the models our users run
//     (prose is nearer 4.5, punctuation-dense schema nearer 3); use it to compare surfaces, not as
//     a bill;
//   - tools/list bytes: the whole JSON-RPC result as the server sends it (output schemas included);
//   - instructions bytes: the server instructions of the `initialize` result (clients put them in
//     the system prompt).
//
//   node bench/context.mjs               the table (Markdown) on stdout
//   node bench/context.mjs --json        the figures as JSON
//   node bench/context.mjs --only forge-mcp,bbj-mcp
//   node bench/context.mjs --compare ../other-checkout   the same surfaces of another built checkout too
//
// Build first (`pnpm bench:context` does): the bins run from their packages' dist/. The budgets
// of these surfaces (bench/context-budgets.json) are held by apps/server/test/context-budget.test.ts.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { BYTES_PER_TOKEN, contextCost } from '@x/mcp-core/testing';
import { fmt, initializeParams, ROOT, StdioDriver, stop } from './lib.mjs';

const BASECAMP_TOOLSETS = [
  'projects',
  'todos',
  'messages',
  'docs',
  'schedule',
  'cards',
  'checkins',
  'chat',
  'clients',
  'activity',
  'admin',
];

/** Every surface measured: a name, the built bin, its arguments and extra environment. */
export const SURFACES = [
  { name: 'basecamp-mcp', file: 'packages/basecamp/dist/bin.js' },
  { name: 'basecamp-mcp --toolsets all', file: 'packages/basecamp/dist/bin.js', args: ['--toolsets', 'all'] },
  {
    name: 'basecamp-mcp --dynamic-toolsets',
    file: 'packages/basecamp/dist/bin.js',
    args: ['--dynamic-toolsets'],
  },
  ...BASECAMP_TOOLSETS.map((toolset) => ({
    name: `basecamp-mcp --toolsets ${toolset}`,
    file: 'packages/basecamp/dist/bin.js',
    args: ['--toolsets', toolset],
  })),
  { name: 'forge-mcp', file: 'packages/forge/dist/bin.js' },
  { name: 'context-forge-mcp', file: 'packages/context-forge/dist/bin.js' },
  { name: 'bbj-mcp', file: 'packages/bbj-rag/dist/bin.js' },
  { name: 'x-mcp-server', file: 'apps/server/dist/bin.js' },
  {
    name: 'x-mcp-server BASECAMP_TOOLSETS=all',
    file: 'apps/server/dist/bin.js',
    env: { BASECAMP_TOOLSETS: 'all' },
  },
];

/** The environment of every start: an empty home (no login, no config), no start cache, quiet. */
function isolatedEnvironment(home) {
  const env = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    CONTEXT_FORGE_DATA_DIR: join(home, 'context-forge'),
    FORGE_CONFIG_PATH: join(home, 'forge/config.json'),
    MCP_START_CACHE: 'off',
    MCP_LOG_LEVEL: 'error',
  };
  // A choice in the caller's environment would change what is served.
  for (const name of ['BASECAMP_TOOLSETS', 'BASECAMP_DYNAMIC_TOOLSETS', 'MCP_SERVER_CONFIG']) {
    env[name] = '';
  }
  return env;
}

async function measureOne(root, surface, env) {
  const driver = new StdioDriver([join(root, surface.file), ...(surface.args ?? [])], {
    env: { ...env, ...surface.env },
  });
  try {
    return await driver.bounded(20_000, `${surface.name}: initialize and tools/list`, async () => {
      const initialized = await driver.request('initialize', initializeParams);
      driver.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const listed = await driver.request('tools/list');
      return { name: surface.name, ...contextCost(listed, initialized.instructions) };
    });
  } finally {
    await stop(driver.child);
  }
}

/**
 * Measures the surfaces (all by default) of the built checkout at `root`, two at a time. Resolves
 * with one row per surface, in the order of `SURFACES`.
 */
export async function measureContext({ root = ROOT, only } = {}) {
  const surfaces = only ? SURFACES.filter((surface) => only.includes(surface.name)) : SURFACES;
  for (const file of new Set(surfaces.map((surface) => surface.file))) {
    if (!existsSync(join(root, file)))
      throw new Error(`Missing ${join(root, file)}. Build first (pnpm build).`);
  }
  const home = await mkdtemp(join(tmpdir(), 'x-bench-context-'));
  try {
    const env = isolatedEnvironment(home);
    const rows = new Array(surfaces.length);
    let next = 0;
    const worker = async () => {
      for (let index = next++; index < surfaces.length; index = next++) {
        rows[index] = await measureOne(root, surfaces[index], env);
      }
    };
    await Promise.all([worker(), worker()]);
    return rows;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

const kB = (bytes) => fmt(bytes / 1000, 1);

/** The Markdown table of `rows` (and of `before`, the same surfaces of another checkout, when given). */
export function formatContextTable(rows, before) {
  const earlier = new Map((before ?? []).map((row) => [row.name, row]));
  const lines = [
    `| surface | tools | model-visible kB | ≈ tokens | tokens per tool | tools/list kB | instructions bytes |${before ? ' tokens before | tools/list kB before |' : ''}`,
    `| --- | ---: | ---: | ---: | ---: | ---: | ---: |${before ? ' ---: | ---: |' : ''}`,
  ];
  for (const row of rows) {
    const old = earlier.get(row.name);
    const then = before
      ? ` ${old ? fmt(old.tokens, 0) : 'n/a'} | ${old ? kB(old.toolsListBytes) : 'n/a'} |`
      : '';
    lines.push(
      `| ${row.name} | ${row.tools} | ${kB(row.modelVisibleBytes)} | ${fmt(row.tokens, 0)} | ${row.tokensPerTool} | ${kB(row.toolsListBytes)} | ${fmt(row.instructionsBytes, 0)} |${then}`,
    );
  }
  return lines.join('\n');
}

/**
 * Further reports printed after the table (not with --json), each an async function that returns
 * Markdown. The hook for the search surface's recall figures: an entry that imports
 * bench/search-recall.mjs and returns its recall@1 / recall@3 table.
 */
const REPORTS = [
  async () => {
    const { searchRecall } = await import('./search-recall.mjs');
    const result = await searchRecall();
    const percent = (value) => `${(value * 100).toFixed(1)} %`;
    return [
      '| search surface (x-mcp-server --surface search, every toolset) | tools reached | tokens | recall@1 | recall@3 |',
      '| --- | ---: | ---: | ---: | ---: |',
      `| ${result.surface.join(', ')} | ${result.reached} | ${fmt(result.tokens, 0)} | ${percent(result.recallAt1)} | ${percent(result.recallAt3)} (${result.cases} phrasings) |`,
    ].join('\n');
  },
];

async function main() {
  const { values: flags } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      only: { type: 'string' },
      compare: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (flags.help) {
    console.log(`Usage: node bench/context.mjs [--json] [--only <surfaces>] [--compare <dir>]

  --json           print the figures as JSON instead of a table
  --only <a,b>     measure only these surfaces (names as in the table)
  --compare <dir>  also measure another built checkout (e.g. main) and show its figures beside`);
    return;
  }
  const only = flags.only?.split(',').map((name) => name.trim());
  const unknown = only?.filter((name) => !SURFACES.some((surface) => surface.name === name)) ?? [];
  if (unknown.length > 0) {
    console.error(
      `Unknown surface(s): ${unknown.join(', ')}. Known: ${SURFACES.map((s) => s.name).join(', ')}`,
    );
    process.exitCode = 2;
    return;
  }
  const rows = await measureContext({ only });
  const before = flags.compare ? await measureContext({ root: resolve(flags.compare), only }) : undefined;
  if (flags.json) {
    console.log(JSON.stringify({ bytesPerToken: BYTES_PER_TOKEN, surfaces: rows, before }, null, 2));
  } else {
    console.log(formatContextTable(rows, before));
    console.log(
      `\nTokens ≈ model-visible bytes / ${BYTES_PER_TOKEN} (name, description and input schema of each tool as JSON).`,
    );
    for (const report of REPORTS) console.log(`\n${await report()}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
