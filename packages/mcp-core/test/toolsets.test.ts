import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AnyToolDefinition,
  createLogger,
  defineTool,
  mountTools,
  NotFoundError,
  type ToolProvider,
  ToolRegistry,
  toolRef,
} from '../src/index.js';
import { serveHttp } from '../src/node/index.js';
import {
  type ConnectedClient,
  connectHttp,
  connectInMemory,
  describeToolProvider,
  errorBody,
  resultData,
  resultText,
} from '../src/testing/index.js';

const READS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const WRITES = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

/** A notes provider in two toolsets; `archive` is not served at first. */
function notesTools(): Record<string, AnyToolDefinition> {
  const notes = new Map([['n1', 'Buy milk']]);
  return {
    list_notes: defineTool({
      name: 'list_notes',
      description: `Lists the notes by id. Old notes are in ${toolRef('list_archived')}.`,
      inputSchema: z.strictObject({}),
      annotations: READS,
      handler: () => [...notes.keys()].join(', '),
    }),
    get_note: defineTool({
      name: 'get_note',
      description: `Returns one note. Take the id from ${toolRef('list_notes')}.`,
      inputSchema: z.strictObject({ id: z.string().describe(`A note id from ${toolRef('list_notes')}`) }),
      annotations: READS,
      handler: ({ id }) => {
        const note = notes.get(id);
        if (note === undefined) {
          throw new NotFoundError(`No note ${id}. Archived notes: ${toolRef('list_archived')}.`);
        }
        return note;
      },
    }),
    list_archived: defineTool({
      name: 'list_archived',
      description: `Lists archived notes; archive one with ${toolRef('archive_note')}.`,
      inputSchema: z.strictObject({}),
      annotations: READS,
      handler: () => 'n0',
    }),
    archive_note: defineTool({
      name: 'archive_note',
      description: `Archives a note. Take the id from ${toolRef('list_notes')}.`,
      inputSchema: z.strictObject({ id: z.string().describe('A note id') }),
      annotations: WRITES,
      handler: ({ id }) => {
        notes.delete(id);
        return `Archived ${id}.`;
      },
    }),
  };
}

const TOOLSETS = [
  { name: 'notes', description: 'Reading notes', tools: ['list_notes', 'get_note'] },
  { name: 'archive', description: 'Archived notes', tools: ['list_archived', 'archive_note'] },
];

function notesProvider({ dynamic }: { dynamic: boolean }): ToolProvider & { loads: string[] } {
  const tools = notesTools();
  const loads: string[] = [];
  const pick = (names: readonly string[]) => names.map((name) => tools[name] as AnyToolDefinition);
  return {
    id: 'notes',
    version: '1.0.0',
    instructions: `Start with ${toolRef('list_notes')}; archived ones: ${toolRef('list_archived')}.`,
    tools: pick(['list_notes', 'get_note']),
    toolsets: TOOLSETS,
    loads,
    ...(dynamic
      ? {
          loadToolset: (name: string) => {
            loads.push(name);
            return pick(TOOLSETS.find((toolset) => toolset.name === name)?.tools ?? []);
          },
        }
      : {}),
  };
}

describeToolProvider(notesProvider({ dynamic: false }), { name: 'notes in toolsets' });
describeToolProvider(notesProvider({ dynamic: true }), { name: 'notes with dynamic toolsets' });

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
  const names = async () => (await connection.client.listTools()).tools.map((tool) => tool.name);
  const call = (name: string, args: Record<string, unknown> = {}) =>
    connection.client.callTool({ name, arguments: args });
  return { client: connection.client, names, call, changes: () => changes };
}

