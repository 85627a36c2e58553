import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { ToolRegistry } from '@x/mcp-core';
import {
  type ConnectedClient,
  connectInMemory,
  errorBody,
  resultData,
  spawnStdioClient,
} from '@x/mcp-core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBasecampProvider } from './index.js';
import { type FakeBasecamp, LAPTOP, startFakeBasecamp } from './testing/index.js';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

let fake: FakeBasecamp;
beforeAll(async () => {
  fake = await startFakeBasecamp();
});
afterAll(() => fake.close());

let connection: ConnectedClient | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
});

type Answer = 'accept' | 'decline' | 'cancel';

/** A client that declares form elicitation, answers every question with `answer` and keeps them. */
function elicitingClient(answer: Answer, options: { modern?: boolean } = {}) {
  const asked: string[] = [];
  const client = new Client(
    { name: 'basecamp-confirm-test', version: '0.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(options.modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', (request) => {
    asked.push(String((request.params as { message?: unknown }).message));
    return answer === 'accept' ? { action: 'accept', content: {} } : { action: answer };
  });
  return { client, asked };
}

const provider = (toolsets = 'all') =>
  createBasecampProvider({
    apiUrl: fake.url,
    accessToken: fake.accessToken,
    accountId: fake.accountId,
    rateLimitRequests: 10_000,
    env: {},
    toolsets,
  });

const trashLaptop = { project_id: LAPTOP, confirm_name: 'The Leto Laptop' };
const deletes = () => fake.requests.filter((request) => request.method === 'DELETE');

function connected(): ConnectedClient {
  if (!connection) throw new Error('not connected');
  return connection;
}

describe('confirmations of destructive Basecamp tools', () => {
  it('has a question for every destructive tool', () => {
    const destructive = provider().tools.filter((tool) => tool.annotations.destructiveHint);
    expect(destructive.length).toBeGreaterThanOrEqual(13);
    expect(destructive.filter((tool) => !tool.confirm).map((tool) => tool.name)).toEqual([]);
  });

  it('asks the person, naming the project, and sends nothing upstream on decline', async () => {
    const { client, asked } = elicitingClient('decline');
    connection = await connectInMemory(new ToolRegistry().use(provider('projects')), { client });
    fake.resetLog();
    const result = await connected().client.callTool({ name: 'trash_project', arguments: trashLaptop });
    expect(asked).toEqual([`Trash project 'The Leto Laptop' (${LAPTOP}) and everything in it?`]);
    expect(errorBody(result)).toMatchObject({ error_code: 'DECLINED', retryable: false });
    expect(deletes()).toEqual([]);
  });

  it('trashes on accept', async () => {
    const { client, asked } = elicitingClient('accept');
    connection = await connectInMemory(new ToolRegistry().use(provider('projects')), { client });
    const project = resultData<{ id: number }>(
      await connected().client.callTool({ name: 'create_project', arguments: { name: 'Doomed' } }),
    );
    fake.resetLog();
    const result = await connected().client.callTool({
      name: 'trash_project',
      arguments: { project_id: project.id, confirm_name: 'Doomed' },
    });
    expect(resultData(result)).toEqual({ project_id: project.id, trashed: true });
    expect(asked).toEqual([`Trash project 'Doomed' (${project.id}) and everything in it?`]);
    expect(deletes().map((request) => request.path)).toEqual([
      `/${fake.accountId}/projects/${project.id}.json`,
    ]);
  });

  it('refuses a wrong confirm_name before asking anyone', async () => {
    const { client, asked } = elicitingClient('accept');
    connection = await connectInMemory(new ToolRegistry().use(provider('projects')), { client });
    fake.resetLog();
    const result = await connected().client.callTool({
      name: 'trash_project',
      arguments: { project_id: LAPTOP, confirm_name: 'The Leto Locator' },
    });
    expect(errorBody(result)).toMatchObject({ error_code: 'INVALID_INPUT' });
    expect(asked).toEqual([]);
    expect(deletes()).toEqual([]);
  });

  it('asks only when revoking access, and not to restore an item', async () => {
    const { client, asked } = elicitingClient('decline');
    connection = await connectInMemory(new ToolRegistry().use(provider('all')), { client });
    fake.resetLog();
    const revoke = await connected().client.callTool({
      name: 'update_project_access',
      arguments: { project_id: LAPTOP, revoke: [1049715930] },
    });
    expect(errorBody(revoke)).toMatchObject({ error_code: 'DECLINED' });
    expect(asked).toEqual([`Remove 1 person (ID 1049715930) from project 'The Leto Laptop' (${LAPTOP})?`]);
    expect(fake.requests.filter((request) => request.method === 'PUT')).toEqual([]);
    const lineup = await connected().client.callTool({
      name: 'delete_lineup_marker',
      arguments: { marker_id: 7 },
    });
    expect(errorBody(lineup)).toMatchObject({ error_code: 'DECLINED' });
    expect(asked.at(-1)).toBe('Remove Lineup marker 7 for everyone? It is not kept in the trash.');
    expect(deletes()).toEqual([]);
    await connected().client.callTool({
      name: 'set_recording_status',
      arguments: { recording_id: 1, status: 'active' },
    });
    expect(asked).toHaveLength(2);
  });

  it('keeps the confirm_name confirmation for a client without elicitation', async () => {
    connection = await connectInMemory(new ToolRegistry().use(provider('projects')));
    const project = resultData<{ id: number }>(
      await connected().client.callTool({ name: 'create_project', arguments: { name: 'Gone' } }),
    );
    const result = await connected().client.callTool({
      name: 'trash_project',
      arguments: { project_id: project.id, confirm_name: 'Gone' },
    });
    expect(resultData(result)).toEqual({ project_id: project.id, trashed: true });
  });
});

describe('confirmations through the built bin over stdio', () => {
  const env = () => ({
    BASECAMP_TOKEN_FILE: '',
    BASECAMP_API_URL: fake.url,
    BASECAMP_ACCESS_TOKEN: fake.accessToken,
    BASECAMP_ACCOUNT_ID: fake.accountId,
    BASECAMP_TOOLSETS: 'projects',
    MCP_CONFIRM: undefined,
    MCP_LOG_LEVEL: 'error',
  });

  it.each([
    { era: '2025-11-25', modern: false },
    { era: '2026-07-28', modern: true },
  ])('a $era client that declines: nothing is sent upstream', async ({ modern }) => {
    const { client, asked } = elicitingClient('decline', { modern });
    connection = await spawnStdioClient({ command: process.execPath, args: [bin], env: env(), client });
    fake.resetLog();
    const result = await connected().client.callTool({ name: 'trash_project', arguments: trashLaptop });
    expect(errorBody(result)).toMatchObject({ error_code: 'DECLINED' });
    expect(asked).toEqual([`Trash project 'The Leto Laptop' (${LAPTOP}) and everything in it?`]);
    expect(deletes()).toEqual([]);
  });

  it('documents --no-confirm and MCP_CONFIRM in --help, and refuses another MCP_CONFIRM value', () => {
    const run = (args: string[], extra: Record<string, string>) =>
      spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, ...extra } });
    const help = run(['--help'], {});
    expect(help.stdout).toContain('--no-confirm');
    expect(help.stdout).toContain('MCP_CONFIRM');
    const bad = run([], { MCP_CONFIRM: 'maybe' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('MCP_CONFIRM must be on or off, got "maybe"');
  });

  it.each([
    { how: '--no-confirm', args: ['--no-confirm'], extra: {} },
    { how: 'MCP_CONFIRM=off', args: [], extra: { MCP_CONFIRM: 'off' } },
  ])('with $how nobody is asked', async ({ args, extra }) => {
    const { client, asked } = elicitingClient('decline');
    connection = await spawnStdioClient({
      command: process.execPath,
      args: [bin, ...args],
      env: { ...env(), ...extra },
      client,
    });
    const name = `Unattended ${args.length}`;
    const project = resultData<{ id: number }>(
      await connected().client.callTool({ name: 'create_project', arguments: { name } }),
    );
    const result = await connected().client.callTool({
      name: 'trash_project',
      arguments: { project_id: project.id, confirm_name: name },
    });
    expect(resultData(result)).toEqual({ project_id: project.id, trashed: true });
    expect(asked).toEqual([]);
  });
});
