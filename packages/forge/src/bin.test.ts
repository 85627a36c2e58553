import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  connectHttp,
  describeProviderBin,
  errorBody,
  resultData,
  resultText,
  runProcess,
  spawnStdioClient,
  startHttpBin,
} from '@x/mcp-core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS_TABLE } from './environment.js';
import { type FakeForge, startFakeForge } from './testing/index.js';
import { VERSION } from './version.js';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

let fake: FakeForge;
let home: string;
let configPath: string;
let env: Record<string, string>;

beforeAll(async () => {
  fake = await startFakeForge({ device: { interval: 1, pendingPolls: 1 } });
  home = mkdtempSync(join(tmpdir(), 'forge-bin-home-'));
  configPath = join(home, '.forge', 'config.json');
  // A throwaway HOME as well as FORGE_CONFIG_PATH: the bin cannot reach the real ~/.forge.
  env = {
    HOME: home,
    USERPROFILE: home,
    FORGE_API_URL: fake.url,
    FORGE_CONFIG_PATH: configPath,
    MCP_LOG_LEVEL: 'info',
  };
});
afterAll(() => fake.close());

/** Runs the bin to completion without a shell. */
const runBinToEnd = (args: string[], extraEnv: Record<string, string> = {}) =>
  runProcess({ command: process.execPath, args: [bin, ...args], env: { ...env, ...extraEnv } });

// The checks every provider bin passes (@x/mcp-core/testing), with a throwaway HOME and no login.
const emptyHome = mkdtempSync(join(tmpdir(), 'forge-kit-home-'));
describeProviderBin({
  bin,
  name: 'forge-mcp',
  version: VERSION,
  table: SETTINGS_TABLE,
  env: { HOME: emptyHome, USERPROFILE: emptyHome, FORGE_CONFIG_PATH: join(emptyHome, 'none.json') },
  commands: ['login', 'logout', 'whoami'],
  readOnlyTools: ['get_file_changes', 'get_repository_context', 'get_ticket_context', 'list_tickets'],
  unconfigured: { env: {}, tool: 'list_tickets', message: 'forge-mcp login' },
});

