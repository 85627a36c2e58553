#!/usr/bin/env node
// What one JSON log line costs the process that writes it, in process CPU time: the request
// log's `tool call` line, one per event-loop turn (as requests arrive), to stderr as a pipe that
// the parent drains, as under Docker or systemd. Setups: no line (the loop's own cost),
// formatting only (a no-op write), one `process.stderr.write` per line (the logger before issue
// #23), and the logger's default buffered sink. Each setup runs in a fresh child process.
//
//   pnpm turbo run build --filter=@x/mcp-core && node bench/log-line.mjs [--lines 20000] [--rounds 5]
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { fmt, log, machine, median } from './lib.mjs';

const { values: flags } = parseArgs({
  options: {
    lines: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
    child: { type: 'string' },
  },
});
const lines = Number(flags.lines);
const SETUPS = ['no line', 'formatting only', 'stderr.write per line', 'buffered sink (default)'];

if (flags.child) {
  const { createLogger } = await import('../packages/mcp-core/dist/index.js');
  const setup = flags.child;
  const logger =
    setup === 'formatting only'
      ? createLogger('calls', { format: 'json', write: () => {} })
      : setup === 'stderr.write per line'
        ? createLogger('calls', { format: 'json', write: (line) => process.stderr.write(line) })
        : createLogger('calls', { format: 'json' });
  const turns = async (count) => {
    for (let index = 0; index < count; index++) {
      if (setup !== 'no line') {
        logger.info('tool call', { tool: 'basecamp_list_projects', outcome: 'ok', duration_ms: 12.3 });
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await turns(2_000);
  const before = process.cpuUsage();
  await turns(lines);
  // The last batch (10 ms) is written too.
  await new Promise((resolve) => setTimeout(resolve, 30));
  const used = process.cpuUsage(before);
  process.stdout.write(`${(used.user + used.system) / lines}\n`);
  process.exit(0);
}

log(`log-line bench: ${lines} lines, ${flags.rounds} rounds, Node ${process.version}`);
const samples = Object.fromEntries(SETUPS.map((setup) => [setup, []]));
for (let round = 0; round < Number(flags.rounds); round++) {
  for (const setup of round % 2 === 0 ? SETUPS : [...SETUPS].reverse()) {
    const child = spawn(process.execPath, [process.argv[1], '--lines', String(lines), '--child', setup], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr.resume();
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    if (code !== 0) throw new Error(`${setup}: exit ${code}`);
    samples[setup].push(Number(out));
  }
}
const none = median(samples['no line']);
const rows = [
  '| setup | CPU per turn (µs, median) | + per line over no line (µs) |',
  '| --- | ---: | ---: |',
  ...SETUPS.map((setup) => {
    const value = median(samples[setup]);
    return `| ${setup} | ${fmt(value, 2)} | ${setup === 'no line' ? '–' : fmt(value - none, 2)} |`;
  }),
];
process.stdout.write(`${JSON.stringify(machine())}\n${rows.join('\n')}\n`);
