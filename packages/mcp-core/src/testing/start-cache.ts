import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnStdioClient } from './clients.js';
import { startProcess } from './processes.js';

export interface DescribeStartCacheOptions {
  /** Suite title, e.g. the bin's name. */
  name: string;
  /** The built bin (`dist/bin.js`). */
  bin: string;
  /** Arguments of every start. */
  args?: readonly string[];
  /** The environment of every start (read when the tests run, e.g. after a `beforeAll`). */
  env: () => Record<string, string | undefined>;
  /** A call the bin answers without an upstream (or against its fake): the first call after a hit. */
  call: { name: string; arguments?: Record<string, unknown> };
  /** A config file the served tools depend on: the suite changes it and expects a miss. */
  configFile?: () => string;
}

type Line = Record<string, unknown>;

const initialize = (id: number | string, protocolVersion: string): Line => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: {
    protocolVersion,
    capabilities: { roots: { listChanged: true } },
    clientInfo: { name: 'kit', version: '1' },
  },
});
const INITIALIZED: Line = { jsonrpc: '2.0', method: 'notifications/initialized' };
const request = (id: number, method: string, params?: Record<string, unknown>): Line => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params ? { params } : {}),
});

interface Exchange {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The parsed stdout lines. */
  messages: Line[];
}

async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The start cache of a bin (docs/decisions/0016-start-cache.md), as vitest tests over raw stdio:
 * the first start writes the entry, the second answers from it byte for byte as the real server
 * does, hands over for a call, negotiates versions like the SDK, and every change of the start
 * (environment, arguments, config file, a corrupt or stale entry) is a miss or corrected.
 */
