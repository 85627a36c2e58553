#!/usr/bin/env node
// `pnpm demo`: builds what the demo needs, saying what and how long, then runs it.
// Build progress goes to stderr, so stdout carries only the demo itself.
//
//   node scripts/demo.mjs [demo args]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

const demo = join(ROOT, 'apps/demo/dist/demo.js');
const say = (text) => process.stderr.write(`${text}\n`);

say(
  existsSync(demo)
    ? 'Building the demo (@x/demo) and what it uses, if anything changed (turbo cache) ...'
    : 'First run: building the demo and what it uses: @x/mcp-core, the four providers (Basecamp, Forge, Context Forge, BBj RAG), the composed server and the demo (how long: README.md, "Quick start"); later runs reuse the build. A line per package as it starts, and the time every 10 s:',
);
const started = Date.now();
const seconds = () => ((Date.now() - started) / 1000).toFixed(0);
// hash-only: one line per package as turbo builds it (or takes it from the cache), no tool output.
const build = spawn(
  'pnpm',
  ['exec', 'turbo', 'run', 'build', '--filter=@x/demo', '--output-logs=hash-only'],
  {
    cwd: ROOT,
    stdio: ['ignore', process.stderr, process.stderr],
  },
);
// A package can build for a while without a line: say the build is still going.
const progress = setInterval(() => say(`  ... still building, ${seconds()} s so far`), 10_000);
const status = await new Promise((resolve) => build.on('close', (code, signal) => resolve(code ?? signal)));
clearInterval(progress);
if (status !== 0) {
  say(`The build failed (exit code ${status}). Run pnpm build to see the full output.`);
  process.exit(typeof status === 'number' ? status : 1);
}
say(`Built in ${seconds()} s. Starting the demo.\n`);
const run = spawnSync(process.execPath, [demo, ...process.argv.slice(2)], { cwd: ROOT, stdio: 'inherit' });
process.exit(run.status ?? 1);
