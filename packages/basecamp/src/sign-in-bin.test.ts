import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { type SpawnedClient, spawnStdioClient } from '@x/mcp-core/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StoredLogin } from './auth/token-file.js';
import { type FakeBasecamp, startFakeBasecamp } from './testing/index.js';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

let fake: FakeBasecamp;
let spawned: SpawnedClient | undefined;
beforeAll(async () => {
  fake = await startFakeBasecamp();
});
afterAll(async () => {
  await spawned?.close();
  await fake.close();
});

it('the stdio bin sends a URL-elicitation client to Launchpad, saves the login and answers the call', async () => {
  const home = mkdtempSync(join(tmpdir(), 'basecamp-sign-in-bin-'));
  const tokenFile = join(home, '.config', 'basecamp-mcp', 'token.json');
  const asked: Array<{ mode: unknown; url: string; elicitationId: unknown }> = [];
  const completed: unknown[] = [];
  let page: Promise<number> | undefined;
  const client = new Client(
    { name: 'sign-in-bin-test', version: '0.0.0' },
    { capabilities: { elicitation: { url: {} } } },
  );
  client.setRequestHandler('elicitation/create', (request) => {
    const params = request.params as Record<string, unknown>;
    asked.push({ mode: params.mode, url: String(params.url), elicitationId: params.elicitationId });
    // The "browser": Launchpad approves and sends it back to the bin's loopback callback.
    page = fetch(String(params.url)).then((response) => response.status);
    return { action: 'accept' };
  });
  client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
    completed.push(notification.params.elicitationId);
  });
  spawned = await spawnStdioClient({
    command: process.execPath,
    args: [bin],
    client,
    env: {
      HOME: home,
      USERPROFILE: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      APPDATA: join(home, 'AppData'),
      BASECAMP_TOKEN_FILE: '',
      BASECAMP_ACCESS_TOKEN: '',
      BASECAMP_ACCOUNT_ID: fake.accountId,
      BASECAMP_API_URL: fake.url,
      BASECAMP_LAUNCHPAD_URL: fake.launchpadUrl,
      BASECAMP_CLIENT_ID: fake.client.id,
      BASECAMP_CLIENT_SECRET: fake.client.secret,
      BASECAMP_REDIRECT_URI: 'http://127.0.0.1:0/callback',
    },
  });
  expect(existsSync(tokenFile)).toBe(false);
  const result = await spawned.client.callTool({ name: 'list_projects', arguments: {} });
  expect(result.isError).toBeFalsy();
  expect(JSON.stringify(result.structuredContent)).toContain('The Leto Laptop');
  expect(asked).toHaveLength(1);
  expect(asked[0]?.mode).toBe('url');
  expect(asked[0]?.url.startsWith(`${fake.launchpadUrl}/authorization/new?`)).toBe(true);
  expect(completed).toEqual([asked[0]?.elicitationId]);
  expect(await page).toBe(200);
  const saved = JSON.parse(readFileSync(tokenFile, 'utf8')) as StoredLogin;
  expect(saved).toMatchObject({ accountId: fake.accountId, clientId: fake.client.id });
  expect(saved.accessToken).toMatch(/^bc-access-/);
  expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
  // No secret in the server's log.
  expect(spawned.stderr()).not.toContain(saved.accessToken);
  expect(spawned.stderr()).not.toContain(fake.client.secret);
});
