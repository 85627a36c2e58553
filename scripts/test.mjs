#!/usr/bin/env node
// `pnpm test:parallel`: what `pnpm test` runs, in less time on an otherwise idle machine: build,
// typecheck and lint (turbo, cached), then the root `vitest run` (Node 20, four workers instead
// of vitest's one per CPU minus one) and @x/mcp-hosted's tests (Node 22, `pnpm test:hosted`) at
// once, then the package checks
// (`pnpm test:packages`: CPU-heavy tsc and attw, so they get the machine to themselves). The
// test files mostly wait on child processes, servers and timers, so the two test suites overlap
// well on a 2-core machine (docs/benchmarks.md). Each suite's output is printed whole when it
// ends, so two suites never interleave.
//
//   node scripts/test.mjs
import { spawn, spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { ROOT } from './lib.mjs';

const say = (text) => process.stderr.write(`${text}\n`);
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(0)} s`;
const started = performance.now();

const checks = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', 'typecheck', 'typecheck:root', 'lint'], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (checks.status !== 0) process.exit(checks.status || 1);
say(
  `\nBuild, typecheck and lint done in ${seconds(started)}. Running vitest and the Node 22 tests in parallel, then the package checks...`,
);

const STAGES = [
  [
    { name: 'vitest (Node 20)', command: 'pnpm', args: ['exec', 'vitest', 'run', '--maxWorkers=4'] },
    { name: 'hosted (Node 22)', command: process.execPath, args: ['packages/hosted/scripts/test.mjs'] },
  ],
  [{ name: 'package checks', command: 'pnpm', args: ['run', '--silent', 'test:packages'] }],
];

const running = new Map();
// A line every 30 s, so a long suite does not look hung while its output is held back.
const heartbeat = setInterval(() => {
  const names = [...running].map(([name, since]) => `${name} (${seconds(since)})`);
  if (names.length > 0) say(`… still running: ${names.join(', ')}`);
}, 30_000);
const runStage = (suites) =>
  Promise.all(
    suites.map(
      (suite) =>
        new Promise((resolve) => {
          const since = performance.now();
          const child = spawn(suite.command, suite.args, {
            cwd: ROOT,
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          running.set(suite.name, since);
          const output = [];
          child.stdout.on('data', (chunk) => output.push(chunk));
          child.stderr.on('data', (chunk) => output.push(chunk));
          child.once('close', (code, signal) => {
            running.delete(suite.name);
            process.stdout.write(Buffer.concat(output));
            const ok = code === 0;
            say(
              `\n${ok ? '✓' : '✗'} ${suite.name}: ${ok ? 'passed' : `failed (${signal ?? `exit ${code}`})`} in ${seconds(since)}\n`,
            );
            resolve({ ...suite, ok, time: seconds(since) });
          });
        }),
    ),
  );
const results = [];
for (const stage of STAGES) {
  results.push(...(await runStage(stage)));
  if (results.some((result) => !result.ok)) break;
}
clearInterval(heartbeat);

const failed = results.filter((result) => !result.ok);
say(
  `${results.map((result) => `${result.ok ? '✓' : '✗'} ${result.name} ${result.time}`).join(', ')}; all in ${seconds(started)}.`,
);
process.exit(failed.length > 0 ? 1 : 0);