describe('toolRef to a tool of another toolset', () => {
  it('names the toolset when the server does not serve it, with the served prefix', async () => {
    const registry = new ToolRegistry().use(notesProvider({ dynamic: false }), { prefix: 'n_' });
    expect(registry.toMcpTools().map((tool) => tool.name)).toEqual(['n_list_notes', 'n_get_note']);
    expect(registry.toMcpTools()[0]?.description).toBe(
      'Lists the notes by id. Old notes are in n_list_archived (toolset archive, not served here).',
    );
    expect(registry.toMcpTools()[1]?.description).toBe('Returns one note. Take the id from n_list_notes.');
    expect(registry.instructions).toContain(
      'archived ones: n_list_archived (toolset archive, not served here).',
    );
    expect(errorBody(await registry.call('n_get_note', { id: 'x' })).message).toBe(
      'No note x. Archived notes: n_list_archived (toolset archive, not served here).',
    );
  });

  it('says "not enabled" for a tool the filters drop, whatever its toolset', () => {
    const registry = new ToolRegistry().use(notesProvider({ dynamic: true }), {
      exclude: ['list_archived'],
    });
    expect(registry.toMcpTools()[0]?.description).toBe(
      'Lists the notes by id. Old notes are in list_archived (not enabled on this server).',
    );
  });

  it('lets filter rules name tools of toolsets not served yet', () => {
    expect(() =>
      new ToolRegistry().use(notesProvider({ dynamic: true }), { exclude: ['archive_*'] }),
    ).not.toThrow();
    expect(() =>
      new ToolRegistry().use(notesProvider({ dynamic: true }), { exclude: ['nothing_*'] }),
    ).toThrow(/match no tool/);
  });
});

