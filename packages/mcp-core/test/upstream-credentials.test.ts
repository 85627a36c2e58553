import { chmod, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, McpToolError, TokenExpiredError } from '../src/index.js';
import {
  type AuthCommand,
  createLoginFile,
  type LoginFile,
  loginFileCredentials,
  loginFileKind,
  RefreshRejectedError,
  runAuthCommand,
  settingsOnFirstUse,
  staticCredentials,
} from '../src/upstream/index.js';

const Schema = z.looseObject({
  accessToken: z.string().min(1),
  refreshToken: z.string().optional(),
  expiresAt: z.string().optional(),
});
type Login = z.infer<typeof Schema>;

let directory: string;
let file: LoginFile<Login>;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'mcp-core-login-'));
  file = createLoginFile({
    path: join(directory, 'nested', 'login.json'),
    schema: Schema,
    label: 'Example login file',
    loginCommand: '`example-mcp login`',
    pathVariable: 'EXAMPLE_LOGIN_FILE',
  });
});

async function rejection(promise: Promise<unknown>): Promise<McpToolError> {
  try {
    await promise;
  } catch (error) {
    if (McpToolError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('settingsOnFirstUse', () => {
  it('resolves nothing until read, keeps a success, not a throw, and builds the default credentials from it', async () => {
    let calls = 0;
    let env: Record<string, string | undefined> = {};
    const runtime = settingsOnFirstUse(
      { env: () => env },
      (given) => {
        calls++;
        const token = given.env().TOKEN;
        if (!token) throw new ConfigError('No token: set TOKEN.');
        return { token };
      },
      (settings) => staticCredentials(settings.token, () => new TokenExpiredError('refused')),
    );
    expect(calls).toBe(0);
    expect(() => runtime.settings).toThrow('set TOKEN');
    await expect(async () => runtime.credentials.current()).rejects.toThrow('set TOKEN');
    env = { TOKEN: 'a' };
    expect(runtime.settings).toEqual({ token: 'a' });
    expect(await runtime.credentials.current()).toBe('a');
    env = { TOKEN: 'b' };
    expect(runtime.settings).toEqual({ token: 'a' });
    expect(calls).toBe(3);
  });

  it('uses the credentials it was given, never the default', async () => {
    const runtime = settingsOnFirstUse(
      { credentials: staticCredentials('given', () => new TokenExpiredError('refused')) },
      () => ({}),
      () => {
        throw new Error('the default was built');
      },
    );
    expect(await runtime.credentials.current()).toBe('given');
  });
});

describe('loginFileKind', () => {
  it('opens the file of one kind at each path, with its messages and private writes', async () => {
    const exampleLoginFile = loginFileKind(Schema, {
      label: 'Example login file',
      loginCommand: '`example-mcp login`',
      pathVariable: 'EXAMPLE_LOGIN_FILE',
    });
    const one = exampleLoginFile(join(directory, 'one.json'));
    const other = exampleLoginFile(join(directory, 'other.json'));
    expect([one.path, one.label]).toEqual([join(directory, 'one.json'), 'Example login file']);
    await one.write({ accessToken: 'a' });
    expect(await one.read()).toEqual({ accessToken: 'a' });
    expect(await other.read()).toBeUndefined();
    expect((await stat(one.path)).mode & 0o777).toBe(0o600);
    await writeFile(other.path, '{"accessToken":""}');
    expect((await rejection(other.read())).message).toBe(
      'The Example login file is invalid (bad or missing: accessToken). Run `example-mcp login` again.',
    );
  });
});

describe('createLoginFile', () => {
  it('reads nothing as undefined, writes 0600 atomically, keeps unknown fields and removes', async () => {
    expect(await file.read()).toBeUndefined();
    await file.write({ accessToken: 'a', extra: { kept: true } } as Login);
    expect(await file.read()).toEqual({ accessToken: 'a', extra: { kept: true } });
    expect((await stat(file.path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(directory, 'nested'))).mode & 0o777).toBe(0o700);
    expect(await readdir(join(directory, 'nested'))).toEqual(['login.json']);
    expect(await file.modeWarning()).toBeUndefined();
    await chmod(file.path, 0o644);
    expect(await file.modeWarning()).toContain(`chmod 600 ${file.path}`);
    expect(await file.remove()).toBe(true);
    expect(await file.remove()).toBe(false);
  });

  it('names the bad fields and the login command for an invalid or damaged file', async () => {
    await file.write({ accessToken: 'a' });
    await writeFile(file.path, JSON.stringify({ accessToken: '', refreshToken: 5 }));
    const invalid = await rejection(file.read());
    expect(invalid).toBeInstanceOf(ConfigError);
    expect(invalid.message).toBe(
      'The Example login file is invalid (bad or missing: accessToken, refreshToken). Run `example-mcp login` again.',
    );
    await writeFile(file.path, '{ nope');
    expect((await rejection(file.read())).message).toContain('damaged (malformed, not JSON)');
  });
});

describe('loginFileCredentials', () => {
  function source(overrides: Partial<Parameters<typeof loginFileCredentials<Login, string>>[0]> = {}) {
    const refreshed: string[] = [];
    let next = 0;
    const credentials = loginFileCredentials<Login, string>({
      loginFile: file,
      credentials: (login) => login.accessToken,
      token: (token) => token,
      canRefresh: (login) => login.refreshToken !== undefined,
      refresh: async (login) => {
        refreshed.push(login.refreshToken ?? '');
        await new Promise((resolve) => setTimeout(resolve, 10));
        return { ...login, accessToken: `renewed-${++next}` };
      },
      forget: ({ refreshToken: _dead, ...rest }) => rest,
      notLoggedIn: () => new ConfigError('Not logged in. Run `example-mcp login`.'),
      expired: (reason) => new TokenExpiredError(`expired: ${reason}`),
      ...overrides,
    });
    return { credentials, refreshed };
  }

  it('asks for a login when there is no file', async () => {
    const error = await rejection(source().credentials.current());
    expect(error.code).toBe('TOOL_NOT_ENABLED');
  });

  it('refreshes once for many concurrent renewals and saves the result', async () => {
    await file.write({ accessToken: 'old', refreshToken: 'r1' });
    const { credentials, refreshed } = source();
    expect(await credentials.current()).toBe('old');
    const renewed = await Promise.all(Array.from({ length: 5 }, () => credentials.renew('old')));
    expect(new Set(renewed)).toEqual(new Set(['renewed-1']));
    expect(refreshed).toEqual(['r1']);
    expect(JSON.parse(await readFile(file.path, 'utf8')).accessToken).toBe('renewed-1');
  });

  it('lets one waiting call give up without cancelling the refresh the others wait for', async () => {
    await file.write({ accessToken: 'old', refreshToken: 'r1' });
    const { credentials, refreshed } = source();
    await credentials.current();
    const impatient = new AbortController();
    const reason = new Error('this call was cancelled');
    const first = credentials.renew('old', impatient.signal);
    const second = credentials.renew('old');
    impatient.abort(reason);
    await expect(first).rejects.toBe(reason);
    expect(await second).toBe('renewed-1');
    expect(refreshed).toEqual(['r1']);
  });

  it('re-reads the file before refreshing and takes a login saved meanwhile', async () => {
    await file.write({ accessToken: 'old', refreshToken: 'r1' });
    const { credentials, refreshed } = source();
    await credentials.current();
    await file.write({ accessToken: 'from-another-process', refreshToken: 'r2' });
    expect(await credentials.renew('old')).toBe('from-another-process');
    expect(refreshed).toEqual([]);
  });

  it('forgets a refresh token the upstream calls dead and never sends it again', async () => {
    await file.write({ accessToken: 'old', refreshToken: 'dead' });
    const attempts: string[] = [];
    const { credentials } = source({
      refresh: async (login) => {
        attempts.push(login.refreshToken ?? '');
        throw new RefreshRejectedError();
      },
    });
    await credentials.current();
    expect((await rejection(credentials.renew('old'))).message).toBe('expired: refresh-rejected');
    expect(await file.read()).toEqual({ accessToken: 'old' });
    expect((await rejection(credentials.renew(await credentials.current()))).message).toBe(
      'expired: no-refresh',
    );
    expect(attempts).toEqual(['dead']);
  });

  it('keeps using a token with minutes left when the refresh ahead of expiry fails', async () => {
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    await file.write({ accessToken: 'old', refreshToken: 'dead', expiresAt });
    const { credentials } = source({
      expiresAt: (login) => Date.parse(login.expiresAt ?? ''),
      refresh: async () => {
        throw new RefreshRejectedError();
      },
    });
    expect(await credentials.current()).toBe('old');
    // The dead refresh token is gone from the file, so the next call does not try again.
    expect(await file.read()).toEqual({ accessToken: 'old', expiresAt });
    expect(await credentials.current()).toBe('old');
  });

  it('refreshes ahead of expiry', async () => {
    await file.write({
      accessToken: 'old',
      refreshToken: 'r1',
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    const { credentials, refreshed } = source({ expiresAt: (login) => Date.parse(login.expiresAt ?? '') });
    expect(await credentials.current()).toBe('renewed-1');
    expect(refreshed).toEqual(['r1']);
  });

  it('static credentials are never renewed', async () => {
    const credentials = staticCredentials(
      'env-token',
      () => new TokenExpiredError('Set a fresh EXAMPLE_TOKEN.'),
    );
    expect(await credentials.current()).toBe('env-token');
    expect((await rejection(credentials.renew('env-token'))).message).toBe('Set a fresh EXAMPLE_TOKEN.');
  });
});

describe('runAuthCommand', () => {
  const whoami: AuthCommand = {
    help: 'Usage: example-mcp whoami\n',
    options: { json: { type: 'boolean' } },
    run: async (values, io) => {
      if (values.json) throw new ConfigError('Not signed in.');
      io.write('Signed in as Dana.\n');
      return 0;
    },
  };
  const run = async (args: string[]) => {
    const output: string[] = [];
    const code = await runAuthCommand('example-mcp', 'whoami', whoami, args, {
      write: (text) => output.push(text),
      env: {},
    });
    return { code, output: output.join('') };
  };

  it('prints help, refuses unknown options and positionals with 2, and shows failures with 1', async () => {
    expect(await run(['--help'])).toEqual({ code: 0, output: 'Usage: example-mcp whoami\n' });
    expect((await run(['--nope'])).code).toBe(2);
    expect((await run(['extra'])).code).toBe(2);
    expect(await run([])).toEqual({ code: 0, output: 'Signed in as Dana.\n' });
    expect(await run(['--json'])).toEqual({ code: 1, output: 'example-mcp whoami: Not signed in.\n' });
  });
});

describe('settings helpers', () => {
  it('take the value, else the variable, else the fallback, with one message format', async () => {
    const { loadNumberSetting, loadSetting, loadUrlSetting } = await import('../src/upstream/index.js');
    const env = { EXAMPLE_URL: ' https://api.example.com/v1/ ', EXAMPLE_LIMIT: '', EXAMPLE_WAIT: 'soon' };
    expect(loadSetting({ value: undefined, env, variable: 'EXAMPLE_LIMIT', fallback: 'x' })).toBe('x');
    expect(loadUrlSetting({ value: undefined, env, variable: 'EXAMPLE_URL', fallback: 'http://d' })).toBe(
      'https://api.example.com/v1',
    );
    expect(() =>
      loadUrlSetting({
        value: 'ftp://x',
        env,
        variable: 'EXAMPLE_URL',
        setting: 'apiUrl',
        fallback: 'http://d',
        example: 'the API base, e.g. https://api.example.com',
      }),
    ).toThrow(
      'apiUrl must be an http(s) URL, got "ftp://x". Set it to the API base, e.g. https://api.example.com.',
    );
    expect(() =>
      loadUrlSetting({
        value: undefined,
        env: { U: 'https://me:pw@x' },
        variable: 'U',
        fallback: 'http://d',
      }),
    ).toThrow('U must not contain a user name or password.');
    expect(loadNumberSetting({ value: undefined, env, variable: 'EXAMPLE_LIMIT', fallback: 50 })).toBe(50);
    expect(() =>
      loadNumberSetting({
        value: undefined,
        env,
        variable: 'EXAMPLE_WAIT',
        fallback: 1,
        integer: false,
        max: 50,
        unit: 'seconds',
      }),
    ).toThrow('EXAMPLE_WAIT must be a number of seconds greater than 0 and at most 50, got "soon".');
    expect(() =>
      loadNumberSetting({
        value: 0,
        env,
        variable: 'X',
        setting: 'timeoutMs',
        fallback: 1,
        max: 9,
        unit: 'milliseconds',
      }),
    ).toThrow('timeoutMs must be a whole number of milliseconds from 1 to 9, got "0".');
  });

  it('loadTimeoutSetting: the one timeoutMs of every provider, 1 to 120000 ms, default 30000', async () => {
    const { loadTimeoutSetting } = await import('../src/upstream/index.js');
    expect(loadTimeoutSetting(undefined)).toBe(30_000);
    expect(loadTimeoutSetting(500)).toBe(500);
    expect(() => loadTimeoutSetting(120_001)).toThrow(
      'timeoutMs must be a whole number of milliseconds from 1 to 120000, got "120001".',
    );
    expect(() => loadTimeoutSetting(0.5, { setting: 'requestTimeoutMs' })).toThrow(
      /^requestTimeoutMs must be/,
    );
  });
});

describe('environmentProblems', () => {
  it('finds a variable the README or server.json lacks, and a secret or default that differs', async () => {
    const { environmentProblems } = await import('../src/upstream/index.js');
    const table = [
      { name: 'EX_URL', description: 'base', default: 'https://x' },
      { name: 'EX_TOKEN', description: 'token', secret: true },
    ];
    const serverJson = {
      packages: [
        {
          environmentVariables: [
            { name: 'EX_URL', default: 'https://y' },
            { name: 'EX_TOKEN' },
            { name: 'EX_OLD' },
            { name: 'MCP_LOG_LEVEL' },
          ],
        },
      ],
    };
    expect(
      environmentProblems(table, { readme: 'Set EX_URL.', serverJson, ignore: ['MCP_LOG_LEVEL'] }),
    ).toEqual([
      'the README does not mention EX_TOKEN',
      'server.json gives EX_URL the default https://y, the table https://x',
      'server.json marks EX_TOKEN isSecret false, the table true',
      'server.json lists EX_OLD, which the table does not have',
    ]);
    expect(
      environmentProblems(table, {
        readme: 'EX_URL EX_TOKEN',
        serverJson: {
          packages: [
            {
              environmentVariables: [
                { name: 'EX_URL', default: 'https://x' },
                { name: 'EX_TOKEN', isSecret: true },
              ],
            },
          ],
        },
      }),
    ).toEqual([]);
  });
});
