// The composed server (apps/server) run from a checkout, as an operator meets it before and after
// `pnpm build`: a bin or a package that is not built is one line naming `pnpm build` (never Node's
// ERR_MODULE_NOT_FOUND stack), and the admin commands refuse a store no server has made (never
// an empty answer, never a store made on the spot).
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProcess } from '@x/mcp-core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { SECRET } from './oauth/fixture.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const serverDir = join(root, 'apps/server');
const bin = join(serverDir, 'dist/bin.js');
const BUILD = 'run `pnpm build` at the repository root, then run this again.';

beforeAll(() => {
  if (!existsSync(bin)) throw new Error(`Build apps/server first (pnpm build): ${bin} is missing.`);
});

/** stderr is one line naming `pnpm build`, without a stack or Node's error code. */
function oneLine(stderr: string, prefix: string) {
  expect(stderr.endsWith('\n')).toBe(true);
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(stderr.startsWith(prefix)).toBe(true);
  expect(stderr).toContain(BUILD);
  expect(stderr).not.toContain('ERR_MODULE_NOT_FOUND');
  expect(stderr).not.toMatch(/^\s+at /m);
}

describe('a checkout that is not built', () => {
  it('the workspace bin without apps/server/dist: one line naming pnpm build, exit 1', async () => {
    const app = await mkdtemp(join(tmpdir(), 'unbuilt-server-'));
    await cp(join(serverDir, 'bin'), join(app, 'bin'), { recursive: true });
    const result = await runProcess({
      command: process.execPath,
      args: [join(app, 'bin/x-mcp-server.js'), '--help'],
    });
    expect(result.code).toBe(1);
    oneLine(result.stderr, 'x-mcp-server: not built in this checkout (apps/server/dist/bin.js is missing)');
  }, 60_000);

  it('@x/mcp-hosted linked but not built: the hosted server and every admin command say pnpm build in one line', async () => {
    // apps/server as the demo leaves it: its bin built, @x/mcp-hosted (not bundled) linked without dist/.
    const app = await mkdtemp(join(tmpdir(), 'unbuilt-hosted-'));
    await cp(join(serverDir, 'dist'), join(app, 'dist'), { recursive: true });
    await mkdir(join(app, 'node_modules/@x/mcp-hosted'), { recursive: true });
    await cp(
      join(root, 'packages/hosted/package.json'),
      join(app, 'node_modules/@x/mcp-hosted/package.json'),
    );
    const state = join(app, 'state');
    const env = {
      MCP_SECRET: SECRET,
      MCP_PUBLIC_URL: 'http://127.0.0.1:8080',
      XDG_STATE_HOME: state,
      MCP_STORE: undefined,
      MCP_AUDIT: undefined,
    };
    const run = (...args: string[]) =>
      runProcess({ command: process.execPath, args: [join(app, 'dist/bin.js'), ...args], env });
    const hostedMessage = '@x/mcp-hosted is not built in this checkout (packages/hosted/dist is missing)';

    const server = await run('--http', '--port', '0', '--auth', 'oauth', '--providers', 'basecamp');
    expect(server.code).toBe(2);
    oneLine(server.stderr, `x-mcp-server: ${hostedMessage}`);
    for (const [command, ...args] of [
      ['users', 'list'],
      ['keys', 'rotate'],
      ['audit', 'tail'],
      ['policy', 'check', 'policy.json'],
    ]) {
      const result = await run(command as string, ...args);
      expect({ command, code: result.code }).toEqual({ command, code: expect.any(Number) });
      expect(result.code).not.toBe(0);
      oneLine(result.stderr, `x-mcp-server ${command}: ${hostedMessage}`);
    }
    // The local audit log (MCP_AUDIT without --auth oauth) is the hosted package's too.
    const local = await runProcess({
      command: process.execPath,
      args: [join(app, 'dist/bin.js'), '--http', '--port', '0', '--sandbox'],
      env: { ...env, MCP_AUDIT: `file:${join(app, 'audit.jsonl')}` },
    });
    expect(local.code).toBe(2);
    oneLine(local.stderr, `x-mcp-server: ${hostedMessage}`);
    expect(existsSync(state)).toBe(false);
  }, 60_000);
});

