import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * The `redis-server` binary: `$REDIS_SERVER` if set (and only that), else the first on
 * `PATH`, else the Debian location; `undefined` when there is none.
 */
export function findRedisServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = env.REDIS_SERVER
    ? [env.REDIS_SERVER]
    : [
        ...(env.PATH ?? '').split(delimiter).map((dir) => dir && join(dir, 'redis-server')),
        '/usr/bin/redis-server',
      ];
  for (const candidate of candidates) {
    if (!candidate) continue;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Why Redis-backed tests cannot run, or `undefined` when they can. */
export const REDIS_MISSING =
  'redis-server is not installed (Debian: apt-get install -y redis-server; or set REDIS_SERVER to its path)';

/**
 * For a test suite that needs Redis: the binary's path, or `{ skip }` with the reason to skip.
 * Under `CI=true` a missing binary throws instead, so CI can never pass without running them.
 */
export function redisRequirement(env: NodeJS.ProcessEnv = process.env): { path: string } | { skip: string } {
  const path = findRedisServer(env);
  if (path) return { path };
  if (env.CI === 'true') {
    throw new Error(`${REDIS_MISSING}. CI=true: the Redis tests must run here, so this is a failure.`);
  }
  return { skip: `${REDIS_MISSING}; skipped outside CI` };
}

export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Kills the server abruptly (SIGKILL), as a crash would; `start()` brings it back. */
  kill(): Promise<void>;
  /** Starts it again on the same port (after `kill()` or `stop()`). */
  start(): Promise<void>;
  /** Stops it (SIGTERM) and removes its directory. */
  stop(): Promise<void>;
}

export interface StartRedisServerOptions {
  /** The binary (default: {@link findRedisServer}). */
  path?: string;
  /** Keep data across `kill()` / `start()` with an append-only file (default: no persistence). */
  persistence?: boolean;
}

/**
 * Starts a private `redis-server` on a free loopback port in a temporary directory, with
 * no persistence unless asked, for tests. Always `stop()` it (the process is also killed when
 * the test process exits).
 */
export async function startRedisServer(options: StartRedisServerOptions = {}): Promise<RedisServer> {
  const binary = options.path ?? findRedisServer();
  if (!binary) throw new Error(REDIS_MISSING);
  const dir = await mkdtemp(join(tmpdir(), 'x-redis-'));
  let port = 0;
  let child: ChildProcess | undefined;

  const launch = async (): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      const wanted = port || (await freePort());
      try {
        child = await spawnRedis(binary, wanted, dir, options.persistence ?? false);
        port = wanted;
        return;
      } catch (error) {
        // Someone took the free port between our check and the bind: try another (new servers only).
        if (port !== 0 || attempt >= 4) throw error;
      }
    }
  };
  const halt = async (signal: NodeJS.Signals): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill(signal);
    await exited;
  };

  await launch();
  return {
    get url() {
      return `redis://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    kill: () => halt('SIGKILL'),
    start: async () => {
      if (!child) await launch();
    },
    stop: async () => {
      await halt('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

function spawnRedis(binary: string, port: number, dir: string, persistence: boolean): Promise<ChildProcess> {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    persistence ? 'yes' : 'no',
    // Every write on disk before it is acknowledged: a SIGKILL loses nothing.
    '--appendfsync',
    'always',
    '--daemonize',
    'no',
    '--logfile',
    '',
  ];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.removeListener('exit', killOnExit));
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error('redis-server did not start within 10 s')), 10_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${error.message}\n${output.slice(-2000)}`));
    };
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/ready to accept connections/i.test(output)) {
        clearTimeout(timer);
        child.stdout?.removeListener('data', onData);
        child.stdout?.resume();
        child.stderr?.resume();
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', fail);
    child.once('exit', (code, signal) => fail(new Error(`redis-server exited (${signal ?? code})`)));
  });
}
