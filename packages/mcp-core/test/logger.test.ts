import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { connectHttp, resultData, runProcess, startHttpBin } from '../src/testing/index.js';
import { fixtureBin, startFixtureBin } from './fixtures/spawn-bin.js';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const writer = (mode: string, count: number) => ({
  command: process.execPath,
  args: ['--import', 'tsx', 'test/fixtures/log-writer.ts', mode, String(count)],
  cwd: packageRoot,
});

/**
 * Runs the writer with a reader that starts 200 ms late, so the pipe is full while the process
 * exits and the exit flush has to wait for it.
 */
async function runWithLateReader(mode: string, count: number): Promise<{ code: number; stderr: string }> {
  const { command, args, cwd } = writer(mode, count);
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.pause();
  const late = setTimeout(() => {
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stderr.resume();
  }, 200);
  const [code] = (await once(child, 'close')) as [number];
  clearTimeout(late);
  return { code, stderr };
}

/** The JSON lines at the start of `text` (up to the first line that is not JSON), and the rest. */
function splitLines(text: string): { lines: Record<string, unknown>[]; rest: string } {
  const raw = text.split('\n');
  const lines: Record<string, unknown>[] = [];
  let index = 0;
  for (; index < raw.length; index++) {
    const candidate = raw[index] as string;
    if (!candidate.startsWith('{')) break;
    lines.push(JSON.parse(candidate));
  }
  return { lines, rest: raw.slice(index).join('\n') };
}

/** The numbered lines 0..count-1, each complete, in order, with the secret redacted. */
function expectNumbered(lines: Record<string, unknown>[], count: number): void {
  expect(lines.length).toBe(count);
  lines.forEach((line, index) => {
    expect(line).toMatchObject({
      level: 'info',
      scope: 'writer',
      message: 'line',
      index,
      token: '[redacted]',
    });
  });
}

// Each test starts Node with tsx: allow for a loaded machine.
describe('log lines through a real pipe', { timeout: 60_000 }, () => {
  it('arrive complete and in order, secrets redacted, when the reader keeps up', async () => {
    const { code, stderr, stdout } = await runProcess(writer('paced', 5_000));
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).not.toContain('secret-value');
    const { lines, rest } = splitLines(stderr);
    expectNumbered(lines, 5_000);
    expect(rest).toBe('');
  });

  it('are all written before process.exit() ends the process', async () => {
    // 4,000 lines (about 800 kB) in one go: far more than a pipe holds, all still buffered at exit.
    const { code, stderr } = await runWithLateReader('exit', 4_000);
    expect(code).toBe(3);
    const { lines, rest } = splitLines(stderr);
    expectNumbered(lines, 4_000);
    expect(rest).toBe('');
  });

  it('are all written before an uncaught exception or unhandled rejection is printed, and so is the error', async () => {
    for (const [mode, message] of [
      ['throw', 'thrown after the lines'],
      ['reject', 'rejected after the lines'],
    ] as const) {
      const { code, stderr } = await runWithLateReader(mode, 2_000);
      expect(code).toBe(1);
      const { lines, rest } = splitLines(stderr);
      expectNumbered(lines, 2_000);
      expect(rest).toContain(message);
    }
  });

  it('stay within a bounded buffer while nobody reads, then say how many were dropped', async () => {
    const total = 10_000; // about 2 MB: the pipe and the 1 MiB buffer hold a part of it
    const child = spawn(writer('flood', total).command, writer('flood', total).args, {
      cwd: packageRoot,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    try {
      // stderr is not read until the writer has written everything.
      child.stdout.setEncoding('utf8');
      const [report] = (await once(child.stdout, 'data')) as [string];
      const { dropped, most } = JSON.parse(report) as { dropped: number; most: number };
      expect(dropped).toBeGreaterThan(0);
      // The bound (1 MiB of text) plus one "dropped" line at most.
      expect(most).toBeLessThanOrEqual(1024 * 1024 + 200);
      let stderr = '';
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => {
        stderr += chunk;
      });
      child.stdin.end();
      const [code] = (await once(child, 'close')) as [number];
      expect(code).toBe(0);
      const { lines, rest } = splitLines(stderr);
      expect(rest).toBe('');
      const kept = lines.slice(0, -1);
      expectNumbered(kept, total - dropped);
      expect(lines.at(-1)).toMatchObject({
        level: 'warn',
        scope: 'logger',
        dropped,
        message: `${dropped} log lines dropped (stderr was not being read fast enough)`,
      });
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('the runner with MCP_LOG_FORMAT=json', () => {
  it('writes every tool call line before it exits on SIGTERM', async () => {
    const { child, stdout, stderr, url, exited } = await startHttpBin({
      ...fixtureBin,
      args: [...fixtureBin.args, '--http', '--port', '0', '--include', 'add'],
      env: { MCP_LOG_FORMAT: 'json' },
    });
    try {
      const connection = await connectHttp(url);
      try {
        for (let index = 0; index < 20; index++) {
          const result = await connection.client.callTool({ name: 'add', arguments: { a: index, b: 1 } });
          expect(resultData(result)).toEqual({ sum: index + 1 });
        }
      } finally {
        await connection.close();
      }
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stdout()).toBe('');
      const lines = stderr()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const calls = lines.filter((line) => line.message === 'tool call');
      expect(calls).toHaveLength(20);
      for (const call of calls) expect(call).toMatchObject({ tool: 'add', outcome: 'ok' });
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('keeps stdout for JSON-RPC over stdio; the JSON logs go to stderr', async () => {
    const bin = startFixtureBin([], { ...process.env, MCP_LOG_FORMAT: 'json', MCP_LOG_LEVEL: 'debug' });
    try {
      bin.child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`,
      );
      bin.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      bin.child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'noisy', arguments: {} } })}\n`,
      );
      bin.child.stdin.end();
      expect(await bin.exited).toBe(0);
      const out = bin.stdout().split('\n').filter(Boolean);
      expect(out.map((line) => JSON.parse(line).id)).toEqual([1, 2]);
      expect(bin.stderr()).toContain('"message":"serving MCP over stdio; waiting for a client on stdin"');
      expect(bin.stderr()).toContain('console.log from a handler');
    } finally {
      bin.child.kill('SIGKILL');
    }
  });
});
