import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  connectHttp,
  describeProviderBin,
  errorBody,
  resultData,
  spawnStdioClient,
  startHttpBin,
} from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredLogin } from './auth/token-file.js';
import { SETTINGS_TABLE } from './environment.js';
import { type FakeBasecamp, IDS, LAPTOP, LOCATOR, startFakeBasecamp } from './testing/index.js';
import { VERSION } from './version.js';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

let fake: FakeBasecamp;
let home: string;
let tokenFile: string;
let env: Record<string, string>;

beforeAll(async () => {
  fake = await startFakeBasecamp();
  home = mkdtempSync(join(tmpdir(), 'basecamp-bin-home-'));
  // The default login file: in the (throwaway) XDG config dir, never the real one.
  tokenFile = join(home, '.config', 'basecamp-mcp', 'token.json');
  env = {
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    APPDATA: join(home, 'AppData'),
    BASECAMP_TOKEN_FILE: '',
    BASECAMP_ACCESS_TOKEN: '',
    BASECAMP_ACCOUNT_ID: '',
    BASECAMP_API_URL: fake.url,
    BASECAMP_LAUNCHPAD_URL: fake.launchpadUrl,
    BASECAMP_CLIENT_ID: fake.client.id,
    BASECAMP_CLIENT_SECRET: fake.client.secret,
    BASECAMP_REDIRECT_URI: 'http://127.0.0.1:0/callback',
    MCP_LOG_LEVEL: 'info',
  };
});
afterAll(() => fake.close());

/** Runs the bin to completion; `onStderr` sees the output as it arrives. */
function runBinToEnd(args: string[], onStderr: (text: string) => void = () => {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      onStderr(stderr);
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// The checks every provider bin passes (@x/mcp-core/testing), before any login is saved.
describeProviderBin({
  bin,
  name: 'basecamp-mcp',
  version: VERSION,
  table: SETTINGS_TABLE,
  env: () => env,
  commands: ['login', 'logout', 'whoami'],
  readOnlyTools: 17,
  unconfigured: { env: {}, tool: 'list_projects', message: 'basecamp-mcp login' },
});

describe('basecamp-mcp login and logout (built bin)', () => {
  it('logs in through the browser flow and saves the token to the OS config dir with mode 0600', async () => {
    let opened = false;
    const { code, stdout, stderr } = await runBinToEnd(['login', '--account', fake.accountId], (text) => {
      const url = /(http:\/\/\S+\/authorization\/new\?\S+)/.exec(text)?.[1];
      if (url && !opened) {
        opened = true;
        // The "browser": Launchpad approves and redirects to the bin's callback server.
        void fetch(url).catch(() => {});
      }
    });
    expect(stderr).toContain('open this address in a browser');
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toContain(`Saved to ${tokenFile}`);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(tokenFile, 'utf8')) as StoredLogin;
    expect(saved.accountId).toBe(fake.accountId);
    expect(stderr).not.toContain(saved.accessToken);
    expect(stderr).not.toContain(fake.client.secret);
  });

  it('whoami shows the person, account, expiry and file', async () => {
    const { code, stdout, stderr } = await runBinToEnd(['whoami']);
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toContain(`account "Honcho Design" (${fake.accountId})`);
    expect(stderr).toContain(`Login stored in ${tokenFile}.`);
  });

  it('serves the tools over stdio with that login and saves a refreshed token', async () => {
    const { client, close, stderr } = await spawnStdioClient({ command: process.execPath, args: [bin], env });
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(24);
      const todo = resultData<{ title: string }>(
        await client.callTool({ name: 'get_todo', arguments: { todo_id: IDS.assignedTodo } }),
      );
      expect(todo.title).toBe('Clear and simple UI');

      const before = (JSON.parse(readFileSync(tokenFile, 'utf8')) as StoredLogin).accessToken;
      fake.expireAccessTokens();
      const again = await client.callTool({ name: 'get_todo', arguments: { todo_id: IDS.assignedTodo } });
      expect(again.isError).toBeFalsy();
      const after = JSON.parse(readFileSync(tokenFile, 'utf8')) as StoredLogin;
      expect(after.accessToken).not.toBe(before);
      expect(after.accessToken).toBe(fake.accessToken);
      expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
      expect(stderr()).not.toContain(after.accessToken);
      expect(stderr()).not.toContain(before);
    } finally {
      await close();
    }
  });

  it('logs out by revoking the token and deleting the file; a tool then asks for a login', async () => {
    const saved = JSON.parse(readFileSync(tokenFile, 'utf8')) as StoredLogin;
    const { code, stderr } = await runBinToEnd(['logout']);
    expect(code).toBe(0);
    expect(stderr).toContain(`revoked the access token and removed ${tokenFile}`);
    expect(fake.revoked).toContain(saved.accessToken);
    expect(existsSync(tokenFile)).toBe(false);
    const whoami = await runBinToEnd(['whoami']);
    expect(whoami.code).toBe(1);
    expect(whoami.stderr).toContain(`Not signed in to Basecamp (no login at ${tokenFile})`);

    const { client, close } = await spawnStdioClient({ command: process.execPath, args: [bin], env });
    try {
      const body = errorBody(await client.callTool({ name: 'list_projects', arguments: {} }));
      expect(body.error_code).toBe('TOOL_NOT_ENABLED');
      expect(body.message).toContain('basecamp-mcp login');
    } finally {
      await close();
    }
  });
});

