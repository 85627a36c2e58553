#!/usr/bin/env node
// The hosted server (apps/server `--auth oauth`, Redis store) against the static-token mode on this
// machine, and what metrics, JSON logs and traces cost. Everything real: the built x-mcp-server
// bin, the fake Basecamp/Launchpad and a fake OTLP collector in this process, redis-server.
//
//   node bench/hosted.mjs                 # about 4 minutes (1,000 sign-ins)
//   node bench/hosted.mjs --quick         # about 1 minute (100 users, shorter windows)
//   node bench/hosted.mjs --help
//
// Hosted code needs Node 22.12+: on an older Node this script runs itself again on the Node 22
// that scripts/node22.mjs installs. Results: bench/results/hosted.json and a markdown table.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { Agent, createServer, request as httpRequest } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import {
  fmt,
  freePort,
  guardRun,
  log,
  machine,
  median,
  postMcp,
  quantile,
  ROOT,
  start,
  stop,
} from './lib.mjs';

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    users: { type: 'string' },
    seconds: { type: 'string' },
    rounds: { type: 'string' },
    concurrency: { type: 'string' },
    only: { type: 'string', multiple: true },
    'no-memory': { type: 'boolean', default: false },
    revocations: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'gc-stats': { type: 'string' },
    'alloc-prof': { type: 'string' },
    promoted: { type: 'boolean', default: false },
    'node-options': { type: 'string' },
    baseline: { type: 'string', multiple: true },
    'json-logs': { type: 'boolean', default: false },
    interleaved: { type: 'boolean', default: false },
    'signed-in': { type: 'string' },
    slice: { type: 'string' },
    audit: { type: 'boolean', default: false },
    'gc-heap': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  process.stdout.write(`node bench/hosted.mjs [--quick] [--users 10,100,1000] [--seconds 6] [--rounds 3] [--concurrency 16]
                      [--only <text>]... (throughput setups whose name contains one of them) [--no-memory]
                      [--cpu-prof <dir>] (V8 CPU profiles of the server processes into <dir>)
                      [--alloc-prof <dir> [--promoted]] (allocation samples of the measured phase, per server, into
                                 <dir>; --promoted: only what outlived young-generation collections)
                      [--gc-stats <dir>] (garbage collections of the measured phase, per server, into <dir>)
                      [--node-options '<flags>'] (Node/V8 flags for every server process)
                      [--gc-heap] (memory: collect garbage, through a heap snapshot, before each heap reading)
                      [--baseline <checkout>]... (also run the oauth setups on <checkout>'s built bin, interleaved)
                      [--revocations 50] (revocation latency across two replicas: trials; 0 skips it)
                      [--json-logs] (what MCP_LOG_FORMAT=json costs: the token mode and one oauth replica,
                                     each with and without it; issue #23's oauth ÷ token with JSON logs, paired by
                                     round: as served, oauth without its audit log, and both with it to a file)
                      [--interleaved [--slice 0.25]] (issue #23's pairs, oauth and token servers up at
                                 once, measured in alternating slices of the window: fresh processes each
                                 round; the ratio per round and its median. --only picks pairs by the oauth
                                 setup's name)
                      [--signed-in <n>] (oauth: the load's loops share n signed-in users; default one each)
                      [--audit] (what the audit log costs: one oauth replica with MCP_AUDIT=off, the
                                 default Redis stream, and a file; on ÷ off paired by round)
  Throughput of authenticated tools/call over HTTP: --auth oauth (Redis, one and two replicas)
  against MCP_HTTP_TOKEN, and the token mode with metrics off, on, + JSON logs, + traces.
  Memory per signed-in user at each --users checkpoint, and sign-in latency (fake Launchpad).
`);
  process.exit(0);
}

const major = Number(process.versions.node.split('.')[0]);
const minor = Number(process.versions.node.split('.')[1]);
if (major < 22 || (major === 22 && minor < 12)) {
  const { node22 } = await import('../scripts/node22.mjs');
  const binary = node22();
  try {
    execFileSync(binary, [new URL(import.meta.url).pathname, ...process.argv.slice(2)], { stdio: 'inherit' });
    process.exit(0);
  } catch (error) {
    process.exit(error.status ?? 1);
  }
}

const quick = flags.quick;
const config = {
  users: (flags.users ?? (quick ? '10,100' : '10,100,1000')).split(',').map(Number),
  seconds: Number(flags.seconds ?? (quick ? 3 : 6)),
  warmupSeconds: quick ? 1 : 2,
  rounds: Number(flags.rounds ?? (quick ? 1 : 3)),
  concurrency: Number(flags.concurrency ?? 16),
  revocations: Number(flags.revocations ?? (quick ? 20 : 50)),
};
guardRun(20 * 60_000);
process.on('uncaughtException', (error) => {
  log(`uncaught: ${error?.stack ?? error}`);
  process.exitCode = 1;
});

const { startFakeBasecamp } = await import('../packages/basecamp/dist/testing/index.js');
const { OAuthBrowser, TestOAuthClient, startRedisServer } = await import(
  '../packages/hosted/dist/testing/index.js'
);
const { Keyring, createStore, revokeUser } = await import('../packages/hosted/dist/index.js');
const { Client, StreamableHTTPClientTransport, UnauthorizedError } = await import(
  '@modelcontextprotocol/client'
);

const BIN = join(ROOT, 'apps/server/dist/bin.js');
const SECRET = 'a-bench-secret-of-at-least-32-bytes-0123456789';
const METRICS_TOKEN = 'bench-metrics-token';
const HTTP_TOKEN = 'bench-static-token';
const REDIRECT = 'http://127.0.0.1:9/callback';
const ACCOUNT = { id: 999999999, name: 'Honcho Design' };
const TOOL = { name: 'basecamp_list_projects', arguments: {} };

const fake = await startFakeBasecamp();
const redis = await startRedisServer();
const collector = await startCollector();
const results = { machine: machine(), config, throughput: {}, memory: [], signIn: {} };

