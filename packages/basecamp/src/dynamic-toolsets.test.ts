import { fileURLToPath } from 'node:url';
import { ToolRegistry } from '@x/mcp-core';
import {
  type ConnectedClient,
  connectInMemory,
  errorBody,
  resultData,
  spawnStdioClient,
} from '@x/mcp-core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type BasecampSettings, createBasecampProvider } from './index.js';
import { CARDS, CHECKINS, type FakeBasecamp, LAPTOP, LOCATOR, startFakeBasecamp } from './testing/index.js';
import { TOOL_SPECS } from './tools/index.js';

let fake: FakeBasecamp;
beforeAll(async () => {
  fake = await startFakeBasecamp();
});
afterAll(async () => {
  await fake.close();
});

const settings = (extra: BasecampSettings = {}): BasecampSettings => ({
  apiUrl: fake.url,
  accessToken: fake.accessToken,
  accountId: fake.accountId,
  rateLimitRequests: 10_000,
  env: {},
  ...extra,
});

const connections: ConnectedClient[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((connection) => connection.close()));
});

async function connect(registry: ToolRegistry) {
  const connection = await connectInMemory(registry);
  connections.push(connection);
  let changes = 0;
  connection.client.setNotificationHandler('notifications/tools/list_changed', () => {
    changes++;
  });
  return {
    client: connection.client,
    changes: () => changes,
    names: async () => (await connection.client.listTools()).tools.map((tool) => tool.name),
    call: (name: string, args: Record<string, unknown> = {}) =>
      connection.client.callTool({ name, arguments: args }),
  };
}

const toolsOf = (toolset: string) =>
  createBasecampProvider(settings({ toolsets: toolset })).tools.map((tool) => tool.name);

type Status = { name: string; tool_count: number; served_count: number; enabled: boolean; tools: string[] };

describe('dynamic toolsets', () => {
  it('is off unless asked for; BASECAMP_DYNAMIC_TOOLSETS or the setting switches it on', () => {
    const served = (extra: BasecampSettings) =>
      new ToolRegistry()
        .use(createBasecampProvider(settings(extra)))
        .getAll()
        .map((tool) => tool.name);
    expect(served({})).not.toContain('enable_toolset');
    expect(served({ env: { BASECAMP_DYNAMIC_TOOLSETS: '1' } })).toEqual([
      ...toolsOf('default'),
      'list_toolsets',
      'enable_toolset',
    ]);
    expect(served({ dynamicToolsets: true })).toContain('list_toolsets');
    expect(served({ dynamicToolsets: false, env: { BASECAMP_DYNAMIC_TOOLSETS: '1' } })).not.toContain(
      'list_toolsets',
    );
  });

  it('lists every toolset with its tools and whether it is served, and tells the model in the instructions', async () => {
    const { call, client } = await connect(
      new ToolRegistry().use(createBasecampProvider(settings({ dynamicToolsets: true }))),
    );
    const { toolsets } = resultData<{ toolsets: Status[] }>(await call('list_toolsets'));
    const cards = toolsets.find((toolset) => toolset.name === 'cards');
    expect(cards).toMatchObject({ enabled: false, served_count: 0, tool_count: toolsOf('cards').length });
    expect(cards?.tools).toEqual(toolsOf('cards'));
    const chat = toolsets.find((toolset) => toolset.name === 'chat');
    expect(chat).toMatchObject({ enabled: false, served_count: 2, tool_count: 7 });
    expect(toolsets.reduce((sum, toolset) => sum + toolset.tool_count, 0)).toBe(TOOL_SPECS.length);
    expect(client.getInstructions()).toMatch(
      /Not served \(enable one with enable_toolset when a task needs it; list_toolsets lists their tools\): projects/,
    );
  });

  it('adds the cards toolset while connected: list_changed, then move_card is listed and moves a card', async () => {
    const { call, names, changes } = await connect(
      new ToolRegistry().use(createBasecampProvider(settings({ dynamicToolsets: true }))),
    );
    expect(await names()).not.toContain('move_card');
    const enabled = resultData<{ added: string[]; already_enabled: boolean }>(
      await call('enable_toolset', { toolset: 'cards' }),
    );
    expect(enabled).toEqual({ toolset: 'cards', added: toolsOf('cards'), already_enabled: false });
    const listed = await names();
    expect(changes()).toBe(1);
    expect(listed).toEqual([...toolsOf('default'), 'list_toolsets', 'enable_toolset', ...toolsOf('cards')]);

    const moved = resultData<{ parent: { id: number; title: string } }>(
      await call('move_card', { project_id: LAPTOP, card_id: CARDS.specCard, column_id: CARDS.review }),
    );
    expect(moved.parent).toEqual(expect.objectContaining({ id: CARDS.review, title: 'Review' }));
    expect(
      fake.requests.some((request) => request.method === 'POST' && request.path.endsWith('/moves.json')),
    ).toBe(true);

    const again = resultData<{ added: string[]; already_enabled: boolean }>(
      await call('enable_toolset', { toolset: 'cards' }),
    );
    expect(again).toEqual({ toolset: 'cards', added: [], already_enabled: true });
    expect(await names()).toEqual(listed);
    expect(changes()).toBe(1);
  });

  it('answers an unknown toolset with INVALID_INPUT naming the toolsets', async () => {
    const { call } = await connect(
      new ToolRegistry().use(createBasecampProvider(settings({ dynamicToolsets: true }))),
    );
    const body = errorBody(await call('enable_toolset', { toolset: 'kanban' }));
    expect(body.error_code).toBe('INVALID_INPUT');
    expect(body.message).toContain('Unknown toolset "kanban". The toolsets are: projects, todos, messages,');
    expect(body.message).toContain('cards, checkins');
  });

  it('keeps the write tools of an enabled toolset out under read-only', async () => {
    const { call, names } = await connect(
      new ToolRegistry().use(createBasecampProvider(settings({ dynamicToolsets: true })), { readOnly: true }),
    );
    const { added } = resultData<{ added: string[] }>(await call('enable_toolset', { toolset: 'checkins' }));
    expect(added).toEqual([
      'list_checkin_questions',
      'get_checkin_question',
      'list_checkin_answers',
      'list_checkin_answerers',
      'get_checkin_answer',
      'list_checkin_reminders',
    ]);
    expect(await names()).not.toContain('answer_checkin');
    const answers = resultData<{ items: unknown[] }>(
      await call('list_checkin_answers', { project_id: LOCATOR, question_id: CHECKINS.dailyQuestion }),
    );
    expect(answers.items.length).toBeGreaterThan(0);
  });

  it('serves the tools prefixed in a composition, and enables with the prefix', async () => {
    const { call, names } = await connect(
      new ToolRegistry().use(createBasecampProvider(settings({ dynamicToolsets: true, toolsets: 'chat' })), {
        prefix: 'bc_',
      }),
    );
    expect(await names()).toEqual([
      ...toolsOf('chat').map((name) => `bc_${name}`),
      'bc_list_toolsets',
      'bc_enable_toolset',
    ]);
    const { added } = resultData<{ added: string[] }>(
      await call('bc_enable_toolset', { toolset: 'checkins' }),
    );
    expect(added).toContain('bc_answer_checkin');
    const answered = await call('bc_answer_checkin', {
      question_id: CHECKINS.dailyQuestion,
      content: 'Shipped the **hinge** order.',
    });
    expect(answered.isError).toBeFalsy();
  });
});