describe('basecamp-mcp serving (built bin)', () => {
  // A fresh token: the login tests above revoked theirs.
  const tokenEnv = () => ({
    ...env,
    BASECAMP_ACCESS_TOKEN: fake.issueTokens().accessToken,
    BASECAMP_ACCOUNT_ID: fake.accountId,
  });

  it('serves a fake Basecamp with --sandbox, needing no account', async () => {
    const { client, close, stderr } = await spawnStdioClient({
      command: process.execPath,
      args: [bin, '--sandbox'],
      env: { ...env, BASECAMP_API_URL: 'http://127.0.0.1:9' },
    });
    try {
      const projects = resultData<{ items: { name: string }[] }>(
        await client.callTool({ name: 'list_projects', arguments: {} }),
      );
      expect(projects.items.map((project) => project.name)).toContain('The Leto Laptop');
      await expect.poll(() => stderr()).toContain('sandbox: fake Basecamp at http://127.0.0.1:');
    } finally {
      await close();
    }
  });

  it('keeps to the projects BASECAMP_PROJECTS names', async () => {
    const { client, close } = await spawnStdioClient({
      command: process.execPath,
      args: [bin],
      env: { ...tokenEnv(), BASECAMP_PROJECTS: `${LAPTOP}` },
    });
    try {
      const projects = resultData<{ items: { id: number }[] }>(
        await client.callTool({ name: 'list_projects', arguments: { status: 'all' } }),
      );
      expect(projects.items.map((project) => project.id)).toEqual([LAPTOP]);
      fake.resetLog();
      const refused = errorBody(
        await client.callTool({ name: 'get_project_tools', arguments: { project_id: LOCATOR } }),
      );
      expect(refused.error_code).toBe('PERMISSION_DENIED');
      expect(refused.message).toContain(`${LAPTOP}`);
      expect(fake.requests).toEqual([]);
    } finally {
      await close();
    }
    const bad = spawnSync(process.execPath, [bin], {
      env: { ...process.env, ...tokenEnv(), BASECAMP_PROJECTS: '1001,laptop' },
      encoding: 'utf8',
      input: '',
      timeout: 20_000,
    });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('BASECAMP_PROJECTS must be project IDs separated by commas');
  });

  it('serves over HTTP with --http --port 0', async () => {
    const server = await startHttpBin({
      command: process.execPath,
      args: [bin, '--http', '--port', '0'],
      env: tokenEnv(),
    });
    try {
      const { client, close } = await connectHttp(server.url);
      try {
        const message = resultData<{ subject: string }>(
          await client.callTool({ name: 'get_message', arguments: { message_id: IDS.richMessage } }),
        );
        expect(message.subject).toBe('Launch plan');
      } finally {
        await close();
      }
    } finally {
      await server.stop();
    }
  });
});