describe('dynamic toolsets', () => {
  it('lists the toolsets with their tools and whether each is enabled, loading nothing', async () => {
    const provider = notesProvider({ dynamic: true });
    const { names, call } = await connect(new ToolRegistry().use(provider, { prefix: 'n_' }));
    expect(await names()).toEqual(['n_list_notes', 'n_get_note', 'n_list_toolsets', 'n_enable_toolset']);
    expect(resultData(await call('n_list_toolsets'))).toEqual({
      toolsets: [
        {
          name: 'notes',
          description: 'Reading notes',
          tools: ['n_list_notes', 'n_get_note'],
          tool_count: 2,
          served_count: 2,
          enabled: true,
        },
        {
          name: 'archive',
          description: 'Archived notes',
          tools: ['n_list_archived', 'n_archive_note'],
          tool_count: 2,
          served_count: 0,
          enabled: false,
        },
      ],
    });
    expect(provider.loads).toEqual([]);
  });

  it('adds a toolset at run time: list_changed, listed, callable; a second time changes nothing', async () => {
    const registry = new ToolRegistry().use(notesProvider({ dynamic: true }), { prefix: 'n_' });
    const { names, call, changes } = await connect(registry);
    await expect(call('n_list_archived')).rejects.toThrow(/not found/);

    const enabled = await call('n_enable_toolset', { toolset: 'archive' });
    expect(resultData(enabled)).toEqual({
      toolset: 'archive',
      added: ['n_list_archived', 'n_archive_note'],
      already_enabled: false,
    });
    expect(await names()).toEqual([
      'n_list_notes',
      'n_get_note',
      'n_list_toolsets',
      'n_enable_toolset',
      'n_list_archived',
      'n_archive_note',
    ]);
    // One notification for the batch, delivered before the answer to tools/list.
    expect(changes()).toBe(1);
    expect(resultText(await call('n_list_archived'))).toBe('n0');
    expect(resultText(await call('n_archive_note', { id: 'n1' }))).toBe('Archived n1.');
    const listed = (await registry.toMcpTools()).find((tool) => tool.name === 'n_list_archived');
    expect(listed?.description).toBe('Lists archived notes; archive one with n_archive_note.');
    // Results name the now-served tool plainly.
    expect(errorBody(await call('n_get_note', { id: 'n1' })).message).toBe(
      'No note n1. Archived notes: n_list_archived.',
    );

    const again = await call('n_enable_toolset', { toolset: 'archive' });
    expect(resultData(again)).toEqual({ toolset: 'archive', added: [], already_enabled: true });
    expect(await names()).toHaveLength(6);
    expect(changes()).toBe(1);
    const status = resultData<{ toolsets: Array<{ enabled: boolean }> }>(await call('n_list_toolsets'));
    expect(status.toolsets.map((toolset) => toolset.enabled)).toEqual([true, true]);
  });

  it('tells every connected server, and a server connected later lists the tools', async () => {
    const registry = new ToolRegistry().use(notesProvider({ dynamic: true }));
    const first = await connect(registry);
    const second = await connect(registry);
    await first.call('enable_toolset', { toolset: 'archive' });
    expect(await second.names()).toContain('archive_note');
    expect(second.changes()).toBe(1);
    expect(resultText(await second.call('list_archived'))).toBe('n0');
    const third = await connect(registry);
    expect(await third.names()).toContain('list_archived');
  });

  it('reaches a server mounted with mountTools after the fact', async () => {
    const registry = new ToolRegistry().use(notesProvider({ dynamic: true }));
    const registered: string[] = [];
    mountTools({ registerTool: (name: string) => registered.push(name) }, registry);
    expect(registered).toEqual(['list_notes', 'get_note', 'list_toolsets', 'enable_toolset']);
    await registry.call('enable_toolset', { toolset: 'archive' });
    expect(registered.slice(4)).toEqual(['list_archived', 'archive_note']);
  });

  it('refuses an unknown toolset with INVALID_INPUT naming the toolsets', async () => {
    const { call, names } = await connect(new ToolRegistry().use(notesProvider({ dynamic: true })));
    const result = await call('enable_toolset', { toolset: 'kanban' });
    expect(result.isError).toBe(true);
    const body = errorBody(result);
    expect(body.error_code).toBe('INVALID_INPUT');
    expect(body.message).toBe(
      'Unknown toolset "kanban". The toolsets are: notes, archive. list_toolsets describes them.',
    );
    expect(body.candidates).toEqual(['notes', 'archive']);
    expect(errorBody(await call('enable_toolset', {})).error_code).toBe('INVALID_INPUT');
    expect(await names()).toHaveLength(4);
  });

  it('keeps write tools out when read-only, and says so in references', async () => {
    const registry = new ToolRegistry().use(notesProvider({ dynamic: true }), { readOnly: true });
    const { call, names } = await connect(registry);
    const enabled = resultData<{ added: string[] }>(await call('enable_toolset', { toolset: 'archive' }));
    expect(enabled.added).toEqual(['list_archived']);
    expect(await names()).not.toContain('archive_note');
    expect(registry.toMcpTools().find((tool) => tool.name === 'list_archived')?.description).toBe(
      'Lists archived notes; archive one with archive_note (not enabled on this server).',
    );
    const status = resultData<{ toolsets: Array<{ tools: string[]; enabled: boolean }> }>(
      await call('list_toolsets'),
    );
    expect(status.toolsets[1]).toMatchObject({ tools: ['list_archived'], enabled: true });
  });

  it('points a reference to a tool of a toolset that is off at enable_toolset', () => {
    const registry = new ToolRegistry().use(notesProvider({ dynamic: true }), { prefix: 'n_' });
    expect(registry.toMcpTools()[0]?.description).toBe(
      'Lists the notes by id. Old notes are in n_list_archived (toolset archive; if not listed, call n_enable_toolset first).',
    );
  });

  it('applies include and exclude rules to the tools a toolset adds', async () => {
    const registry = new ToolRegistry().use(notesProvider({ dynamic: true }), { exclude: ['archive_note'] });
    const added = resultData<{ added: string[] }>(
      await registry.call('enable_toolset', { toolset: 'archive' }),
    );
    expect(added.added).toEqual(['list_archived']);
  });

  it('over stateless HTTP adds the tools for every later request', async () => {
    const logger = createLogger('toolsets-test', { level: 'silent' });
    const registry = new ToolRegistry({ logger }).use(notesProvider({ dynamic: true }));
    const handle = await serveHttp({ name: 'notes', version: '1.0.0', registry, port: 0, logger });
    try {
      const first = await connectHttp(handle.url);
      connections.push(first);
      const enabled = await first.client.callTool({
        name: 'enable_toolset',
        arguments: { toolset: 'archive' },
      });
      expect(resultData<{ added: string[] }>(enabled).added).toEqual(['list_archived', 'archive_note']);
      const later = await connectHttp(handle.url);
      connections.push(later);
      expect((await later.client.listTools()).tools.map((tool) => tool.name)).toContain('archive_note');
      expect(resultText(await later.client.callTool({ name: 'list_archived', arguments: {} }))).toBe('n0');
    } finally {
      await Promise.all(connections.splice(0).map((connection) => connection.close()));
      await handle.close();
    }
  });
});