describe('admin commands against a store no server has made', () => {
  const run = (args: string[], env: Record<string, string | undefined>) =>
    runProcess({
      command: process.execPath,
      args: [bin, ...args],
      env: { MCP_SECRET: SECRET, MCP_AUDIT: undefined, ...env },
    });

  it('the default store that does not exist: an error in one line, nothing created', async () => {
    const state = await mkdtemp(join(tmpdir(), 'no-store-'));
    const file = join(state, 'x-mcp-server/store.db');
    for (const args of [
      ['users', 'list'],
      ['users', 'revoke', 'alice@example.com'],
      ['keys', 'rotate'],
    ]) {
      const result = await run(args, { XDG_STATE_HOME: state, MCP_STORE: undefined });
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(result.stderr).toBe(
        `x-mcp-server ${args[0]}: No store at ${file} (nothing was created): give the store the server uses (--store or MCP_STORE).\n`,
      );
    }
    expect(existsSync(join(state, 'x-mcp-server'))).toBe(false);
    const audit = await run(['audit', 'tail'], { XDG_STATE_HOME: state, MCP_STORE: undefined });
    expect(audit.code).toBe(2);
    expect(audit.stderr).toBe(
      `x-mcp-server audit: No audit log at ${join(state, 'x-mcp-server/audit.jsonl')}.\n`,
    );
  }, 60_000);

  it('a file no server wrote, and memory:, are refused too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'empty-store-'));
    const file = join(dir, 'store.db');
    await writeFile(file, '');
    const empty = await run(['users', 'list', '--store', `sqlite:${file}`], { MCP_STORE: undefined });
    expect(empty).toMatchObject({ code: 1, stdout: '' });
    expect(empty.stderr).toBe(
      `x-mcp-server users: sqlite:${file} holds no server's data yet (no keys): give the store the server uses (--store or MCP_STORE).\n`,
    );
    const memory = await run(['keys', 'rotate'], { MCP_STORE: 'memory:' });
    expect(memory).toMatchObject({ code: 1, stdout: '' });
    expect(memory.stderr).toContain('memory: lives in the server process alone');
  }, 60_000);
});

describe('docs/deployment.md from a checkout', () => {
  const deployment = readFileSync(join(root, 'docs/deployment.md'), 'utf8');
  /** The lines of the page's fenced `sh` blocks, comments cut. */
  const shellLines = [...deployment.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) =>
    (block[1] as string).split('\n').map((line) => line.replace(/\s+#.*$/, '').trim()),
  );

  it('builds every package before the hosted server, and serves the providers it names', () => {
    expect(shellLines).toContain('pnpm install --frozen-lockfile && pnpm build');
    const hosted = deployment.slice(deployment.indexOf('## Hosted for many users'));
    const command = /node apps\/server\/dist\/bin\.js[^`]*?--auth oauth[^`]*?\n```/.exec(hosted)?.[0] ?? '';
    expect(command).toContain('--providers basecamp');
  }, 60_000);

  it('runs the bin as the page shows: `pnpm -s x-mcp-server …` at the repository root, stdout its own', async () => {
    // The first one past "Try it offline" (whose command sandbox-bin.test.ts runs).
    const line =
      shellLines.find((text) => text.startsWith('pnpm -s x-mcp-server ') && !text.includes('--sandbox')) ??
      '';
    expect(line).toBe('pnpm -s x-mcp-server --version');
    const [command, ...args] = line.split(' ');
    const result = await runProcess({ command: command as string, args, cwd: root });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    // The command Forge's "not logged in" answer names for a checkout.
    const forge = await runProcess({ command: 'pnpm', args: ['-s', 'forge-mcp', '--version'], cwd: root });
    expect(forge.code, forge.stderr).toBe(0);
    expect(forge.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  }, 60_000);
});
