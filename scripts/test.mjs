#!/usr/bin/env node
// `pnpm test`: build, typecheck and lint (turbo, cached: a second run with nothing changed
// replays them in about a second), then the two test suites at the same time:
//   - the root `vitest run` on this Node (every project but @x/mcp-hosted), its output live;
//   - @x/mcp-hosted's tests on Node 22 (packages/hosted/scripts/test.mjs), its output held and
//     printed whole once the first suite is done, so the two never interleave.
// Most test files wait on spawned bins, local fakes, Redis and sockets, so the suites overlap well
// on a 2-core machine (docs/benchmarks.md, "Dev loop"). Both suites build nothing: they use the
// dist/ that the turbo stage built. The exit code is 0 only when every stage passed. The last
// line gives each suite's wall time and, on Linux, the CPU time of the whole run (every child
// process, summed), the figure to compare on a shared machine.
//
//   node scripts/test.mjs      (pnpm test)
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT } from './lib.mjs';

const say = (text) => process.stdout.write(`${text}\n`);
const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const started = performance.now();

const checks = spawnSync(
  'pnpm',
  ['exec', 'turbo', 'run', 'build', 'typecheck', 'typecheck:root', 'lint', '--output-logs=new-only'],
  { cwd: ROOT, stdio: 'inherit' },
);
if (checks.status !== 0) {
  say(`\n✗ build, typecheck and lint failed (${checks.signal ?? `exit ${checks.status}`})`);
  process.exit(checks.status || 1);
}
say(`\nBuild, typecheck and lint done in ${seconds(started)}; running both test suites at once.\n`);

const vitest = join(
  dirname(createRequire(join(ROOT, 'package.json')).resolve('vitest/package.json')),
  'vitest.mjs',
);
const SUITES = [
  // Output live: the terminal shows this suite's progress.
  { name: 'vitest (Node 20)', args: [vitest, 'run'], live: true },
  // vitest's default worker count (one on 2 CPUs): it still ends before the root suite, and takes
  // less CPU from it.
  { name: 'hosted (Node 22)', args: ['packages/hosted/scripts/test.mjs'], live: false },
];

const children = new Set();
const forward = (signal) => {
  for (const child of children) child.kill(signal);
  process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
};
process.once('SIGINT', () => forward('SIGINT'));
process.once('SIGTERM', () => forward('SIGTERM'));

let liveDone;
const liveFinished = new Promise((resolve) => {
  liveDone = resolve;
});
const runSuite = (suite) =>
  new Promise((resolve) => {
    const since = performance.now();
    // Both suites' output is kept (the live one is also echoed as it comes): the lines the summary
    // reporter writes (vitest.summary.ts) are repeated at the very end.
    const child = spawn(process.execPath, suite.args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', suite.live ? 'inherit' : 'pipe'],
    });
    children.add(child);
    const output = [];
    child.stdout.on('data', (chunk) => {
      output.push(chunk);
      if (suite.live) process.stdout.write(chunk);
    });
    child.stderr?.on('data', (chunk) => output.push(chunk));
    child.once('error', (error) => output.push(Buffer.from(`${error.stack ?? error}\n`)));
    child.once('close', async (code, signal) => {
      children.delete(child);
      const ok = code === 0;
      const result = {
        ...suite,
        ok,
        summary: summaryLines(Buffer.concat(output).toString('utf8')),
        time: seconds(since),
        how: ok ? 'passed' : `failed (${signal ?? `exit ${code}`})`,
      };
      if (suite.live) liveDone();
      else {
        await liveFinished;
        say(`\n── ${suite.name}: its output ──────────────────────────────────────────`);
        process.stdout.write(Buffer.concat(output));
      }
      say(`\n${ok ? '✓' : '✗'} ${suite.name}: ${result.how} in ${result.time}\n`);
      resolve(result);
    });
  });
const results = await Promise.all(SUITES.map(runSuite));

// A CI log often keeps only the tail: name every failure again here, suite by suite.
for (const result of results.filter((each) => !each.ok)) {
  say(`── ${result.name} failed ──`);
  say(result.summary.length > 0 ? result.summary.join('\n') : '(no summary line: see its output above)');
  say('');
}

say(
  `${results.map((result) => `${result.ok ? '✓' : '✗'} ${result.name} ${result.time}`).join(', ')}; ` +
    `pnpm test took ${seconds(started)}${cpuTime()}.`,
);
process.exit(results.every((result) => result.ok) ? 0 : 1);

/** The lines vitest.summary.ts writes: FAILED …, UNHANDLED …, Summary: … (colour codes removed). */
function summaryLines(text) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes
  const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
  return plain.split('\n').filter((line) => /^(FAILED |UNHANDLED |Summary: )/.test(line));
}

/** `, CPU N s` from Linux's /proc: this process and every child it waited for, summed. */
function cpuTime() {
  try {
    // Fields after the command name: state is field 3; utime, stime, cutime, cstime are 14 to 17.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = fields.slice(11, 15).reduce((sum, field) => sum + Number(field), 0);
    const perSecond = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;
    return `, CPU ${(ticks / perSecond).toFixed(0)} s (all processes, summed)`;
  } catch {
    return '';
  }
}