/** A fake OTLP/HTTP collector: answers every export, counts the spans' bytes. */
async function startCollector() {
  let exports = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, exports: () => exports, close: () => server.close() };
}

function baseEnv(home) {
  return {
    HOME: home,
    XDG_CONFIG_HOME: home,
    XDG_STATE_HOME: home,
    BASECAMP_API_URL: fake.url,
    BASECAMP_RATE_LIMIT_REQUESTS: '1000000',
    BASECAMP_CONTACT: 'bench@example.com',
    BASECAMP_TOKEN_FILE: '/nonexistent/basecamp-bench/token.json',
    MCP_METRICS_TOKEN: METRICS_TOKEN,
    MCP_LOG_LEVEL: 'info',
    OTEL_EXPORTER_OTLP_ENDPOINT: '',
  };
}

/** --cpu-prof: each server process's profile file. */
const profiles = new Map();

/** One x-mcp-server process; resolves once /healthz answers. */
async function startServer({ mode, port, publicUrl, env = {}, bin = BIN }) {
  const home = await mkdtemp(join(tmpdir(), 'x-bench-hosted-'));
  const own =
    mode === 'oauth'
      ? {
          MCP_PUBLIC_URL: publicUrl,
          MCP_SECRET: SECRET,
          MCP_STORE: redis.url,
          BASECAMP_CLIENT_ID: fake.client.id,
          BASECAMP_CLIENT_SECRET: fake.client.secret,
          BASECAMP_LAUNCHPAD_URL: fake.launchpadUrl,
          BASECAMP_ALLOWED_ACCOUNTS: String(ACCOUNT.id),
        }
      : {
          MCP_HTTP_TOKEN: HTTP_TOKEN,
          BASECAMP_ACCESS_TOKEN: fake.accessToken,
          BASECAMP_ACCOUNT_ID: fake.accountId,
        };
  const args = [bin, '--http', '--port', String(port), '--providers', 'basecamp'];
  if (mode === 'oauth') args.push('--auth', 'oauth');
  // The measured phase only: runSetup signals the process before and after it (profile-preload.mjs).
  const preload = (name) => `--import=${new URL(name, import.meta.url).pathname}`;
  const profiled = flags['cpu-prof'] ?? flags['alloc-prof'];
  const profile = profiled
    ? {
        NODE_OPTIONS: preload('./profile-preload.mjs'),
        X_BENCH_PROFILE: join(
          profiled,
          `${mode}-${port}.${flags['cpu-prof'] ? 'cpuprofile' : 'heapprofile'}`,
        ),
        ...(flags['cpu-prof'] ? {} : { X_BENCH_ALLOC: flags.promoted ? 'promoted' : '1' }),
      }
    : flags['gc-stats']
      ? {
          NODE_OPTIONS: preload('./gc-preload.mjs'),
          X_BENCH_GC: join(flags['gc-stats'], `${mode}-${port}.json`),
        }
      : {};
  if (flags['node-options']) {
    profile.NODE_OPTIONS = [profile.NODE_OPTIONS, flags['node-options']].filter(Boolean).join(' ');
  }
  // `{home}` in a variable: this server's own directory (e.g. MCP_AUDIT=file:{home}/audit.jsonl).
  const ownEnv = Object.fromEntries(
    Object.entries(env).map(([name, value]) => [name, value.replaceAll('{home}', home)]),
  );
  const child = start(args, { env: { ...baseEnv(home), ...own, ...ownEnv, ...profile } });
  if (profile.X_BENCH_PROFILE ?? profile.X_BENCH_GC)
    profiles.set(child, profile.X_BENCH_PROFILE ?? profile.X_BENCH_GC);
  const deadline = performance.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`x-mcp-server (${mode}) exited: ${child.stderrTail}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (response.ok) return child;
    } catch {}
    if (performance.now() > deadline)
      throw new Error(`x-mcp-server (${mode}) did not start: ${child.stderrTail}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A round-robin reverse proxy on loopback in front of the replicas (what a load balancer does). */
async function startProxy(targets) {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  let next = 0;
  const server = createServer((req, res) => {
    const target = targets[next++ % targets.length];
    const upstream = httpRequest(
      { agent, host: '127.0.0.1', port: target, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
        agent.destroy();
      }),
  };
}

// ---------------------------------------------------------------------------------------
// Sign-in: the whole flow as a real client does it (401, discovery, DCR, consent, Launchpad, token).

let identities = 0;
// One registered client per server origin, as one MCP client app used by many people: the server
// rate-limits dynamic registrations per address, and a registration is not part of a person's sign-in.
const registrations = new Map();
async function signIn(url) {
  const id = 10_000 + ++identities;
  const identity = {
    id,
    firstName: 'User',
    lastName: String(id),
    email: `user${id}@example.com`,
    accounts: [ACCOUNT],
  };
  const oauth = new TestOAuthClient(REDIRECT, 'none', 'Bench client');
  const registered = registrations.get(new URL(url).origin);
  if (registered) oauth.saveClientInformation(registered);
  const browser = new OAuthBrowser({ stopAt: (target) => target.href.startsWith(REDIRECT) });
  const t0 = performance.now();
  const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: oauth });
  const probe = new Client({ name: 'x-bench', version: '0.0.0' });
  try {
    await probe.connect(first);
    throw new Error('expected the first connect to need authorization');
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  fake.signInAs(identity);
  let page = await browser.open(oauth.authorizationUrl);
  if (page.status === 200 && page.body.includes('name="decision"')) {
    page = await browser.submit(page, { decision: 'approve' });
  }
  if (!page.url.href.startsWith(REDIRECT))
    throw new Error(`sign-in failed: ${page.status} ${page.body.slice(0, 200)}`);
  await first.finishAuth(page.url.searchParams);
  const ms = performance.now() - t0;
  if (!registered) registrations.set(new URL(url).origin, oauth.clientInformation());
  return { ms, token: oauth.tokens().access_token, userId: `basecamp:${id}` };
}

// ---------------------------------------------------------------------------------------
// The load driver: keep-alive node:http, stateless tools/call POSTs with a bearer token.

let callId = 0;
async function call(agent, port, token) {
  const id = ++callId;
  const response = await postMcp(
    agent,
    port,
    { jsonrpc: '2.0', id, method: 'tools/call', params: TOOL },
    { headers: { authorization: `Bearer ${token}` }, timeoutMs: 30_000 },
  );
  if (response.status !== 200) return false;
  const line = response.text.split('\n').find((part) => part.startsWith('data:'));
  const message = JSON.parse(line ? line.slice(5) : response.text);
  return message.id === id && message.result && !message.result.isError;
}

/** `tokens.length` loops (one per user), back to back, for `seconds`. */
async function load(port, tokens, seconds, shared) {
  const agent = shared ?? new Agent({ keepAlive: true, maxSockets: tokens.length });
  const end = performance.now() + seconds * 1000;
  let ok = 0;
  let failed = 0;
  await Promise.all(
    tokens.map(async (token) => {
      while (performance.now() < end) {
        let success = false;
        try {
          success = await call(agent, port, token);
        } catch {}
        if (performance.now() > end) break;
        if (success) ok++;
        else failed++;
      }
    }),
  );
  if (!shared) agent.destroy();
  return { callsPerSecond: ok / seconds, ok, failed };
}

const VCPUS = availableParallelism();
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** User + system CPU seconds of the server processes so far. */
async function cpuSeconds(children) {
  const { readFile } = await import('node:fs/promises');
  let total = 0;
  for (const child of children) {
    const stat = await readFile(`/proc/${child.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    total += (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  }
  return total;
}

/**
 * Where the server processes' CPU went, by thread (the JavaScript thread, the helper threads) and
 * user/system, with the JavaScript thread's CPU
 * migrations and context switches: a round's line shows them, so a slow process can be told apart
 * from a slow machine.
 */
async function cpuDetail(children) {
  const { readFile, readdir } = await import('node:fs/promises');
  const detail = { user: 0, system: 0, main: 0, helpers: 0, migrations: 0, switches: 0, faults: 0 };
  for (const child of children) {
    for (const tid of await readdir(`/proc/${child.pid}/task`).catch(() => [])) {
      const stat = await readFile(`/proc/${child.pid}/task/${tid}/stat`, 'utf8').catch(() => '');
      if (!stat) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const user = Number(fields[11]) / CLOCK_TICKS;
      const system = Number(fields[12]) / CLOCK_TICKS;
      detail.faults += Number(fields[7]);
      detail.user += user;
      detail.system += system;
      // Node names every thread `node`: the JavaScript thread is the one whose id is the pid; the
      // others are V8's platform workers (concurrent GC marking, compilation) and libuv's pool.
      const kind = Number(tid) === child.pid ? 'main' : 'helpers';
      detail[kind] += user + system;
      if (kind === 'main') {
        const sched = await readFile(`/proc/${child.pid}/task/${tid}/sched`, 'utf8').catch(() => '');
        const field = (name) => Number(new RegExp(`^${name}\\s*:\\s*(\\d+)`, 'm').exec(sched)?.[1] ?? 0);
        detail.migrations += field('se.nr_migrations');
        detail.switches += field('nr_switches');
      }
    }
  }
  return detail;
}

function detailPerCall(before, after, calls) {
  const per = (name, scale) => ((after[name] - before[name]) / calls) * scale;
  return `user ${fmt(per('user', 1e6), 0)} / sys ${fmt(per('system', 1e6), 0)} µs; JS thread ${fmt(per('main', 1e6), 0)}, helper threads ${fmt(per('helpers', 1e6), 0)} µs; JS thread ${fmt(per('migrations', 1), 2)} migrations, ${fmt(per('switches', 1), 2)} switches per call`;
}

/** Commands Redis has processed so far, by command (`INFO commandstats`). */
function redisCommands() {
  const info = execFileSync('redis-cli', ['-p', String(redis.port), 'info', 'commandstats'], {
    encoding: 'utf8',
  });
  return Object.fromEntries(
    [...info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((m) => [m[1], Number(m[2])]),
  );
}

function commandsPerCall(before, after, calls) {
  const rows = Object.entries(after)
    .map(([name, count]) => [name, (count - (before[name] ?? 0)) / calls])
    .filter(([, per]) => per >= 0.005)
    .sort((x, y) => y[1] - x[1]);
  return `Redis commands per call: ${rows.length ? rows.map(([name, per]) => `${name} ${fmt(per, 2)}`).join(', ') : 'none'}`;
}

/** Redis's own user + system CPU seconds so far (`INFO cpu`). */
function redisCpuSeconds() {
  const info = execFileSync('redis-cli', ['-p', String(redis.port), 'info', 'cpu'], { encoding: 'utf8' });
  const field = (name) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return field('used_cpu_user') + field('used_cpu_sys');
}

async function readRss(pid) {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]) * 1024;
}

async function scrape(port) {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  const text = await response.text();
  const metric = (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  return {
    heapUsed: metric('nodejs_heap_used_bytes'),
    users: metric('mcp_hosted_user_registries'),
    text,
  };
}

// ---------------------------------------------------------------------------------------
// Throughput: each setup started, warmed up, measured; rounds interleave the setups.

const SETUPS = [
  { name: 'token, metrics off', mode: 'token', env: { MCP_METRICS: 'off' } },
  { name: 'token, metrics on (default)', mode: 'token', env: {} },
  { name: 'token, metrics + JSON logs', mode: 'token', env: { MCP_LOG_FORMAT: 'json' } },
  {
    name: 'oauth + Redis, 1 replica, JSON logs',
    mode: 'oauth',
    replicas: 1,
    env: { MCP_LOG_FORMAT: 'json' },
    jsonLogsOnly: true,
  },
  // Issue #23's like for like: the same audit log (a file) on both sides.
  {
    name: 'token, metrics + JSON logs, audit file',
    mode: 'token',
    env: { MCP_LOG_FORMAT: 'json', MCP_AUDIT: 'file:{home}/audit.jsonl' },
    jsonLogsOnly: true,
  },
  {
    name: 'oauth + Redis, 1 replica, JSON logs, audit file',
    mode: 'oauth',
    replicas: 1,
    env: { MCP_LOG_FORMAT: 'json', MCP_AUDIT: 'file:{home}/audit.jsonl' },
    jsonLogsOnly: true,
  },
  {
    name: 'oauth + Redis, 1 replica, JSON logs, audit off',
    mode: 'oauth',
    replicas: 1,
    env: { MCP_LOG_FORMAT: 'json', MCP_AUDIT: 'off' },
    jsonLogsOnly: true,
  },
  {
    name: 'token, metrics + JSON logs + traces',
    mode: 'token',
    env: { MCP_LOG_FORMAT: 'json', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
  },
  // The oauth setups write the audit log as a Redis store's default does (the stream), unless named.
  { name: 'oauth + Redis, 1 replica', mode: 'oauth', replicas: 1, env: {} },
  { name: 'oauth + Redis, 1 replica, audit off', mode: 'oauth', replicas: 1, env: { MCP_AUDIT: 'off' } },
  {
    name: 'oauth + Redis, 1 replica, audit file',
    mode: 'oauth',
    replicas: 1,
    env: { MCP_AUDIT: 'file:{home}/audit.jsonl' },
  },
  { name: 'oauth + Redis, 2 replicas behind a proxy', mode: 'oauth', replicas: 2, env: {} },
  { name: 'token, 1 replica behind the same proxy', mode: 'token', replicas: 1, proxied: true, env: {} },
];

/** A setup's servers started, its users signed in and every registry warmed up. */
async function prepareSetup(setup) {
  const children = [];
  const proxied = setup.replicas === 2 || setup.proxied;
  const replicaPorts = await Promise.all(Array.from({ length: setup.replicas ?? 1 }, () => freePort()));
  let proxy;
  let publicPort = replicaPorts[0];
  if (proxied) {
    proxy = await startProxy(replicaPorts);
    publicPort = proxy.port;
  }
  const close = async () => {
    for (const child of children) await stop(child, { signal: 'SIGTERM' });
    await proxy?.close();
  };
  try {
    for (const port of replicaPorts) {
      children.push(
        await startServer({
          ...(setup.bin ? { bin: setup.bin } : {}),
          mode: setup.mode,
          port,
          publicUrl: `http://127.0.0.1:${publicPort}`,
          env: setup.env,
        }),
      );
    }
    let tokens;
    if (setup.mode === 'oauth') {
      const people = [];
      for (let index = 0; index < Number(flags['signed-in'] ?? config.concurrency); index++) {
        people.push((await signIn(`http://127.0.0.1:${publicPort}/mcp`)).token);
      }
      tokens = Array.from({ length: config.concurrency }, (_, index) => people[index % people.length]);
    } else {
      tokens = Array.from({ length: config.concurrency }, () => HTTP_TOKEN);
    }
    // Every user's registry built on every replica before the clock starts.
    const warmAgent = new Agent({ keepAlive: true });
    for (let pass = 0; pass < 2 * (setup.replicas ?? 1); pass++) {
      await Promise.all(tokens.map((token) => call(warmAgent, publicPort, token)));
    }
    warmAgent.destroy();
    await load(publicPort, tokens, config.warmupSeconds);
    return { children, publicPort, tokens, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function runSetup(setup) {
  const { children, publicPort, tokens, close } = await prepareSetup(setup);
  try {
    await toggleProfiles(children, 'started');
    const cpuBefore = await cpuSeconds(children);
    const detailBefore = await cpuDetail(children);
    const ownBefore = process.cpuUsage();
    const redisBefore = redisCpuSeconds();
    const commandsBefore = redisCommands();
    const measured = await load(publicPort, tokens, config.seconds);
    const commands = commandsPerCall(commandsBefore, redisCommands(), measured.ok);
    const cpu = (await cpuSeconds(children)) - cpuBefore;
    const detail = detailPerCall(detailBefore, await cpuDetail(children), measured.ok);
    const own = process.cpuUsage(ownBefore);
    const redisCpu = redisCpuSeconds() - redisBefore;
    // Everything on this machine that serves the calls: the servers, this process (the client
    // loops, the proxy, the fake Basecamp) and Redis. The vCPUs divided by it bound the calls/s.
    const allCpu = cpu + (own.user + own.system) / 1e6 + redisCpu;
    await toggleProfiles(children, 'done');
    fake.resetLog();
    const gc = flags['gc-stats'] ? await gcSummary(children, measured.ok) : '';
    return {
      ...measured,
      cpuMicrosPerCall: (cpu / measured.ok) * 1e6,
      allCpuMicrosPerCall: (allCpu / measured.ok) * 1e6,
      detail: [detail, commands, gc].filter(Boolean).join('\n      '),
    };
  } finally {
    await close();
  }
}

/**
 * --interleaved: two setups' servers up at once (fresh processes each round), measured in
 * alternating slices of `slice` seconds for the whole window, so both see the same machine from
 * moment to moment (another process's burst, the host's scheduling) and only their own code
 * separates them. Each gets the whole load while its slice runs; the other idles.
 */
async function runInterleaved(first, second, slice) {
  const a = await prepareSetup(first);
  let b;
  try {
    b = await prepareSetup(second);
    const sides = [a, b].map((side) => ({
      ...side,
      agent: new Agent({ keepAlive: true, maxSockets: side.tokens.length }),
      ok: 0,
      failed: 0,
      seconds: 0,
      cpu: 0,
      driverCpu: 0,
      helpers: 0,
      system: 0,
      faults: 0,
    }));
    const slices = Math.max(2, Math.round(config.seconds / slice));
    await toggleProfiles([...a.children, ...b.children], 'started');
    for (let index = 0; index < slices; index++) {
      // ABBA order: neither side always follows the other.
      for (const side of index % 2 === 0 ? sides : [...sides].reverse()) {
        const cpuBefore = await cpuSeconds(side.children);
        const detailBefore = await cpuDetail(side.children);
        const driverBefore = process.cpuUsage();
        const t0 = performance.now();
        const measured = await load(side.publicPort, side.tokens, slice, side.agent);
        side.seconds += (performance.now() - t0) / 1000;
        const driver = process.cpuUsage(driverBefore);
        side.driverCpu += (driver.user + driver.system) / 1e6;
        side.cpu += (await cpuSeconds(side.children)) - cpuBefore;
        const detailAfter = await cpuDetail(side.children);
        side.helpers += detailAfter.helpers - detailBefore.helpers;
        side.system += detailAfter.system - detailBefore.system;
        side.faults += detailAfter.faults - detailBefore.faults;
        side.ok += measured.ok;
        side.failed += measured.failed;
      }
    }
    await toggleProfiles([...a.children, ...b.children], 'done');
    for (const side of sides) side.agent.destroy();
    fake.resetLog();
    return sides.map((side) => ({
      callsPerSecond: side.ok / side.seconds,
      cpuMicrosPerCall: (side.cpu / side.ok) * 1e6,
      driverMicrosPerCall: (side.driverCpu / side.ok) * 1e6,
      helperMicrosPerCall: (side.helpers / side.ok) * 1e6,
      systemMicrosPerCall: (side.system / side.ok) * 1e6,
      faultsPerCall: side.faults / side.ok,
      failed: side.failed,
      calls: side.ok,
    }));
  } finally {
    await b?.close();
    await a.close();
  }
}

/** --gc-stats: a round's collections per 1,000 calls and their pause time per call, and the heap's spaces. */
async function gcSummary(children, calls) {
  const { readFile } = await import('node:fs/promises');
  const parts = [];
  for (const child of children) {
    const stats = JSON.parse(await readFile(profiles.get(child), 'utf8'));
    const kinds = Object.entries(stats.gc)
      .map(
        ([kind, { count, ms }]) =>
          `${kind} ${fmt((count / calls) * 1000, 1)}/1k calls ${fmt((ms / calls) * 1000, 0)} µs/call`,
      )
      .join(', ');
    const space = (name) => stats.heapKiB[name] ?? 0;
    // With bench/promise-count-preload.mjs loaded too: the promises of the phase.
    const promises = Number(
      await readFile(`${profiles.get(child)}.promises`, 'utf8').catch(() => Number.NaN),
    );
    parts.push(
      `GC: ${kinds}; new space ${fmt(space('new_space') / 1024, 1)} MiB, old ${fmt(space('old_space') / 1024, 1)} MiB, heap used ${fmt(stats.heap.used_heap_size / 2 ** 20, 1)} MiB${Number.isNaN(promises) ? '' : `; ${fmt(promises / calls, 0)} promises per call`}`,
    );
  }
  return parts.join('\n      ');
}

/** --cpu-prof, --gc-stats: starts or stops each server's profiler or count (SIGUSR2) and waits until it has. */
async function toggleProfiles(children, marker) {
  if (!flags['cpu-prof'] && !flags['alloc-prof'] && !flags['gc-stats']) return;
  const { access } = await import('node:fs/promises');
  for (const child of children) {
    const file = `${profiles.get(child)}.${marker}`;
    process.kill(child.pid, 'SIGUSR2');
    for (;;) {
      try {
        await access(file);
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  }
}

log(`hosted bench: ${JSON.stringify(config)}, Node ${process.version}`);
// --json-logs: the four setups that price a JSON log line, in the token and the oauth mode.
const JSON_LOG_PAIRS = [
  { mode: 'token', text: 'token, metrics on (default)', json: 'token, metrics + JSON logs' },
  { mode: 'oauth', text: 'oauth + Redis, 1 replica', json: 'oauth + Redis, 1 replica, JSON logs' },
];
// Issue #23's ratio: the oauth mode with JSON logs ÷ the token mode with JSON logs. By default the
// oauth mode writes an audit log (the Redis stream) and the token mode none; like for like, both
// write one to a file, or the oauth mode none.
const OAUTH_VS_TOKEN = [
  { token: 'token, metrics + JSON logs', oauth: 'oauth + Redis, 1 replica, JSON logs' },
  { token: 'token, metrics + JSON logs', oauth: 'oauth + Redis, 1 replica, JSON logs, audit off' },
  {
    token: 'token, metrics + JSON logs, audit file',
    oauth: 'oauth + Redis, 1 replica, JSON logs, audit file',
  },
];
const jsonLogSetups = new Set([
  ...JSON_LOG_PAIRS.flatMap((pair) => [pair.text, pair.json]),
  ...OAUTH_VS_TOKEN.flatMap((pair) => [pair.token, pair.oauth]),
]);
// --audit: the three setups that price the audit log.
const AUDIT_OFF = 'oauth + Redis, 1 replica, audit off';
const AUDIT_ON = ['oauth + Redis, 1 replica', 'oauth + Redis, 1 replica, audit file'];
const auditSetups = new Set([AUDIT_OFF, ...AUDIT_ON]);
const ownSetups = flags['json-logs']
  ? SETUPS.filter((setup) => jsonLogSetups.has(setup.name))
  : flags.audit
    ? SETUPS.filter((setup) => auditSetups.has(setup.name))
    : SETUPS.filter((setup) => !setup.jsonLogsOnly);
const ALL_SETUPS = [...SETUPS];
SETUPS.splice(0, SETUPS.length, ...ownSetups);
// --baseline <checkout>: the oauth setups once more on another build (e.g. the commit before a change);
// with --json-logs, all four JSON-log setups.
const labels = [''];
for (const checkout of flags.baseline ?? []) {
  const bin = join(checkout, 'apps/server/dist/bin.js');
  const label = checkout.replace(/\/+$/, '').split('/').at(-1);
  labels.push(`${label}: `);
  for (const setup of ownSetups.filter((candidate) => flags['json-logs'] || candidate.mode === 'oauth')) {
    SETUPS.push({ ...setup, name: `${label}: ${setup.name}`, bin });
  }
}
// --only a --only b: the setups whose name contains any of the texts.
const only = flags.only?.length ? flags.only : undefined;
const chosen = SETUPS.filter((setup) => !only || only.some((text) => setup.name.includes(text)));
const samples = Object.fromEntries(chosen.map((setup) => [setup.name, []]));
const cpuSamples = Object.fromEntries(chosen.map((setup) => [setup.name, []]));
const allCpuSamples = Object.fromEntries(chosen.map((setup) => [setup.name, []]));
for (let round = 0; round < (flags.interleaved ? 0 : config.rounds); round++) {
  const order = round % 2 === 0 ? chosen : [...chosen].reverse();
  for (const setup of order) {
    const result = await runSetup(setup);
    samples[setup.name].push(result.callsPerSecond);
    cpuSamples[setup.name].push(result.cpuMicrosPerCall);
    allCpuSamples[setup.name].push(result.allCpuMicrosPerCall);
    log(
      `  round ${round + 1} ${setup.name}: ${fmt(result.callsPerSecond)} calls/s, ${fmt(result.cpuMicrosPerCall, 0)} µs server CPU per call, ${fmt(result.allCpuMicrosPerCall, 0)} µs all processes (ceiling on ${VCPUS} vCPUs: ${fmt((VCPUS * 1e6) / result.allCpuMicrosPerCall, 0)} calls/s) (${result.failed} failed)\n      ${result.detail}`,
    );
  }
}
results.cpu = {};
for (const [name, values] of Object.entries(samples)) results.throughput[name] = median(values);
for (const [name, values] of Object.entries(cpuSamples)) results.cpu[name] = median(values);
results.allCpu = {};
for (const [name, values] of Object.entries(allCpuSamples)) results.allCpu[name] = median(values);

// --interleaved: issue #23's ratio with both servers measured in alternating slices.
if (flags.interleaved) {
  const slice = Number(flags.slice ?? 0.25);
  const setup = (name) => ALL_SETUPS.find((candidate) => candidate.name === name);
  results.interleaved = [];
  for (const pair of OAUTH_VS_TOKEN.filter(
    (candidate) => !only || only.some((text) => candidate.oauth.includes(text)),
  )) {
    const ratios = [];
    const cpuRatios = [];
    for (let round = 0; round < config.rounds; round++) {
      const [token, oauth] =
        round % 2 === 0
          ? await runInterleaved(setup(pair.token), setup(pair.oauth), slice)
          : (await runInterleaved(setup(pair.oauth), setup(pair.token), slice)).reverse();
      ratios.push(oauth.callsPerSecond / token.callsPerSecond);
      cpuRatios.push(oauth.cpuMicrosPerCall / token.cpuMicrosPerCall);
      log(
        `  round ${round + 1} ${pair.oauth} ÷ ${pair.token}: ${fmt(oauth.callsPerSecond)} ÷ ${fmt(token.callsPerSecond)} calls/s = ${fmt(ratios.at(-1), 3)}×; server CPU per call ${fmt(oauth.cpuMicrosPerCall, 0)} ÷ ${fmt(token.cpuMicrosPerCall, 0)} µs = ${fmt(cpuRatios.at(-1), 3)}× (helper threads ${fmt(oauth.helperMicrosPerCall, 0)} ÷ ${fmt(token.helperMicrosPerCall, 0)}, system ${fmt(oauth.systemMicrosPerCall, 0)} ÷ ${fmt(token.systemMicrosPerCall, 0)}, page faults ${fmt(oauth.faultsPerCall, 1)} ÷ ${fmt(token.faultsPerCall, 1)}); this driver and its fakes ${fmt(oauth.driverMicrosPerCall, 0)} ÷ ${fmt(token.driverMicrosPerCall, 0)} µs per call (${oauth.calls} and ${token.calls} calls, ${oauth.failed + token.failed} failed)`,
      );
    }
    results.interleaved.push({ ...pair, ratios, cpuRatios, slice });
  }
}

// ---------------------------------------------------------------------------------------
// Revocation across replicas: two replicas on one Redis, each holding a signed-in user's grant
// and connection in memory; an admin revokes the user through the store (as `users revoke` does
// from another process); how long until the other replica refuses the user's token, and how many
// of its answers after the revoke still admitted it.

if (config.revocations > 0) {
  const ports = [await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${ports[0]}`;
  const children = [];
  const admin = await createStore(redis.url);
  const keyring = Keyring.fromSecrets({ secret: SECRET });
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const latencies = [];
  let admittedAfter = 0;
  try {
    for (const port of ports) children.push(await startServer({ mode: 'oauth', port, publicUrl }));
    for (let trial = 0; trial < config.revocations; trial++) {
      const user = await signIn(`${publicUrl}/mcp`);
      // Both replicas have verified the token and keep the grant and connection in memory.
      for (const port of ports)
        for (let pass = 0; pass < 2; pass++)
          if (!(await call(agent, port, user.token))) throw new Error('a call before the revoke failed');
      await revokeUser(admin, keyring, user.userId);
      const revoked = performance.now();
      for (;;) {
        if (!(await call(agent, ports[1], user.token))) break;
        admittedAfter++;
        if (performance.now() - revoked > 10_000)
          throw new Error('the other replica still admits after 10 s');
      }
      // From the revoke's completion (the admin command returns) to the other replica's refusal.
      latencies.push(performance.now() - revoked);
    }
    results.revocation = {
      trials: latencies.length,
      medianMs: median(latencies),
      p99Ms: quantile(latencies, 0.99),
      maxMs: Math.max(...latencies),
      admittedAfterRevoke: admittedAfter,
    };
    log(
      `  revocation across replicas: median ${fmt(results.revocation.medianMs)} ms, p99 ${fmt(results.revocation.p99Ms)} ms, ${admittedAfter} calls admitted after a revoke returned`,
    );
  } finally {
    agent.destroy();
    for (const child of children) await stop(child, { signal: 'SIGTERM' });
    await admin.close();
  }
}

// ---------------------------------------------------------------------------------------
// Memory per signed-in user, one replica: sign users in (each makes one call, which builds the
// user's registry and Basecamp client), read RSS and heap at each checkpoint.

if (!flags['no-memory']) {
  const port = await freePort();
  // --gc-heap: a heap snapshot on SIGUSR2 collects garbage first, so the heap figures hold live
  // objects only (without it they swing with whatever garbage is pending). Writing one grows the
  // process, so RSS after the first checkpoint is not comparable then.
  const snapshots = await mkdtemp(join(tmpdir(), 'x-bench-heap-'));
  const child = await startServer({
    mode: 'oauth',
    port,
    publicUrl: `http://127.0.0.1:${port}`,
    env: flags['gc-heap']
      ? { NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshots}` }
      : {},
  });
  const collectGarbage = async () => {
    if (!flags['gc-heap']) return;
    const { readdir, stat: statFile, rm } = await import('node:fs/promises');
    child.kill('SIGUSR2');
    const deadline = performance.now() + 60_000;
    let last = -1;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const files = (await readdir(snapshots)).filter((name) => name.endsWith('.heapsnapshot'));
      const size = files.length ? (await statFile(join(snapshots, files[0]))).size : -1;
      if (size > 0 && size === last) break;
      last = size;
      if (performance.now() > deadline) throw new Error('no heap snapshot within 60 s');
    }
    // The file is complete once its size stops changing; drop it.
    await rm(snapshots, { recursive: true, force: true });
    mkdirSync(snapshots, { recursive: true });
  };
  const url = `http://127.0.0.1:${port}/mcp`;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    // One user first, so that what every first user loads (oidc-provider paths, Basecamp code) is
    // not charged to the first checkpoint.
    const warm = await signIn(url);
    await call(agent, port, warm.token);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // RSS before the snapshot (writing one grows the process), heap after it.
    const baseRss = await readRss(child.pid);
    await collectGarbage();
    const base = { rss: baseRss, ...(await scrape(port)) };
    results.memory.push({ users: 0, rss: base.rss, heapUsed: base.heapUsed, held: base.users });
    const latencies = [];
    let signedIn = 0;
    for (const checkpoint of config.users) {
      while (signedIn < checkpoint) {
        const user = await signIn(url);
        latencies.push(user.ms);
        if (!(await call(agent, port, user.token))) throw new Error('a signed-in user’s call failed');
        signedIn++;
        if (signedIn % 100 === 0) log(`  ${signedIn} users signed in`);
      }
      fake.resetLog();
      await new Promise((resolve) => setTimeout(resolve, 500));
      const rss = await readRss(child.pid);
      await collectGarbage();
      const now = { rss, ...(await scrape(port)) };
      results.memory.push({ users: checkpoint, rss: now.rss, heapUsed: now.heapUsed, held: now.users });
      log(
        `  ${checkpoint} users: RSS ${fmt(now.rss / 2 ** 20)} MiB, heap ${fmt(now.heapUsed / 2 ** 20)} MiB, registries held ${now.users}`,
      );
    }
    results.signIn = {
      count: latencies.length,
      medianMs: median(latencies),
      p90Ms: quantile(latencies, 0.9),
      first10MedianMs: median(latencies.slice(0, 10)),
      last100MedianMs: median(latencies.slice(-100)),
    };
  } catch (error) {
    log(
      `memory run failed: ${error?.stack ?? error}\nserver exit ${child.exitCode} ${child.signalCode}, stderr tail:\n${child.stderrTail}`,
    );
    throw error;
  } finally {
    agent.destroy();
    await stop(child, { signal: 'SIGTERM' });
  }
}

// ---------------------------------------------------------------------------------------
// Report.

const token = results.throughput['token, metrics on (default)'] ?? Number.NaN;
const off = results.throughput['token, metrics off'] ?? Number.NaN;
const tokenCpu = results.cpu['token, metrics on (default)'] ?? Number.NaN;
const offCpu = results.cpu['token, metrics off'] ?? Number.NaN;
const rows = [
  `| setup | calls/s (median) | ÷ token mode (metrics on) | ÷ metrics off | server CPU per call (µs, median) | ÷ token mode | ÷ metrics off | all processes' CPU per call (µs) | ceiling on ${VCPUS} vCPUs (calls/s) |`,
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...Object.entries(results.throughput).map(([name, value]) => {
    const cpu = results.cpu[name];
    const all = results.allCpu[name];
    return `| ${name} | ${fmt(value, 0)} | ${fmt(value / token, 2)}× | ${fmt(value / off, 2)}× | ${fmt(cpu, 0)} | ${fmt(cpu / tokenCpu, 2)}× | ${fmt(cpu / offCpu, 2)}× | ${fmt(all, 0)} | ${fmt((VCPUS * 1e6) / all, 0)} |`;
  }),
];
const base = results.memory[0] ?? {};
const memoryRows = [
  '| signed-in users | registries held | RSS (MiB) | heap used (MiB) | RSS per user over 0 (KiB) | heap per user over 0 (KiB) | heap per user added since the row above (KiB) |',
  '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...results.memory
    .map((row, index) => {
      const previous = results.memory[index - 1];
      const users = previous ? row.users - previous.users : 0;
      return [
        row.users,
        row.held,
        fmt(row.rss / 2 ** 20),
        fmt(row.heapUsed / 2 ** 20),
        row.users ? fmt((row.rss - base.rss) / row.users / 1024, 0) : '–',
        row.users ? fmt((row.heapUsed - base.heapUsed) / row.users / 1024, 0) : '–',
        users ? fmt((row.heapUsed - previous.heapUsed) / users / 1024, 0) : '–',
      ].join(' | ');
    })
    .map((line) => `| ${line} |`),
];
const s = results.signIn;
const signInRows =
  s.count === undefined
    ? []
    : [
        '| sign-ins | median (ms) | p90 (ms) | first 10, median | last 100, median |',
        '| ---: | ---: | ---: | ---: | ---: |',
        `| ${s.count} | ${fmt(s.medianMs)} | ${fmt(s.p90Ms)} | ${fmt(s.first10MedianMs)} | ${fmt(s.last100MedianMs)} |`,
      ];
const r = results.revocation;
const revocationRows = r
  ? [
      '| revocations (2 replicas) | median (ms) | p99 (ms) | max (ms) | calls admitted after a revoke returned |',
      '| ---: | ---: | ---: | ---: | ---: |',
      `| ${r.trials} | ${fmt(r.medianMs)} | ${fmt(r.p99Ms)} | ${fmt(r.maxMs)} | ${r.admittedAfterRevoke} |`,
    ]
  : [];
// --json-logs: what the JSON line costs, per mode and build, as ratios within this run.
const jsonRows = [];
if (flags['json-logs']) {
  jsonRows.push(
    '| build | mode | calls/s text | calls/s JSON | JSON ÷ text (calls/s) | server CPU per call text (µs) | JSON (µs) | + per call (µs) | JSON ÷ text CPU, paired by round (median) |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  // Both setups of a pair run in every round, minutes apart at most: the ratio within a round
  // cancels most of what other processes on the machine did to that round.
  const paired = (text, json) =>
    median((cpuSamples[json] ?? []).map((value, round) => value / cpuSamples[text][round]));
  for (const label of labels) {
    for (const pair of JSON_LOG_PAIRS) {
      const text = results.throughput[label + pair.text];
      const json = results.throughput[label + pair.json];
      if (text === undefined || json === undefined) continue;
      const textCpu = results.cpu[label + pair.text];
      const jsonCpu = results.cpu[label + pair.json];
      jsonRows.push(
        `| ${label.replace(/: $/, '') || 'this checkout'} | ${pair.mode} | ${fmt(text, 0)} | ${fmt(json, 0)} | ${fmt(json / text, 2)}× | ${fmt(textCpu, 0)} | ${fmt(jsonCpu, 0)} | ${fmt(jsonCpu - textCpu, 0)} | ${fmt(paired(label + pair.text, label + pair.json), 3)}× |`,
      );
    }
  }
  jsonRows.push(
    '',
    '| build | oauth setup | token setup | oauth ÷ token (calls/s, paired by round, median) | server CPU per call, oauth ÷ token (paired) |',
    '| --- | --- | --- | ---: | ---: |',
  );
  for (const label of labels) {
    for (const pair of OAUTH_VS_TOKEN) {
      const [token, oauth] = [label + pair.token, label + pair.oauth];
      if (samples[token] === undefined || samples[oauth] === undefined) continue;
      const calls = median(samples[oauth].map((value, round) => value / samples[token][round]));
      const cpu = median((cpuSamples[oauth] ?? []).map((value, round) => value / cpuSamples[token][round]));
      jsonRows.push(
        `| ${label.replace(/: $/, '') || 'this checkout'} | ${pair.oauth} | ${pair.token} | ${fmt(calls, 3)}× | ${fmt(cpu, 3)}× |`,
      );
    }
  }
  results.jsonLogs = jsonRows;
}
// The audit log: calls/s and server CPU with it on (stream, file) against off, paired by round.
const auditRows = [];
for (const label of labels) {
  const offName = label + AUDIT_OFF;
  if (results.throughput[offName] === undefined) continue;
  if (auditRows.length === 0) {
    auditRows.push(
      '| build | audit | calls/s | ÷ audit off (calls/s, paired by round, median) | server CPU per call (µs) | + per call over off (µs) |',
      '| --- | --- | ---: | ---: | ---: | ---: |',
    );
  }
  for (const name of [AUDIT_OFF, ...AUDIT_ON]) {
    const full = label + name;
    if (results.throughput[full] === undefined) continue;
    const paired = median((samples[full] ?? []).map((value, round) => value / samples[offName][round]));
    const sink = name === AUDIT_OFF ? 'off' : name.endsWith('file') ? 'file' : 'redis stream (default)';
    auditRows.push(
      `| ${label.replace(/: $/, '') || 'this checkout'} | ${sink} | ${fmt(results.throughput[full], 0)} | ${fmt(paired, 3)}× | ${fmt(results.cpu[full], 0)} | ${fmt(results.cpu[full] - results.cpu[offName], 0)} |`,
    );
  }
}
results.audit = auditRows;
// --interleaved: per pair, the median over rounds of oauth ÷ token, each round's own processes.
const interleavedRows = (results.interleaved ?? []).length
  ? [
      '| oauth setup | token setup | rounds | oauth ÷ token, calls/s (median; min–max) | server CPU per call, oauth ÷ token (median) |',
      '| --- | --- | ---: | ---: | ---: |',
      ...results.interleaved.map(
        (pair) =>
          `| ${pair.oauth} | ${pair.token} | ${pair.ratios.length} | ${fmt(median(pair.ratios), 3)}× (${fmt(Math.min(...pair.ratios), 2)}–${fmt(Math.max(...pair.ratios), 2)}) | ${fmt(median(pair.cpuRatios), 3)}× |`,
      ),
      '',
    ]
  : [];
const markdown = [
  ...interleavedRows,
  ...rows,
  '',
  ...auditRows,
  ...(auditRows.length ? [''] : []),
  ...jsonRows,
  ...(jsonRows.length ? [''] : []),
  ...revocationRows,
  ...(revocationRows.length ? [''] : []),
  ...memoryRows,
  '',
  ...signInRows,
].join('\n');
results.markdown = markdown;
results.collectorExports = collector.exports();
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, 'bench/results/hosted.json'), `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`${markdown}\n`);
log(`trace exports received by the fake collector: ${collector.exports()}`);

await fake.close();
await redis.stop();
collector.close();
process.exit(0);
