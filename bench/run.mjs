#!/usr/bin/env node
// Benchmark: an @x/mcp-core bin (`ours`) against a plain SDK v2 server (`plain-sdk`) and a
// hand-written NDJSON echo (`floor`). Every number is measured with the same raw drivers
// below (no MCP client library), so client cost is identical for all servers.
//
//   node bench/run.mjs            full run (about 75 s on 2 cores)
//   node bench/run.mjs --quick    short run
//   node bench/run.mjs --help     all flags
//
// Build first (`pnpm bench` does): the `ours` fixture is bench/dist/ours.js.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  COLD_LIMIT_MS,
  fmt,
  freePort,
  guardRun,
  initializeParams,
  log,
  machine,
  coldStart as measureColdStart,
  median,
  PROTOCOL_VERSION,
  pinning,
  postMcp,
  quantile,
  ROOT,
  rotate,
  StdioDriver,
  start,
  stop,
  usePinning,
} from './lib.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const WARM_LIMIT_MS = 120_000;
const CLOCK_TICKS = 100; // USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s on Linux
const GLOBAL_LIMIT_MS = 8 * 60_000;

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    'cold-runs': { type: 'string' },
    calls: { type: 'string' },
    reps: { type: 'string' },
    'steady-warmup': { type: 'string' },
    'http-seconds': { type: 'string' },
    concurrency: { type: 'string' },
    'skip-http': { type: 'boolean', default: false },
    variants: { type: 'boolean', default: true },
    pin: { type: 'boolean', default: true },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
  allowNegative: true,
});

if (flags.help) {
  console.log(`Usage: node bench/run.mjs [options]

  --quick              short run: 10 cold starts, 3 warm runs of 1,000 calls, 5 s of HTTP per server
  --cold-runs <n>      cold starts per server (default 20, --quick 10; at least 10 is sensible)
  --calls <n>          timed sequential stdio calls per phase (default 2000, --quick 1000)
  --reps <n>           warm repetitions per server, each in a fresh process (default 5, --quick 3)
  --steady-warmup <n>  extra calls before the steady-state phase (default 10000, --quick 5000; 0 skips it)
  --http-seconds <n>   measured HTTP load per server (default 10, --quick 5)
  --concurrency <n>    concurrent HTTP client loops (default 16)
  --skip-http          skip the HTTP measurement
  --no-pin             do not pin the driver to CPU 0 and the servers to CPU 1
  --no-variants        skip the informational cold-start variants (ours-lazy, ours-min, plain-sdk-bundled)
  --out <file>         results file (default bench/results/latest.json)`);
  process.exit(0);
}

const integerFlag = (raw, fallback, name, min = 1) => {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    console.error(`--${name} must be an integer of at least ${min}, got "${raw}"`);
    process.exit(2);
  }
  return value;
};

const config = {
  quick: flags.quick,
  coldRuns: integerFlag(flags['cold-runs'], flags.quick ? 10 : 20, 'cold-runs'),
  warmupCalls: 300,
  calls: integerFlag(flags.calls, flags.quick ? 1000 : 2000, 'calls'),
  steadyWarmupCalls: integerFlag(flags['steady-warmup'], flags.quick ? 5000 : 10_000, 'steady-warmup', 0),
  reps: integerFlag(flags.reps, flags.quick ? 3 : 5, 'reps'),
  httpSeconds: integerFlag(flags['http-seconds'], flags.quick ? 5 : 10, 'http-seconds'),
  httpWarmupSeconds: flags.quick ? 1 : 2,
  concurrency: integerFlag(flags.concurrency, 16, 'concurrency'),
  http: !flags['skip-http'],
  variants: flags.variants,
  pin: flags.pin,
};

const OURS_BIN = join(HERE, 'dist/ours.js');
const OURS_LAZY_BIN = join(HERE, 'dist/ours-lazy.js');
const OURS_MIN_BIN = join(HERE, 'dist/ours-min.js');
const PLAIN_BUNDLED = join(HERE, 'dist/plain-sdk-bundled.js');
const PLAIN = join(HERE, 'fixtures/plain-sdk.mjs');
const FLOOR = join(HERE, 'fixtures/floor.mjs');

/** The servers compared. `args` start the stdio server; `httpArgs(port)` the HTTP one. */
const SERVERS = [
  { name: 'ours', args: [OURS_BIN], httpArgs: (port) => [OURS_BIN, '--http', '--port', String(port)] },
  { name: 'plain-sdk', args: [PLAIN], httpArgs: (port) => [PLAIN, '--http', '--port', String(port)] },
  { name: 'floor', args: [FLOOR] },
];
/**
 * Measured for cold start only: `ours` with its provider imported lazily, `ours` minified, and
 * the plain SDK server bundled exactly like `ours` (what bundling alone saves).
 */