describe('toolRef to a tool of a toolset that is not served', () => {
  it('renders the served name with a note naming its toolset', () => {
    const registry = new ToolRegistry().use(createBasecampProvider(settings({ toolsets: 'cards' })), {
      prefix: 'bc_',
    });
    // get_card_table's project_id names list_projects, of the projects toolset.
    const projectIdText = (tool: { inputSchema: { properties?: Record<string, unknown> } } | undefined) =>
      (tool?.inputSchema.properties?.project_id as { description?: string } | undefined)?.description;
    const cardTable = registry.toMcpTools().find((tool) => tool.name === 'bc_get_card_table');
    expect(projectIdText(cardTable)).toContain('from bc_list_projects (toolset projects, not served here)');
    const dynamic = new ToolRegistry().use(
      createBasecampProvider(settings({ toolsets: 'cards', dynamicToolsets: true })),
    );
    expect(projectIdText(dynamic.toMcpTools().find((tool) => tool.name === 'get_card_table'))).toContain(
      'list_projects (toolset projects; if not listed, call enable_toolset first)',
    );
  });
});

describe('dynamic toolsets in the built bin', () => {
  const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

  it('--dynamic-toolsets over stdio: enable_toolset sends list_changed and the new tools answer', async () => {
    const { client, close } = await spawnStdioClient({
      command: process.execPath,
      args: [bin, '--sandbox', '--dynamic-toolsets'],
    });
    try {
      let changes = 0;
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        changes++;
      });
      const before = (await client.listTools()).tools.map((tool) => tool.name);
      expect(before).toContain('enable_toolset');
      expect(before).not.toContain('answer_checkin');
      expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
      const enabled = await client.callTool({ name: 'enable_toolset', arguments: { toolset: 'checkins' } });
      expect(resultData<{ added: string[] }>(enabled).added).toContain('answer_checkin');
      const after = (await client.listTools()).tools.map((tool) => tool.name);
      expect(changes).toBe(1);
      expect(after).toContain('answer_checkin');
      const answered = await client.callTool({
        name: 'answer_checkin',
        arguments: { question_id: CHECKINS.dailyQuestion, content: 'All good.' },
      });
      expect(answered.isError).toBeFalsy();
    } finally {
      await close();
    }
  });
});
