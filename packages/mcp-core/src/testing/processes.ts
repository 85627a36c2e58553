import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { childEnv } from './clients.js';

export interface ProcessOptions {
  command: string;
  args?: readonly string[];
  /** Added to this process's environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  cwd?: string;
}

export interface RunningProcess {
  child: ChildProcessWithoutNullStreams;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /**
   * Resolves with stderr once it contains `text` (log lines are written asynchronously, in
   * batches: a line logged while answering a request may arrive after the answer); rejects after
   * `timeoutMs` or when the process exits without it.
   */
  waitForStderr(text: string, timeoutMs?: number): Promise<string>;
  /** The exit code, or null after a signal. */
  exited: Promise<number | null>;
  /** SIGTERM, SIGKILL after 5 s, and waits for the exit. */
  stop(): Promise<number | null>;
}

/** Starts a process with raw pipes (no shell) and collects what it writes. */
export function startProcess({ command, args = [], env = {}, cwd }: ProcessOptions): RunningProcess {
  const child = spawn(command, [...args], { env: childEnv(env), ...(cwd ? { cwd } : {}) });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin.on('error', () => {});
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const waitForStderr = (text: string, timeoutMs = 10_000) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        if (!stderr.includes(text)) return false;
        done();
        resolve(stderr);
        return true;
      };
      const fail = (why: string) => () => {
        done();
        reject(
          new Error(
            `stderr never contained ${JSON.stringify(text)} (${why}); it holds:\n${stderr.slice(-4000)}`,
          ),
        );
      };
      const timer = setTimeout(fail(`waited ${timeoutMs} ms`), timeoutMs);
      const onExit = fail('the process exited');
      const done = () => {
        clearTimeout(timer);
        child.stderr.off('data', check);
        child.off('close', onExit);
      };
      if (check()) return;
      child.stderr.on('data', check);
      child.once('close', onExit);
    });
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    waitForStderr,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        const code = await exited;
        clearTimeout(timer);
        return code;
      }
      return exited;
    },
  };
}

/** Runs a process to its end; `input` is written to its stdin, which is then closed. */
export async function runProcess(
  options: ProcessOptions & { input?: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const running = startProcess(options);
  running.child.stdin.end(options.input ?? '');
  const code = await running.exited;
  return { code, stdout: running.stdout(), stderr: running.stderr() };
}

/**
 * Starts a bin that serves HTTP (pass `--http --port 0` in `args`) and resolves once it has
 * announced `listening on <url>` on stderr. Rejects with its stderr if it exits first or takes
 * longer than `timeoutMs`. Logs at info level unless `MCP_LOG_LEVEL` is given.
 */
export async function startHttpBin(
  options: ProcessOptions & { timeoutMs?: number },
): Promise<RunningProcess & { url: string }> {
  const running = startProcess({ ...options, env: { MCP_LOG_LEVEL: 'info', ...options.env } });
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const url = /listening on (http:\/\/[^\s"]+)/.exec(running.stderr())?.[1];
    if (url) return { ...running, url };
    if (running.child.exitCode !== null || running.child.signalCode !== null || Date.now() > deadline) {
      await running.stop();
      throw new Error(
        `${options.command} ${(options.args ?? []).join(' ')} did not start serving HTTP:\n${running.stderr()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * A port on 127.0.0.1 that nothing listens on (taken from the OS, then released): for "upstream
 * not reachable" tests. Ports such as 1 or 9 are no substitute: fetch refuses them as unsafe
 * before it ever connects.
 */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