const VARIANTS = [
  { name: 'ours-lazy', args: [OURS_LAZY_BIN] },
  { name: 'ours-min', args: [OURS_MIN_BIN] },
  { name: 'plain-sdk-bundled', args: [PLAIN_BUNDLED] },
];

for (const file of [
  OURS_BIN,
  PLAIN,
  FLOOR,
  ...(config.variants ? VARIANTS.map((variant) => variant.args[0]) : []),
]) {
  if (!existsSync(file)) {
    console.error(`Missing ${relative(ROOT, file)}. Build first: pnpm bench (or pnpm turbo run build).`);
    process.exit(1);
  }
}

usePinning(flags.pin);
guardRun(GLOBAL_LIMIT_MS);

function checkToolList(result, server) {
  if (!result?.tools?.some((tool) => tool.name === 'echo')) {
    throw new Error(`${server}: tools/list did not list echo: ${JSON.stringify(result)}`);
  }
}

function checkEcho(result, text, server) {
  if (result?.isError || result?.content?.[0]?.text !== text) {
    throw new Error(`${server}: unexpected tools/call result ${JSON.stringify(result)}`);
  }
}

/** Spawn → first tools/list answer, in ms. */
const coldStart = (server) => measureColdStart(server, (result) => checkToolList(result, server.name));

/**
 * Sequential tools/call over stdio in one process: a timed phase after a short warm-up (the
 * first few thousand calls of a session, JIT still warming up), then optionally a second timed
 * phase after many more calls (steady state). Also the server's peak RSS at the end.
 */
async function warmRun(server) {
  const driver = new StdioDriver(server.args);
  try {
    return await driver.bounded(WARM_LIMIT_MS, `${server.name} warm run`, async () => {
      await driver.request('initialize', initializeParams);
      driver.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
      checkToolList(await driver.request('tools/list'), server.name);
      let sent = 0;
      const calls = async (count) => {
        for (let i = 0; i < count; i++) {
          const text = `hello ${sent++}`;
          const result = await driver.request('tools/call', { name: 'echo', arguments: { text } });
          checkEcho(result, text, server.name);
        }
      };
      const timed = async () => {
        const cpu0 = await readCpuSeconds(driver.child.pid);
        const t0 = performance.now();
        await calls(config.calls);
        const seconds = (performance.now() - t0) / 1000;
        const cpu = (await readCpuSeconds(driver.child.pid)) - cpu0;
        return { callsPerSecond: config.calls / seconds, serverCpuMicrosPerCall: (cpu / config.calls) * 1e6 };
      };
      await calls(config.warmupCalls);
      const warm = await timed();
      const afterWarm = await readMemory(driver.child.pid);
      let steady;
      if (config.steadyWarmupCalls > 0) {
        await calls(config.steadyWarmupCalls);
        steady = await timed();
      }
      // Read before stdin closes: VmHWM is the peak over the whole run.
      const memory = await readMemory(driver.child.pid);
      return { warm, steady, peakRssAfterWarmPhaseMiB: afterWarm.peakRssMiB, ...memory };
    });
  } finally {
    await stop(driver.child);
  }
}

/** User + system CPU time of a process so far, in seconds (10 ms resolution). */
async function readCpuSeconds(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** VmHWM (peak resident set) and VmRSS of a process, in MiB. */
async function readMemory(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { peakRssMiB: kib('VmHWM') / 1024, rssMiB: kib('VmRSS') / 1024 };
}

// ---------------------------------------------------------------------------------------
// The raw HTTP driver: keep-alive node:http, stateless tools/call POSTs.

/** The JSON-RPC messages of a response body, JSON or SSE. */
function messagesOf(response) {
  if (!response.text) return [];
  if (String(response.headers['content-type']).startsWith('text/event-stream')) {
    return response.text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.slice(5)));
  }
  const parsed = JSON.parse(response.text);
  return Array.isArray(parsed) ? parsed : [parsed];
}

