#!/usr/bin/env node
// `pnpm bench:all`: every measurement of issue #19 in one command, then one table of its bars.
// Runs, one after another (each prints its own tables and writes bench/results/*.json):
//   bench/run.mjs                warm stdio calls and HTTP against the plain SDK server
//   bench/bins.mjs               time to ready of every shipped bin, as clients start a server
//   bench/basecamp/session.mjs   upstream requests of an agent session, cold and warm
//   bench/observability.mjs      what metrics, JSON logs and traces cost per call
//   bench/hosted.mjs             --auth oauth against the token mode, memory per user, sign-in
// and reads the results files back for the verdicts. Needs a build (`pnpm bench:all` builds
// first) and redis-server for the hosted part. About 10 minutes (`--quick`: about 5).
//
//   node bench/all.mjs [--quick]
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const unknown = process.argv.slice(2).filter((arg) => arg !== '--quick');
if (unknown.length > 0) {
  process.stderr.write(`Unknown argument ${unknown[0]}. Usage: node bench/all.mjs [--quick]\n`);
  process.exit(2);
}

const STEPS = [
  ['bench/run.mjs', quick ? ['--quick'] : []],
  ['bench/bins.mjs', quick ? ['--quick'] : []],
  ['bench/basecamp/session.mjs', []],
  ['bench/observability.mjs', []],
  ['bench/hosted.mjs', quick ? ['--quick'] : []],
];

const started = Date.now();
for (const [script, args] of STEPS) {
  process.stdout.write(`\n## node ${script} ${args.join(' ')}\n\n`);
  const run = spawnSync(process.execPath, [join(HERE, '..', script), ...args], { stdio: 'inherit' });
  if (run.status !== 0) {
    process.stderr.write(`${script} failed (${run.signal ?? `exit ${run.status}`}); no verdicts.\n`);
    process.exit(1);
  }
}

const results = (name) => JSON.parse(readFileSync(join(HERE, 'results', name), 'utf8'));
const ratio = (value) => `${value.toFixed(2)}×`;
const rows = [];
const verdict = (target, measured, pass) => rows.push({ target, measured, pass });

// 1. Time to ready: every shipped bin through a client's opening sequence to its first call.
const bins = results('bins.json');
for (const row of bins.verdicts.filter((item) => !/\(before\)/.test(item.name))) {
  verdict(
    `1. ${row.name}: ready (lists and first call) ≤ 1.0× the plain SDK v2 server (CPU)`,
    `${ratio(row.toPlain)} the plain SDK, ${ratio(row.toFloor)} the floor`,
    row.pass,
  );
}

// 2. Warm calls against the plain SDK server with the same tool.
const warm = results('latest.json');
for (const target of warm.targets.filter((item) => /warm|steady/.test(item.name))) {
  verdict(`2. ${target.name}`, ratio(target.ratio), target.pass);
}

// 3. Hosted: OAuth throughput against the token mode; memory bounded; sign-in measured.
const hosted = results('hosted.json');
const token = hosted.throughput['token, metrics on (default)'];
const oauth = hosted.throughput['oauth + Redis, 1 replica'];
if (token && oauth) {
  verdict(
    '3. --auth oauth (Redis, 1 replica) throughput ≥ 0.8× the token mode',
    ratio(oauth / token),
    oauth / token >= 0.8,
  );
}
const largest = hosted.memory.at(-1);
if (largest) {
  const heapMiB = (largest.heapUsed / 2 ** 20).toFixed(0);
  verdict(
    `3. memory at ${largest.users} signed-in users: registries held bounded by the idle-evicting LRU`,
    `${largest.held} held, heap ${heapMiB} MiB`,
    largest.users <= 500 || largest.held <= 500,
  );
}
if (hosted.signIn?.medianMs !== undefined) {
  verdict(
    '3. sign-in latency against the fake Launchpad (measured, no bar)',
    `${hosted.signIn.medianMs.toFixed(1)} ms median`,
    true,
  );
}

const table = [
  '| target | measured | result |',
  '| --- | --- | --- |',
  ...rows.map((row) => `| ${row.target} | ${row.measured} | ${row.pass ? 'pass' : 'FAIL'} |`),
].join('\n');
process.stdout.write(
  `\n## Issue #19's bars\n\n${table}\n\nThe Basecamp session's requests and the observability costs are in their tables above; ` +
    `the dev loop is \`time pnpm test\` (docs/benchmarks.md). All in ${Math.round((Date.now() - started) / 1000)} s.\n`,
);
process.exit(rows.every((row) => row.pass) ? 0 : 1);