describe('forge-mcp login and logout (built bin)', () => {
  it('says in --help what its subcommands do', () => {
    const help = spawnSync(process.execPath, [bin, '--help'], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });
    expect(help.stdout).toContain('forge-mcp <command> [args]');
    expect(help.stdout).toMatch(/\n {2}login {3}sign in to Forge in the browser/);
    expect(help.stdout).toMatch(/\n {2}logout {2}delete the saved login/);
  });

  it('logs in through the device endpoints, writing the login file with mode 0600', async () => {
    const { code, stdout, stderr } = await runBinToEnd(['login']);
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toContain(`${fake.url.replace(/\/api$/, '')}/device`);
    expect(stderr).toMatch(/enter the code:\n\n {2}[A-F0-9]{4}-[A-F0-9]{4}/);
    expect(stderr).toContain('Logged in to Forge as dev@example.com');
    expect(stderr).not.toContain(fake.accessToken);
    expect(statSync(configPath).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(configPath, 'utf8'))).toMatchObject({
      accessToken: fake.accessToken,
      teamId: fake.teamId,
    });
  });

  it('whoami shows the account, expiry and file, and exits 1 once signed out', async () => {
    const signedIn = await runBinToEnd(['whoami']);
    expect(signedIn.code).toBe(0);
    expect(signedIn.stdout).toBe('');
    expect(signedIn.stderr).toContain(
      `Signed in to Forge as dev@example.com, Dana Developer, team ${fake.teamId}.`,
    );
    expect(signedIn.stderr).toContain(`Login stored in ${configPath}`);
    const signedOut = await runBinToEnd(['whoami'], { FORGE_CONFIG_PATH: join(home, 'nobody.json') });
    expect(signedOut.code).toBe(1);
    expect(signedOut.stderr).toContain('Not signed in to Forge');
  });

  it('serves the tools over stdio with that login and saves a refreshed token', async () => {
    const { client, close, stderr } = await spawnStdioClient({ command: process.execPath, args: [bin], env });
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(11);
      const context = await client.callTool({ name: 'get_ticket_context', arguments: { ticketId: 'FOR-1' } });
      expect(resultText(context)).toContain('# Add password reset by email');
      expect(context.structuredContent).toMatchObject({ slug: 'FOR-1', status: 'approved' });

      const before = JSON.parse(readFileSync(configPath, 'utf8')).accessToken;
      fake.expireAccessToken();
      expect(
        (await client.callTool({ name: 'list_tickets', arguments: { filter: 'mine' } })).isError,
      ).toBeFalsy();
      const after = JSON.parse(readFileSync(configPath, 'utf8'));
      expect(after.accessToken).not.toBe(before);
      expect(after.accessToken).toBe(fake.accessToken);
      expect(statSync(configPath).mode & 0o777).toBe(0o600);

      const missing = errorBody(
        await client.callTool({ name: 'get_file_changes', arguments: { ticketId: 'FOR-404' } }),
      );
      expect(missing.message).toBe('Ticket not found: FOR-404. Use list_tickets to see ticket IDs.');
      expect(stderr()).not.toContain(fake.accessToken);
    } finally {
      await close();
    }
  });

  it('logs out by removing the file; a tool then asks for a login', async () => {
    const { code, stderr } = await runBinToEnd(['logout']);
    expect(code).toBe(0);
    expect(stderr).toContain(`removed ${configPath}`);
    expect(existsSync(configPath)).toBe(false);

    const { client, close } = await spawnStdioClient({ command: process.execPath, args: [bin], env });
    try {
      const body = errorBody(await client.callTool({ name: 'list_tickets', arguments: {} }));
      expect(body.error_code).toBe('TOOL_NOT_ENABLED');
      expect(body.message).toContain('forge-mcp login');
    } finally {
      await close();
    }
  });

  it('fails login with exit code 1 and a message when the user denies it', async () => {
    const denying = await startFakeForge({ device: { interval: 1, pendingPolls: 0, outcome: 'deny' } });
    try {
      const { code, stderr } = await runBinToEnd(['login'], { FORGE_API_URL: denying.url });
      expect(code).toBe(1);
      expect(stderr).toContain('denied');
      expect(existsSync(configPath)).toBe(false);
    } finally {
      await denying.close();
    }
  });
});

describe('forge-mcp serving modes (built bin)', () => {
  let stopServer: (() => Promise<unknown>) | undefined;
  afterEach(async () => {
    await stopServer?.();
    stopServer = undefined;
  });

  it('serves a local fake with --sandbox and no credentials at all', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'forge-sandbox-home-'));
    const { client, close, stderr } = await spawnStdioClient({
      command: process.execPath,
      args: [bin, '--sandbox'],
      env: { HOME: empty, FORGE_CONFIG_PATH: join(empty, 'none.json') },
    });
    try {
      const list = await client.callTool({ name: 'list_tickets', arguments: {} });
      expect(resultText(list)).toContain('4 tickets');
      const started = resultData(
        await client.callTool({
          name: 'start_implementation',
          arguments: { ticketId: 'FOR-1', branchName: 'forge/FOR-1-x' },
        }),
      );
      expect(started).toMatchObject({ status: 'executing' });
      await expect.poll(() => stderr()).toContain('sandbox: fake Forge at http://127.0.0.1:');
    } finally {
      await close();
    }
  });

  it('serves stateless HTTP with --http --port 0', async () => {
    const tokenEnv = { ...env, FORGE_ACCESS_TOKEN: fake.accessToken, FORGE_TEAM_ID: fake.teamId };
    const server = await startHttpBin({
      command: process.execPath,
      args: [bin, '--http', '--port', '0'],
      env: tokenEnv,
    });
    stopServer = server.stop;
    const connection = await connectHttp(server.url);
    try {
      const result = await connection.client.callTool({
        name: 'get_file_changes',
        arguments: { ticketId: 'T-001' },
      });
      expect(resultData<{ fileChanges: unknown[] }>(result).fileChanges).toHaveLength(2);
    } finally {
      await connection.close();
    }
  });
});