let callCounter = 0;
/** One stateless tools/call; `withInitialize` sends an initialize POST first, as a 2025 stateless client would. */
async function httpCall(agent, port, withInitialize) {
  if (withInitialize) {
    const init = await postMcp(agent, port, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: initializeParams,
    });
    if (init.status !== 200) return false;
  }
  const id = ++callCounter;
  const text = `hello ${id}`;
  const response = await postMcp(agent, port, {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text } },
  });
  if (response.status !== 200) return false;
  const answer = messagesOf(response).find((message) => message.id === id);
  return answer?.result?.content?.[0]?.text === text && !answer.result.isError;
}

async function startHttpServer(server) {
  const port = await freePort();
  const child = start(server.httpArgs(port));
  const agent = new Agent({ keepAlive: true, maxSockets: config.concurrency });
  const deadline = performance.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${server.name} --http exited: ${child.stderrTail}`);
    try {
      // The probe: a tools/call with no initialize before it.
      if (await httpCall(agent, port, false)) return { server, child, port, agent, withInitialize: false };
      if (await httpCall(agent, port, true)) return { server, child, port, agent, withInitialize: true };
      throw new Error(`${server.name}: tools/call over HTTP failed even after initialize`);
    } catch (error) {
      if (!/ECONNREFUSED/.test(String(error?.code ?? error?.message)) || performance.now() > deadline) {
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** `concurrency` loops of back-to-back calls for `seconds`; only calls finished in the window count. */
async function httpLoad(target, seconds) {
  const end = performance.now() + seconds * 1000;
  let ok = 0;
  let failed = 0;
  const errors = new Map();
  const loop = async () => {
    while (performance.now() < end) {
      let success = false;
      try {
        success = await httpCall(target.agent, target.port, target.withInitialize);
      } catch (error) {
        const key = String(error?.code ?? error?.message);
        errors.set(key, (errors.get(key) ?? 0) + 1);
      }
      if (performance.now() > end) break;
      if (success) ok++;
      else failed++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: config.concurrency }, loop));
  const elapsed = Math.min(performance.now(), end) - t0;
  return { ok, failed, seconds: elapsed / 1000, errors: Object.fromEntries(errors) };
}

// ---------------------------------------------------------------------------------------
// Untimed sanity check: a real SDK v2 client can list and call `echo` on every server.

async function checkWithRealClient(name, transport) {
  const client = new Client({ name: 'x-bench-check', version: '0.0.0' });
  const timer = setTimeout(() => transport.close?.().catch(() => {}), COLD_LIMIT_MS);
  try {
    await client.connect(transport);
    checkToolList(await client.listTools(), name);
    checkEcho(await client.callTool({ name: 'echo', arguments: { text: 'check' } }), 'check', name);
  } catch (error) {
    throw new Error(`${name}: a real MCP client failed against it: ${error?.message ?? error}`);
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
}

const stdioClientTransport = (server) =>
  new StdioClientTransport({ command: process.execPath, args: server.args, cwd: ROOT, stderr: 'ignore' });

// ---------------------------------------------------------------------------------------
// The run.

async function main() {
  const started = performance.now();
  const info = machine();
  log(
    `Machine: ${info.nproc} CPUs (${info.cpu}), Node ${info.node}. ${config.quick ? 'Quick run' : 'Full run'}, ${pinning ? 'driver pinned to CPU 0 and servers to CPU 1' : 'no CPU pinning'}.`,
  );

  log('Checking that a real MCP client can list and call echo on every server...');
  for (const server of SERVERS) await checkWithRealClient(server.name, stdioClientTransport(server));

  // Cold start, round-robin across servers; one discarded run each first (warms the page cache).
  const coldServers = [...SERVERS, ...(config.variants ? VARIANTS : [])];
  const cold = Object.fromEntries(coldServers.map((server) => [server.name, []]));
  log(`Cold start: ${config.coldRuns} run(s) per server, interleaved...`);
  for (const server of coldServers) await coldStart(server);
  for (let run = 0; run < config.coldRuns; run++) {
    for (const server of rotate(coldServers, run)) cold[server.name].push(await coldStart(server));
  }

  // Warm sequential calls, each repetition in a fresh process, interleaved.
  log(
    `Warm stdio: ${config.reps} run(s) per server: ${config.calls} sequential calls after ${config.warmupCalls}` +
      (config.steadyWarmupCalls ? `, again after ${config.steadyWarmupCalls} more...` : '...'),
  );
  const warm = Object.fromEntries(SERVERS.map((server) => [server.name, []]));
  for (let rep = 0; rep < config.reps; rep++) {
    for (const server of rotate(SERVERS, rep)) warm[server.name].push(await warmRun(server));
  }

  // Stateless HTTP: both servers up at once (the idle one costs nothing), measured in alternating windows.
  const http = {};
  if (config.http) {
    const httpServers = SERVERS.filter((server) => server.httpArgs);
    const windows = config.httpSeconds >= 10 ? 2 : 1;
    const windowSeconds = config.httpSeconds / windows;
    log(
      `Stateless HTTP: ${config.concurrency} loops, ${config.httpSeconds} s per server in ${windows} window(s)...`,
    );
    const targets = [];
    try {
      for (const server of httpServers) {
        const target = await startHttpServer(server);
        targets.push(target);
        const url = new URL(`http://127.0.0.1:${target.port}/mcp`);
        await checkWithRealClient(`${server.name} --http`, new StreamableHTTPClientTransport(url));
      }
      for (const target of targets) {
        await httpLoad(target, config.httpWarmupSeconds);
        http[target.server.name] = {
          mode: target.withInitialize ? 'initialize + tools/call per call' : 'tools/call only',
          windows: [],
        };
      }
      for (let window = 0; window < windows; window++) {
        for (const target of rotate(targets, window)) {
          const cpu0 = await readCpuSeconds(target.child.pid);
          const result = await httpLoad(target, windowSeconds);
          result.serverCpuSeconds = (await readCpuSeconds(target.child.pid)) - cpu0;
          http[target.server.name].windows.push(result);
        }
      }
      for (const target of targets) {
        const entry = http[target.server.name];
        const sum = (key) => entry.windows.reduce((total, window) => total + window[key], 0);
        entry.callsPerSecond = sum('ok') / sum('seconds');
        entry.serverCpuMicrosPerCall = (sum('serverCpuSeconds') / sum('ok')) * 1e6;
        entry.failed = sum('failed');
        Object.assign(entry, await readMemory(target.child.pid));
      }
    } finally {
      for (const target of targets) {
        target.agent.destroy();
        await stop(target.child, { signal: 'SIGTERM' });
      }
    }
  }

  // Summaries.
  const summary = {};
  for (const server of coldServers) {
    const samples = cold[server.name];
    summary[server.name] = {
      coldStartMs: median(samples),
      coldStartP10Ms: quantile(samples, 0.1),
      coldStartP90Ms: quantile(samples, 0.9),
    };
  }
  for (const server of SERVERS) {
    const runs = warm[server.name];
    Object.assign(summary[server.name], {
      warmCallsPerSecond: median(runs.map((run) => run.warm.callsPerSecond)),
      warmServerCpuMicrosPerCall: median(runs.map((run) => run.warm.serverCpuMicrosPerCall)),
      ...(config.steadyWarmupCalls
        ? {
            steadyCallsPerSecond: median(runs.map((run) => run.steady.callsPerSecond)),
            steadyServerCpuMicrosPerCall: median(runs.map((run) => run.steady.serverCpuMicrosPerCall)),
          }
        : {}),
      firstPhasePeakRssMiB: median(runs.map((run) => run.peakRssAfterWarmPhaseMiB)),
      warmPeakRssMiB: median(runs.map((run) => run.peakRssMiB)),
      ...(http[server.name]
        ? {
            httpCallsPerSecond: http[server.name].callsPerSecond,
            httpServerCpuMicrosPerCall: http[server.name].serverCpuMicrosPerCall,
            httpPeakRssMiB: http[server.name].peakRssMiB,
          }
        : {}),
    });
  }

  const ours = summary.ours;
  const plain = summary['plain-sdk'];
  const floor = summary.floor;
  const targets = [
    {
      name: 'cold start ≤ 1.6× floor',
      ratio: ours.coldStartMs / floor.coldStartMs,
      limit: 1.6,
      lowerIsBetter: true,
    },
    {
      name: 'cold start ≤ 0.75× plain-sdk',
      ratio: ours.coldStartMs / plain.coldStartMs,
      limit: 0.75,
      lowerIsBetter: true,
    },
    {
      name: `warm calls/s ≥ 0.9× plain-sdk (after ${config.warmupCalls} calls)`,
      ratio: ours.warmCallsPerSecond / plain.warmCallsPerSecond,
      limit: 0.9,
      lowerIsBetter: false,
    },
    ...(config.steadyWarmupCalls
      ? [
          {
            name: `same, steady state (after ${config.warmupCalls + config.calls + config.steadyWarmupCalls} calls)`,
            ratio: ours.steadyCallsPerSecond / plain.steadyCallsPerSecond,
            limit: 0.9,
            lowerIsBetter: false,
          },
        ]
      : []),
    {
      name: 'peak RSS ≤ plain-sdk',
      ratio: ours.warmPeakRssMiB / plain.warmPeakRssMiB,
      limit: 1,
      lowerIsBetter: true,
    },
    ...(config.http
      ? [
          {
            name: 'HTTP calls/s ≥ 0.9× plain-sdk',
            ratio: ours.httpCallsPerSecond / plain.httpCallsPerSecond,
            limit: 0.9,
            lowerIsBetter: false,
          },
        ]
      : []),
  ].map((target) => ({
    ...target,
    pass: target.lowerIsBetter ? target.ratio <= target.limit : target.ratio >= target.limit,
  }));

  const ratio = (a, b) => (a === undefined || b === undefined ? 'n/a' : `${fmt(a / b, 2)}×`);
  const row = (label, key, digits) => {
    const values = SERVERS.map((server) => summary[server.name][key]);
    return `| ${label} | ${values.map((value) => fmt(value, digits)).join(' | ')} | ${ratio(values[0], values[1])} | ${ratio(values[0], values[2])} | ${ratio(values[1], values[2])} |`;
  };
  const lines = [
    '| median | ours | plain-sdk | floor | ours ÷ plain-sdk | ours ÷ floor | plain-sdk ÷ floor |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    row('cold start, spawn → tools/list (ms)', 'coldStartMs', 1),
    row(`stdio calls/s, ${config.calls} sequential after ${config.warmupCalls}`, 'warmCallsPerSecond', 0),
    row('server CPU per call in that phase (µs)', 'warmServerCpuMicrosPerCall', 0),
    ...(config.steadyWarmupCalls
      ? [
          row(
            `stdio calls/s, steady state (${config.calls} after ${config.warmupCalls + config.calls + config.steadyWarmupCalls})`,
            'steadyCallsPerSecond',
            0,
          ),
          row('server CPU per call in that phase (µs)', 'steadyServerCpuMicrosPerCall', 0),
        ]
      : []),
    row('peak RSS after the first phase (MiB)', 'firstPhasePeakRssMiB', 1),
    row('peak RSS at end of warm run (MiB)', 'warmPeakRssMiB', 1),
    ...(config.http
      ? [
          row(`stateless HTTP calls/s (${config.concurrency} loops)`, 'httpCallsPerSecond', 0),
          row('server CPU per HTTP call (µs)', 'httpServerCpuMicrosPerCall', 0),
          row('peak RSS after HTTP load (MiB)', 'httpPeakRssMiB', 1),
        ]
      : []),
    '',
    '| target | measured | result |',
    '| --- | ---: | --- |',
    ...targets.map(
      (target) => `| ${target.name} | ${fmt(target.ratio, 2)}× | ${target.pass ? 'pass' : 'FAIL'} |`,
    ),
    '',
    '| cold start spread (ms) | p10 | median | p90 |',
    '| --- | ---: | ---: | ---: |',
    ...coldServers.map(
      (server) =>
        `| ${server.name} | ${fmt(summary[server.name].coldStartP10Ms)} | ${fmt(summary[server.name].coldStartMs)} | ${fmt(summary[server.name].coldStartP90Ms)} |`,
    ),
  ];
  const table = lines.join('\n');

  const seconds = (performance.now() - started) / 1000;
  const results = {
    date: new Date().toISOString(),
    command: `node bench/run.mjs${process.argv.length > 2 ? ` ${process.argv.slice(2).join(' ')}` : ''}`,
    machine: info,
    config: { ...config, pinned: pinning, protocolVersion: PROTOCOL_VERSION },
    durationSeconds: Math.round(seconds),
    summary,
    targets,
    raw: { coldStartMs: cold, warm, http },
    table,
  };
  const out = flags.out ? resolve(flags.out) : join(HERE, 'results/latest.json');
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(results, null, 2)}\n`);

  console.log(table);
  if (config.http) {
    const modes = Object.entries(http).map(([name, entry]) => `${name}: ${entry.mode}`);
    const failures = Object.entries(http).map(([name, entry]) => `${name} ${entry.failed}`);
    console.log(`\nHTTP requests: ${modes.join('; ')}. Failed calls: ${failures.join(', ')}.`);
  }
  console.log(
    `\n${info.nproc} CPUs (${info.cpu}), Node ${info.node}, ${pinning ? 'driver on CPU 0, servers on CPU 1' : 'unpinned'}, ${Math.round(seconds)} s. Results: ${relative(process.cwd(), out)}`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1); // guardRun's exit handler kills every child
});