export function describeStartCache(options: DescribeStartCacheOptions): void {
  describe(`${options.name} start cache`, () => {
    const dirs: string[] = [];
    afterAll(() => {
      // The temporary directories are left to the OS: entries are small.
      dirs.length = 0;
    });
    const cacheDir = () => {
      const dir = mkdtempSync(join(tmpdir(), 'x-start-cache-'));
      dirs.push(dir);
      return dir;
    };
    const entries = (dir: string): string[] => {
      const bins = readdirSync(dir).filter((name) => !name.startsWith('.'));
      return bins.flatMap((bin) =>
        readdirSync(join(dir, bin))
          .filter((name) => name.endsWith('.json'))
          .map((name) => join(dir, bin, name)),
      );
    };

    /** Writes the lines, waits for an answer to every request among them, then closes stdin. */
    const exchange = async (
      dir: string,
      lines: readonly (Line | string)[],
      extra: {
        env?: Record<string, string | undefined>;
        args?: readonly string[];
        wait?: (messages: Line[]) => boolean;
      } = {},
    ): Promise<Exchange> => {
      const running = startProcess({
        command: process.execPath,
        args: [options.bin, ...(extra.args ?? options.args ?? [])],
        env: { ...options.env(), MCP_START_CACHE_DIR: dir, MCP_LOG_LEVEL: 'debug', ...extra.env },
      });
      const ids = lines.flatMap((line) => (typeof line !== 'string' && 'id' in line ? [line.id] : []));
      const parse = () =>
        running
          .stdout()
          .split('\n')
          .filter(Boolean)
          .map((text) => JSON.parse(text) as Line);
      running.child.stdin.write(
        `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`,
      );
      try {
        await until(() => {
          const answered = new Set(parse().map((message) => message.id));
          return ids.every((id) => answered.has(id)) && (extra.wait?.(parse()) ?? true);
        }, `answers from ${options.name}; stderr: ${running.stderr()}`);
      } finally {
        running.child.stdin.end();
      }
      const code = await running.exited;
      return { code, stdout: running.stdout(), stderr: running.stderr(), messages: parse() };
    };
    const opening = (version = '2025-06-18') => [
      initialize(1, version),
      INITIALIZED,
      request(2, 'tools/list'),
    ];

    /** A cache directory holding the entry of a first start, and that start's output. */
    const primed = async (extra: Parameters<typeof exchange>[2] = {}) => {
      const dir = cacheDir();
      const first = await exchange(dir, opening(), extra);
      await until(() => entries(dir).length === 1, 'the entry to be written');
      return { dir, first, entry: entries(dir)[0] as string };
    };
    const hit = (run: Exchange) => run.stderr.includes('[start-cache] debug: hit: answering from');

    it('writes a private entry on the first start and answers the second start from it, byte for byte', async () => {
      const { dir, first, entry } = await primed();
      expect(hit(first)).toBe(false);
      expect(first.stderr).toContain('miss: no entry');
      if (process.platform !== 'win32') {
        expect(statSync(entry).mode & 0o777).toBe(0o600);
        expect(statSync(join(entry, '..')).mode & 0o777).toBe(0o700);
      }
      // No environment value is stored, only the hash of them all.
      const stored = readFileSync(entry, 'utf8');
      expect(stored).not.toContain(dir);
      const second = await exchange(dir, opening());
      expect(hit(second)).toBe(true);
      expect(second.stdout).toBe(first.stdout);
      expect(second.code).toBe(first.code);
    });

    it('hands over to the real server: a real client gets the same handshake and listing, and a call right after works', async () => {
      const { dir } = await primed();
      const connect = (env: Record<string, string | undefined>) =>
        spawnStdioClient({
          command: process.execPath,
          args: [options.bin, ...(options.args ?? [])],
          env: { ...options.env(), MCP_START_CACHE_DIR: dir, MCP_LOG_LEVEL: 'debug', ...env },
        });
      const observe = async (env: Record<string, string | undefined>) => {
        const connected = await connect(env);
        try {
          const tools = await connected.client.listTools();
          const call = await connected.client.callTool(options.call);
          return {
            // The listing came from the entry: the front handed over only after answering it.
            hit:
              connected.stderr().includes('hit: answering from') &&
              connected.stderr().includes('handing over after tools/list'),
            server: connected.client.getServerVersion(),
            capabilities: connected.client.getServerCapabilities(),
            instructions: connected.client.getInstructions(),
            tools,
            call,
          };
        } finally {
          await connected.close();
        }
      };
      const fromCache = await observe({});
      const real = await observe({ MCP_START_CACHE: 'off' });
      expect(fromCache.hit).toBe(true);
      expect(real.hit).toBe(false);
      const { hit: _a, ...cached } = fromCache;
      const { hit: _b, ...served } = real;
      expect(cached).toEqual(served);
    });

    it('negotiates the protocol version exactly as the SDK does (old, latest, unknown)', async () => {
      const { dir } = await primed();
      for (const version of ['2024-11-05', LATEST_PROTOCOL_VERSION, '2099-01-01']) {
        const lines = [initialize(1, version), request(2, 'tools/list')];
        const cached = await exchange(dir, lines);
        const real = await exchange(dir, lines, { env: { MCP_START_CACHE: 'off' } });
        expect(hit(cached)).toBe(true);
        expect(cached.stdout).toBe(real.stdout);
      }
    });

    it('hands over everything it does not answer: a call before the listing, ping, an unknown method, a notification', async () => {
      const { dir } = await primed();
      const lines = [
        initialize(1, '2025-06-18'),
        INITIALIZED,
        request(2, 'ping'),
        request(3, 'tools/call', { name: options.call.name, arguments: options.call.arguments ?? {} }),
        request(4, 'no/such-method'),
        { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
        request(5, 'tools/list'),
        'not json',
      ];
      const byId = (run: Exchange) =>
        [...run.messages].sort((a, b) => String(a.id).localeCompare(String(b.id)));
      const cached = await exchange(dir, lines);
      const real = await exchange(dir, lines, { env: { MCP_START_CACHE: 'off' } });
      expect(hit(cached)).toBe(true);
      expect(byId(cached)).toEqual(byId(real));
      expect(cached.code).toBe(real.code);
    });

    it('is a miss when the environment or the arguments change', async () => {
      const { dir } = await primed();
      const otherEnv = await exchange(dir, opening(), { env: { X_START_CACHE_PROBE: '1' } });
      expect(hit(otherEnv)).toBe(false);
      expect(otherEnv.stderr).toContain('miss: no entry');
      const otherArgs = await exchange(dir, opening(), { args: [...(options.args ?? []), '--read-only'] });
      expect(hit(otherArgs)).toBe(false);
      expect(otherArgs.stderr).toContain('miss: no entry');
    });

    it('treats a corrupt entry as a miss and writes it again', async () => {
      const { dir, first, entry } = await primed();
      writeFileSync(entry, '{"format":1,"key":');
      const corrupt = await exchange(dir, opening());
      expect(corrupt.stderr).toContain('miss: unusable entry');
      expect(corrupt.stdout).toBe(first.stdout);
      await until(() => {
        try {
          return JSON.parse(readFileSync(entry, 'utf8')).format === 1;
        } catch {
          return false;
        }
      }, 'the entry to be written again');
      expect(hit(await exchange(dir, opening()))).toBe(true);
    });

    it('corrects a stale listing: notifications/tools/list_changed, then the real listing, and a rewritten entry', async () => {
      const { dir, first, entry } = await primed();
      const stored = JSON.parse(readFileSync(entry, 'utf8'));
      const real = JSON.parse(stored.toolsList);
      const stale = { ...real, tools: real.tools.slice(1) };
      writeFileSync(entry, JSON.stringify({ ...stored, toolsList: JSON.stringify(stale) }));
      const run = await exchange(dir, [...opening(), request(3, 'ping')], {
        wait: (messages) => messages.some((message) => message.method === 'notifications/tools/list_changed'),
      });
      expect(hit(run)).toBe(true);
      expect(run.messages.find((message) => message.id === 2)?.result).toEqual(stale);
      expect(run.stderr).toContain('the entry was stale (tools/list)');
      await until(
        () => JSON.parse(readFileSync(entry, 'utf8')).toolsList === stored.toolsList,
        'the rewrite',
      );
      // The next start answers the real listing again.
      const next = await exchange(dir, opening());
      expect(hit(next)).toBe(true);
      expect(next.stdout).toBe(first.stdout);
    });

    it('writes nothing with MCP_START_CACHE=off', async () => {
      const dir = cacheDir();
      const run = await exchange(dir, opening(), { env: { MCP_START_CACHE: 'off' } });
      expect(run.messages.map((message) => message.id)).toEqual([1, 2]);
      // The process has exited (exchange waits for it), and a write would have kept it alive.
      expect(readdirSync(dir)).toEqual([]);
    });

    it('exits cleanly when stdin closes while the front answers', async () => {
      const { dir } = await primed();
      const running = startProcess({
        command: process.execPath,
        args: [options.bin, ...(options.args ?? [])],
        env: { ...options.env(), MCP_START_CACHE_DIR: dir, MCP_LOG_LEVEL: 'debug' },
      });
      running.child.stdin.end(
        `${JSON.stringify(initialize(1, '2025-06-18'))}\n${JSON.stringify(INITIALIZED)}\n`,
      );
      expect(await running.exited).toBe(0);
      expect(running.stderr()).toContain('hit: answering from');
      const lines = running.stdout().split('\n').filter(Boolean);
      expect(lines.map((line) => JSON.parse(line).id)).toEqual([1]);
    });

    if (options.configFile) {
      const configFile = options.configFile;
      it('is a miss when the config file changes', async () => {
        const { dir } = await primed();
        const file = configFile();
        const text = readFileSync(file, 'utf8');
        writeFileSync(file, `${text}\n`);
        try {
          const changed = await exchange(dir, opening());
          expect(hit(changed)).toBe(false);
          expect(changed.stderr).toContain(`miss: ${file} changed`);
        } finally {
          writeFileSync(file, text);
        }
      });
    }
  });
}
