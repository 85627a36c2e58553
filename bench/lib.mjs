// Shared by the benchmarks (run.mjs, providers.mjs): process bookkeeping with optional CPU
// pinning, a raw NDJSON stdio driver, cold-start measurement, and statistics.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const PROTOCOL_VERSION = '2025-11-25';
export const COLD_LIMIT_MS = 20_000;

// ---------------------------------------------------------------------------------------
// Process bookkeeping: every child is tracked, bounded in time, and killed on the way out.

const children = new Set();

/**
 * CPU pinning: this driver on CPU 0, every measured server on CPU 1 (when there are two CPUs
 * and `taskset` exists). Unpinned, a sequential ping-pong between two processes swings by
 * ±30% from run to run depending on where the scheduler puts them; pinned, by a few percent.
 */
export let pinning = false;

/** Pins this process to CPU 0 (servers started later go to CPU 1) when asked and possible. */
export function usePinning(enabled) {
  pinning = false;
  if (!enabled || os.availableParallelism() < 2) return pinning;
  try {
    execFileSync('taskset', ['-cp', '0', String(process.pid)], { stdio: 'ignore' });
    pinning = true;
  } catch {
    pinning = false;
  }
  return pinning;
}

/** The command that runs `node ...args` on the server CPU. */
export const serverCommand = (args) =>
  pinning ? ['taskset', ['-c', '1', process.execPath, ...args]] : [process.execPath, args];

export function start(args, { stderr = 'pipe', env = {} } = {}) {
  // taskset execs node in place, so child.pid is the server's pid.
  const [command, commandArgs] = serverCommand(args);
  const child = spawn(command, commandArgs, {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', stderr],
    env: { ...process.env, NODE_OPTIONS: '', ...env },
  });
  children.add(child);
  child.stderrTail = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text) => {
    child.stderrTail = (child.stderrTail + text).slice(-2000);
  });
  child.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.once('exit', () => children.delete(child));
  child.stdin.on('error', () => {});
  return child;
}

/** Waits for the child to exit; SIGKILL after `ms`. */
export async function stop(child, { signal, ms = 5000 } = {}) {
  if (child.exitCode !== null || child.signalCode !== null) return child.exited;
  if (signal) child.kill(signal);
  else child.stdin.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  const result = await child.exited;
  clearTimeout(timer);
  return result;
}

function killAll() {
  for (const child of children) child.kill('SIGKILL');
}

/** Kills every child on exit or signal, and aborts the whole run after `limitMs`. */
export function guardRun(limitMs) {
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      killAll();
      process.exit(130);
    });
  }
  setTimeout(() => {
    console.error(`Benchmark exceeded ${limitMs / 60_000} minutes; aborting.`);
    killAll();
    process.exit(1);
  }, limitMs).unref();
}

// ---------------------------------------------------------------------------------------
// The raw stdio driver: NDJSON lines in, responses matched by id.

