import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeDeviceFlowOptions, type FakeForge, startFakeForge } from '../testing/index.js';
import { runAuthCommand } from './cli.js';
import { LoginError, login, logout } from './login.js';

let fake: FakeForge | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setup(device: FakeDeviceFlowOptions = {}) {
  fake = await startFakeForge({ device: { interval: 1, ...device } });
  const configPath = join(mkdtempSync(join(tmpdir(), 'forge-login-')), 'nested', 'config.json');
  const output: string[] = [];
  return { fake, configPath, output, write: (text: string) => output.push(text) };
}

describe('device flow login', () => {
  it('shows the address and code, polls until approved and saves the login with mode 0600', async () => {
    const { fake, configPath, output, write } = await setup({ pendingPolls: 2 });
    const { config } = await login({ apiUrl: fake.url, configPath, write, pollIntervalMs: 5 });
    const shown = output.join('');
    const start = fake.requests.find((request) => request.path === '/auth/device/request');
    expect(start).toBeDefined();
    expect(shown).toContain(`${fake.url.replace('/api', '')}/device`);
    expect(shown).toMatch(/enter the code:\n\n {2}[A-F0-9]{4}-[A-F0-9]{4}/);
    expect(shown).toContain(`Logged in to Forge as dev@example.com (team ${fake.teamId})`);
    expect(shown).not.toContain(fake.accessToken);
    const polls = fake.requests.filter((request) => request.path === '/auth/device/token');
    expect(polls).toHaveLength(3);
    expect(polls[0]?.body).toEqual({ deviceCode: expect.any(String) });
    const saved = JSON.parse(readFileSync(configPath, 'utf8'));
    expect(saved).toEqual(config);
    expect(saved).toMatchObject({
      accessToken: fake.accessToken,
      refreshToken: fake.refreshToken,
      userId: fake.userId,
      teamId: fake.teamId,
      user: { email: 'dev@example.com', displayName: 'Dana Developer' },
    });
    expect(Number.isNaN(Date.parse(saved.expiresAt))).toBe(false);
    expect(statSync(configPath).mode & 0o777).toBe(0o600);
  });

  it('waits at the interval the server asks for', async () => {
    const { fake, configPath, write } = await setup({ interval: 1, pendingPolls: 1 });
    const started = Date.now();
    await login({ apiUrl: fake.url, configPath, write });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
  });

  it('slows down when told to', async () => {
    const { fake, configPath, write } = await setup({ slowDownPolls: 1, pendingPolls: 0 });
    await login({ apiUrl: fake.url, configPath, write, pollIntervalMs: 5, slowDownMs: 150 });
    const polls = fake.requests.filter((request) => request.path === '/auth/device/token');
    expect(polls).toHaveLength(2);
    expect((polls[1]?.at ?? 0) - (polls[0]?.at ?? 0)).toBeGreaterThanOrEqual(150);
  });

  for (const [outcome, message] of [
    ['deny', 'denied'],
    ['expire', 'expired'],
  ] as const) {
    it(`stops with a clear message when the login is ${outcome === 'deny' ? 'denied' : 'expired'}, writing nothing`, async () => {
      const { fake, configPath, write } = await setup({ outcome });
      const failure = login({ apiUrl: fake.url, configPath, write, pollIntervalMs: 5 });
      await expect(failure).rejects.toBeInstanceOf(LoginError);
      await expect(failure).rejects.toThrow(message);
      expect(existsSync(configPath)).toBe(false);
    });
  }

  it('gives up when the code expires locally', async () => {
    const { fake, configPath, write } = await setup({ pendingPolls: 1_000, expiresIn: 0.2 });
    await expect(login({ apiUrl: fake.url, configPath, write, pollIntervalMs: 20 })).rejects.toThrow(
      'expired',
    );
    expect(existsSync(configPath)).toBe(false);
  });

  it('can be cancelled without writing anything', async () => {
    const { fake, configPath, write } = await setup({ pendingPolls: 1_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(
      login({ apiUrl: fake.url, configPath, write, pollIntervalMs: 10, signal: controller.signal }),
    ).rejects.toThrow('cancelled');
    expect(existsSync(configPath)).toBe(false);
  });

  it('names the URL when Forge cannot be reached', async () => {
    const { fake, configPath, write } = await setup();
    const url = fake.url;
    await fake.close();
    await expect(login({ apiUrl: url, configPath, write })).rejects.toThrow(url);
  });
});

describe('logout and the subcommands', () => {
  it('logout removes the login file and says so; a second logout finds none', async () => {
    const { fake, configPath, write } = await setup({ pendingPolls: 0 });
    await login({ apiUrl: fake.url, configPath, write, pollIntervalMs: 5 });
    expect(await logout({ configPath })).toEqual({ removed: true, configPath });
    expect(existsSync(configPath)).toBe(false);
    expect(await logout({ configPath })).toEqual({ removed: false, configPath });
  });

  it('runs login and logout from the environment and returns exit codes', async () => {
    const { fake, configPath, output, write } = await setup({ interval: 1, pendingPolls: 0 });
    const env = { FORGE_API_URL: fake.url, FORGE_CONFIG_PATH: configPath };
    expect(await runAuthCommand('login', [], { write, env })).toBe(0);
    expect(existsSync(configPath)).toBe(true);
    expect(await runAuthCommand('logout', [], { write, env })).toBe(0);
    expect(output.join('')).toContain(`Logged out of Forge: removed ${configPath}`);
    expect(await runAuthCommand('login', ['--bogus'], { write, env })).toBe(2);
    expect(await runAuthCommand('logout', ['--help'], { write, env })).toBe(0);
    expect(output.join('')).toContain('Usage: forge-mcp logout');
  });

  it('whoami names the account, the expiry and the file, and exits 1 when signed out', async () => {
    const { fake, configPath, output, write } = await setup({ pendingPolls: 0 });
    const env = { FORGE_API_URL: fake.url, FORGE_CONFIG_PATH: configPath };
    expect(await runAuthCommand('whoami', [], { write, env })).toBe(1);
    expect(output.join('')).toContain(
      `Not signed in to Forge (no login at ${configPath}). Run \`forge-mcp login\`.`,
    );
    const { config } = await login({ apiUrl: fake.url, configPath, write, pollIntervalMs: 5 });
    output.length = 0;
    expect(await runAuthCommand('whoami', [], { write, env })).toBe(0);
    const shown = output.join('');
    expect(shown).toContain(`Signed in to Forge as dev@example.com, Dana Developer, team ${fake.teamId}.`);
    expect(shown).toContain(`Access token expires ${config.expiresAt}`);
    expect(shown).toContain(`Login stored in ${configPath}`);
    expect(shown).not.toContain(fake.accessToken);
    output.length = 0;
    expect(
      await runAuthCommand('whoami', [], { write, env: { ...env, FORGE_ACCESS_TOKEN: 'env-token' } }),
    ).toBe(1);
    expect(output.join('')).toContain('FORGE_TEAM_ID is missing');
  });
});