export class StdioDriver {
  constructor(args, options) {
    this.child = start(args, options);
    this.pending = new Map();
    this.nextId = 1;
    let buffer = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk) => {
      buffer += chunk;
      for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.trim()) this.#onLine(line);
      }
    });
    this.child.once('exit', (code, signal) => {
      const error = new Error(
        `server exited (code ${code}, signal ${signal}) with requests pending; stderr: ${this.child.stderrTail}`,
      );
      for (const { reject } of this.pending.values()) reject(error);
      this.pending.clear();
    });
  }

  #onLine(line) {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      this.fail(new Error(`server wrote a non-JSON line to stdout: ${line.slice(0, 200)}`));
      return;
    }
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    if (message.error) waiter.reject(new Error(`JSON-RPC error: ${JSON.stringify(message.error)}`));
    else waiter.resolve(message.result);
  }

  /** Rejects every pending request and kills the server. */
  fail(error) {
    for (const { reject } of this.pending.values()) reject(error);
    this.pending.clear();
    this.child.kill('SIGKILL');
  }

  /** Runs `phase`, failing it if it takes longer than `ms` (one timer per phase, not per request). */
  async bounded(ms, what, phase) {
    const timer = setTimeout(() => this.fail(new Error(`${what} took longer than ${ms / 1000} s`)), ms);
    try {
      return await phase();
    } finally {
      clearTimeout(timer);
    }
  }

  /** Writes one frame without waiting. */
  write(message) {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Resolves with the result of request `id`. No timer per request: `bounded` limits a whole phase. */
  wait(id) {
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  request(method, params) {
    const id = this.nextId++;
    const answered = this.wait(id);
    this.write({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    return answered;
  }
}

export const initializeParams = {
  protocolVersion: PROTOCOL_VERSION,
  capabilities: {},
  clientInfo: { name: 'x-bench', version: '0.0.0' },
};

/**
 * CPU time (ms) the process has used so far, all its threads (V8 compiles and collects garbage
 * on helper threads), from the scheduler's nanosecond counters in /proc/<pid>/task/<tid>/schedstat.
 * Unlike wall time, it barely moves when other work shares the machine. Undefined off Linux.
 */
export function cpuTimeMs(pid) {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    }
    return ns / 1e6;
  } catch {
    return undefined;
  }
}

/**
 * Spawn → first tools/list answer, in ms. The three frames are written at once, right after
 * spawn. `check(result)` validates the tool list.
 */
export async function coldStart(target, check) {
  return (await coldStartDetailed(target, check)).ms;
}

/**
 * Spawn → first tools/list answer: the wall time `ms`, and `cpuMs`, the CPU time the server
 * had used by then (read as soon as the answer arrives).
 */
/**
 * One cold start: spawn → the answer to the first `tools/list` (wall and the server's CPU time).
 * With `call`, the client sends that `tools/call` as soon as the listing arrives, as MCP clients
 * do, and the figures are taken at its result instead. `env` may be a function (called per start,
 * e.g. for a fresh start-cache directory each time).
 */
export async function coldStartDetailed({ name, args, env, call }, check = () => {}) {
  const t0 = performance.now();
  const driver = new StdioDriver(args, { env: typeof env === 'function' ? env() : env });
  try {
    return await driver.bounded(COLD_LIMIT_MS, `${name} cold start`, async () => {
      const initialized = driver.wait(1);
      const listed = driver.wait(2);
      driver.write({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initializeParams });
      driver.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
      driver.write({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const result = await listed;
      if (call) {
        const called = driver.wait(3);
        driver.write({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: call });
        const answer = await called;
        if (answer?.content === undefined)
          throw new Error(`${name}: tools/call ${call.name} answered no result`);
      }
      const ms = performance.now() - t0;
      const cpuMs = cpuTimeMs(driver.child.pid);
      await initialized;
      check(result);
      return { ms, cpuMs };
    });
  } finally {
    await stop(driver.child);
  }
}

// ---------------------------------------------------------------------------------------
// Statistics and reporting.

export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
}
export const median = (values) => quantile(values, 0.5);

export function rotate(list, by) {
  const shift = by % list.length;
  return [...list.slice(shift), ...list.slice(0, shift)];
}

export const log = (text) => process.stderr.write(`${text}\n`);

export function fmt(value, digits = 1) {
  if (value === undefined || Number.isNaN(value)) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function machine() {
  const cpus = os.cpus();
  let commit;
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    commit = undefined;
  }
  return {
    nproc: cpus.length,
    cpu: cpus[0]?.model,
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverageAtStart: os.loadavg().map((load) => Math.round(load * 100) / 100),
    commit,
  };
}

/**
 * One JSON-RPC POST to `http://127.0.0.1:<port>/mcp` on a keep-alive agent, with the MCP headers
 * (plus `headers`, e.g. a bearer token); resolves with the status, headers and body text.
 */
export function postMcp(agent, port, message, { headers = {}, timeoutMs = 10_000 } = {}) {
  const body = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        agent,
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': PROTOCOL_VERSION,
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
        timeout: timeoutMs,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('HTTP request timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
