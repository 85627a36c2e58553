import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AnyToolDefinition,
  createLogger,
  defineTool,
  RegistryView,
  type ToolAnnotations,
  type ToolProvider,
  ToolRegistry,
} from '../src/index.js';
import { type HttpHandle, parseNarrowedPath, serveHttp } from '../src/node/index.js';
import { Bm25Index, tokenize } from '../src/surface/bm25.js';
import {
  type ConnectedClient,
  connectHttp,
  connectInMemory,
  errorBody,
  resultData,
  spawnStdioClient,
} from '../src/testing/index.js';
import { fixtureBin, runFixtureBin } from './fixtures/spawn-bin.js';

const READS: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
const CREATES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
};
const DELETES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};
const quiet = createLogger('search-test', { level: 'silent' });
const TOKEN = 'search-surface-test-token';

const tool = (name: string, description: string, annotations: ToolAnnotations, params: string[] = []) =>
  defineTool({
    name,
    title: name.replace(/_/g, ' '),
    description,
    inputSchema: z.strictObject(Object.fromEntries(params.map((param) => [param, z.string().min(1)]))),
    outputSchema: z.object({ ran: z.string(), args: z.record(z.string(), z.unknown()) }),
    annotations,
    handler: (args) => ({ ran: name, args }),
  });

const TODOS = [
  tool('list_todos', 'Lists the to-dos of one to-do list, with assignees and due dates.', READS, ['list_id']),
  tool('create_todo', 'Adds a to-do to a to-do list, optionally assigned to people.', CREATES, [
    'list_id',
    'content',
  ]),
];
const MESSAGES = [
  tool('list_messages', 'Lists the posts on a message board, newest first.', READS),
  tool('delete_message', 'Deletes a message board post for good.', DELETES, ['message_id']),
];

function basecamp(options: { dynamic?: boolean } = {}): ToolProvider {
  const toolsets = [
    { name: 'todos', description: 'To-dos', tools: TODOS.map((each) => each.name) },
    { name: 'messages', description: 'Messages', tools: MESSAGES.map((each) => each.name) },
  ];
  return {
    id: 'basecamp',
    version: '1.0.0',
    tools: options.dynamic ? TODOS : [...TODOS, ...MESSAGES],
    toolsets,
    ...(options.dynamic
      ? { loadToolset: (name: string) => (name === 'messages' ? MESSAGES : TODOS) as AnyToolDefinition[] }
      : {}),
  };
}

const forge: ToolProvider = {
  id: 'forge',
  version: '1.0.0',
  tools: [tool('get_ticket', 'Returns one Forge ticket with its spec and status.', READS, ['ticket_id'])],
};

const composed = () =>
  new ToolRegistry({ logger: quiet })
    .use(basecamp(), { prefix: 'basecamp_' })
    .use(forge, { prefix: 'forge_' });

const connections: ConnectedClient[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((connection) => connection.close()));
});

async function inMemory(source: ToolRegistry | RegistryView) {
  const connection = await connectInMemory(source, { surface: 'search' });
  connections.push(connection);
  return connection.client;
}

type Client = ConnectedClient['client'];
const names = async (client: Client) => (await client.listTools()).tools.map((each) => each.name);
const search = async (client: Client, query: string, limit?: number) =>
  resultData<{ tools: Array<{ name: string; inputSchema: object; annotations: object }>; hint?: string }>(
    await client.callTool({ name: 'search_tools', arguments: { query, ...(limit ? { limit } : {}) } }),
  );
const modelVisibleBytes = (tools: Array<{ name: string; description?: string; inputSchema: unknown }>) =>
  tools.reduce(
    (sum, each) =>
      sum +
      Buffer.byteLength(
        JSON.stringify({ name: each.name, description: each.description, input_schema: each.inputSchema }),
      ),
    0,
  );

describe('BM25 over tool definitions', () => {
  it('tokenizes the way people and tool names write words', () => {
    expect(tokenize('Add a to-do for Ana')).toEqual(['add', 'todo', 'ana']);
    expect(tokenize('basecamp_list_todos projectId')).toEqual(['basecamp', 'list', 'todo', 'project', 'id']);
    expect(tokenize('the of and')).toEqual([]);
  });

  it('ranks by weighted matches, deterministically, ties in document order', () => {
    const index = new Bm25Index([
      { id: 'a', fields: [{ text: 'list messages', weight: 1 }] },
      { id: 'b', fields: [{ text: 'create todo', weight: 3 }] },
      { id: 'c', fields: [{ text: 'todo list', weight: 1 }] },
      { id: 'd', fields: [{ text: 'create todo', weight: 3 }] },
    ]);
    expect(index.search('create a to-do', 10).map((hit) => hit.id)).toEqual(['b', 'd', 'c']);
    expect(index.search('create a to-do', 10, (id) => id !== 'b').map((hit) => hit.id)).toEqual(['d', 'c']);
    expect(index.search('the', 10)).toEqual([]);
    expect(index.search('nothing matches', 10)).toEqual([]);
  });
});

describe('the search surface in process', () => {
  it('lists three tools; call_tool carries the worst case of what it reaches', async () => {
    const client = await inMemory(composed());
    const { tools } = await client.listTools();
    expect(tools.map((each) => each.name)).toEqual(['search_tools', 'describe_tool', 'call_tool']);
    expect(tools[2]?.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(tools[0]?.annotations?.readOnlyHint).toBe(true);
    expect(tools[0]?.description).toContain('5 tools (basecamp, forge)');
    expect(client.getInstructions()).toContain('search_tools');
  });

  it('finds tools by what people ask, with their full input schemas', async () => {
    const client = await inMemory(composed());
    const found = await search(client, 'add a to-do for Ana to the launch list');
    expect(found.tools[0]?.name).toBe('basecamp_create_todo');
    expect(found.tools[0]?.inputSchema).toMatchObject({ properties: { list_id: {}, content: {} } });
    expect((await search(client, 'what is ticket acme-42 about', 1)).tools.map((each) => each.name)).toEqual([
      'forge_get_ticket',
    ]);
    const none = await search(client, 'zebra');
    expect(none.tools).toEqual([]);
    expect(none.hint).toContain('No tool matches');
  });

  it('describes one tool, output schema included', async () => {
    const client = await inMemory(composed());
    const described = resultData<{ name: string; outputSchema?: object; annotations: object }>(
      await client.callTool({ name: 'describe_tool', arguments: { name: 'basecamp_delete_message' } }),
    );
    expect(described.name).toBe('basecamp_delete_message');
    expect(described.outputSchema).toMatchObject({ properties: { ran: {} } });
    expect(described.annotations).toEqual(DELETES);
    const unknown = errorBody(
      await client.callTool({ name: 'describe_tool', arguments: { name: 'basecamp_create_todos' } }),
    );
    expect(unknown.error_code).toBe('NOT_FOUND');
    expect(unknown.candidates).toContain('basecamp_create_todo');
  });

  it('call_tool answers exactly as a direct call, errors included', async () => {
    const registry = composed();
    const client = await inMemory(registry);
    const direct = await connectInMemory(registry);
    connections.push(direct);
    const args = { list_id: '7', content: 'Ship it' };
    const through = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'basecamp_create_todo', arguments: args },
    });
    const straight = await direct.client.callTool({ name: 'basecamp_create_todo', arguments: args });
    expect(through).toEqual(straight);
    expect(through.structuredContent).toEqual({ ran: 'create_todo', args });

    const bad = { list_id: '', extra: 1 };
    const invalid = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'basecamp_create_todo', arguments: bad },
    });
    expect(invalid).toEqual(await direct.client.callTool({ name: 'basecamp_create_todo', arguments: bad }));
    expect(errorBody(invalid).error_code).toBe('INVALID_INPUT');

    const unknown = errorBody(
      await client.callTool({ name: 'call_tool', arguments: { name: 'create_todo' } }),
    );
    expect(unknown.error_code).toBe('NOT_FOUND');
    expect(unknown.candidates).toContain('basecamp_create_todo');
    const malformed = errorBody(await client.callTool({ name: 'call_tool', arguments: { tool: 'x' } }));
    expect(malformed.error_code).toBe('INVALID_INPUT');
    expect(malformed.message).toContain('call_tool');
    // The surface's own tools are not in the catalog.
    const itself = errorBody(await client.callTool({ name: 'call_tool', arguments: { name: 'call_tool' } }));
    expect(itself.error_code).toBe('NOT_FOUND');
  });

  it('a read-only view: call_tool is read-only, finds and calls only read tools', async () => {
    const view = new RegistryView(composed(), [{ source: "this connection's URL", readOnly: true }]);
    const client = await inMemory(view);
    const { tools } = await client.listTools();
    expect(tools[2]?.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect((await search(client, 'delete a message post')).tools.map((each) => each.name)).toEqual([
      'basecamp_list_messages',
    ]);
    const refused = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'basecamp_delete_message', arguments: { message_id: '1' } },
    });
    expect(errorBody(refused)).toMatchObject({
      error_code: 'PERMISSION_DENIED',
      refused_by: "this connection's URL",
      rule: 'readOnly',
    });
    const described = errorBody(
      await client.callTool({ name: 'describe_tool', arguments: { name: 'basecamp_delete_message' } }),
    );
    expect(described.error_code).toBe('PERMISSION_DENIED');
  });

  it('enable_toolset through call_tool: the new tools are found, call_tool is updated with list_changed', async () => {
    const registry = new ToolRegistry({ logger: quiet }).use(basecamp({ dynamic: true }));
    const client = await inMemory(registry);
    let changed = 0;
    const notified = new Promise<void>((resolve) => {
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        changed += 1;
        resolve();
      });
    });
    const before = (await client.listTools()).tools[2]?.annotations;
    expect(before?.destructiveHint).toBe(false);
    expect((await search(client, 'delete a message')).tools.map((each) => each.name)).not.toContain(
      'delete_message',
    );
    const enabled = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'enable_toolset', arguments: { toolset: 'messages' } },
    });
    expect(enabled.structuredContent).toMatchObject({ added: ['list_messages', 'delete_message'] });
    await notified;
    expect(changed).toBe(1);
    const { tools } = await client.listTools();
    expect(tools.map((each) => each.name)).toEqual(['search_tools', 'describe_tool', 'call_tool']);
    expect(tools[2]?.annotations?.destructiveHint).toBe(true);
    expect((await search(client, 'delete a message', 1)).tools.map((each) => each.name)).toEqual([
      'delete_message',
    ]);
  });
});

describe('the search surface over HTTP', () => {
  let handle: HttpHandle;
  let searchHandle: HttpHandle;
  let base: string;
  beforeAll(async () => {
    const registry = composed();
    handle = await serveHttp({ name: 's', version: '1', registry, port: 0, token: TOKEN, logger: quiet });
    searchHandle = await serveHttp({
      name: 's',
      version: '1',
      registry,
      surface: 'search',
      port: 0,
      token: TOKEN,
      logger: quiet,
    });
    base = new URL(handle.url).origin;
  });
  afterAll(async () => {
    await handle.close();
    await searchHandle.close();
  });
  const connect = async (url: string) => {
    const connection = await connectHttp(url, { token: TOKEN });
    connections.push(connection);
    return connection.client;
  };

  it('parses /search at the end of every narrowed path', () => {
    expect(parseNarrowedPath('/mcp', '/mcp/search')).toEqual({ readOnly: false, search: true });
    expect(parseNarrowedPath('/mcp', '/mcp/readonly/search')).toEqual({ readOnly: true, search: true });
    expect(parseNarrowedPath('/mcp', '/mcp/x/a,b/search')).toEqual({
      toolsets: ['a', 'b'],
      readOnly: false,
      search: true,
    });
    expect(parseNarrowedPath('/mcp', '/mcp/x/a/readonly/search')).toEqual({
      toolsets: ['a'],
      readOnly: true,
      search: true,
    });
    // A toolset named search stays one; the old forms are unchanged.
    expect(parseNarrowedPath('/mcp', '/mcp/x/search')).toEqual({ toolsets: ['search'], readOnly: false });
    expect(parseNarrowedPath('/mcp', '/mcp/x/a/readonly')).toEqual({ toolsets: ['a'], readOnly: true });
    expect(parseNarrowedPath('/mcp', '/mcp/search/readonly')).toBeUndefined();
    expect(parseNarrowedPath('/mcp', '/mcp/search/search')).toBeUndefined();
    expect(() => parseNarrowedPath('/mcp', '/mcp/x/a/search/readonly')).toThrow(/\/search/);
  });

  it('/mcp stays the list; /mcp/search serves the surface over everything', async () => {
    expect(await names(await connect(`${base}/mcp`))).toHaveLength(5);
    const client = await connect(`${base}/mcp/search`);
    expect(await names(client)).toEqual(['search_tools', 'describe_tool', 'call_tool']);
    const ran = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'forge_get_ticket', arguments: { ticket_id: 'acme-42' } },
    });
    expect(ran.structuredContent).toEqual({ ran: 'get_ticket', args: { ticket_id: 'acme-42' } });
  });

  it('combines with narrowing: /mcp/x/<toolsets>/readonly/search reaches only what the rest allows', async () => {
    const client = await connect(`${base}/mcp/x/basecamp/readonly/search`);
    const { tools } = await client.listTools();
    expect(tools[2]?.annotations?.readOnlyHint).toBe(true);
    expect(tools[0]?.description).toContain('2 tools (basecamp)');
    expect((await search(client, 'ticket')).tools).toEqual([]);
    const refused = errorBody(
      await client.callTool({
        name: 'call_tool',
        arguments: { name: 'forge_get_ticket', arguments: { ticket_id: 'a' } },
      }),
    );
    expect(refused).toMatchObject({ error_code: 'PERMISSION_DENIED', rule: 'toolsets' });
    const write = errorBody(
      await client.callTool({
        name: 'call_tool',
        arguments: { name: 'basecamp_create_todo', arguments: { list_id: '1', content: 'x' } },
      }),
    );
    expect(write).toMatchObject({ error_code: 'PERMISSION_DENIED', rule: 'readOnly' });
  });

  it('serveHttp({ surface: "search" }) serves the surface at the endpoint itself', async () => {
    const client = await connect(searchHandle.url);
    expect(await names(client)).toEqual(['search_tools', 'describe_tool', 'call_tool']);
    const tools = (await client.listTools()).tools;
    // The composed fixture in three tools: far below a listing of every tool.
    expect(modelVisibleBytes(tools)).toBeLessThan(1_500 * 3.6);
  });
});

describe('a scope step-up through call_tool', () => {
  let handle: HttpHandle;
  beforeAll(async () => {
    handle = await serveHttp({
      name: 's',
      version: '1',
      registry: composed(),
      port: 0,
      logger: quiet,
      auth: {
        authenticate: async () => ({ token: 'read-token', clientId: 'reader', scopes: ['read'] }),
        accessFor: () => [
          {
            source: "your token's scopes",
            readOnly: true,
            challenge: () =>
              new Response(null, {
                status: 403,
                headers: { 'www-authenticate': 'Bearer error="insufficient_scope", scope="write"' },
              }),
          },
        ],
      },
    });
  });
  afterAll(() => handle.close());

  /** A raw JSON-RPC POST, as a client sends a call without a session (stateless HTTP). */
  const call = (path: string, name: string, args: Record<string, unknown>) =>
    fetch(`${new URL(handle.url).origin}${path}`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer read-token',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name, arguments: args },
      }),
    });

  it('answers the challenge of the tool call_tool names, as a direct call of it', async () => {
    const direct = await call('/mcp', 'basecamp_create_todo', { list_id: '1', content: 'x' });
    expect(direct.status).toBe(403);
    const through = await call('/mcp/search', 'call_tool', {
      name: 'basecamp_create_todo',
      arguments: { list_id: '1', content: 'x' },
    });
    expect(through.status).toBe(403);
    expect(through.headers.get('www-authenticate')).toContain('insufficient_scope');
    // A read tool passes, and so does search_tools itself.
    const read = await call('/mcp/search', 'call_tool', {
      name: 'forge_get_ticket',
      arguments: { ticket_id: 'a' },
    });
    expect(read.status).toBe(200);
    expect(await read.text()).toContain('get_ticket');
    expect((await call('/mcp/search', 'search_tools', { query: 'add a to-do' })).status).toBe(200);
  });
});

// Each test spawns the fixture bin several times: on a loaded machine that takes a while.
describe('the search surface of a bin', { timeout: 60_000 }, () => {
  it('--surface search and MCP_SURFACE=search serve the three tools over stdio', async () => {
    for (const [args, env] of [
      [['--surface', 'search'], {}],
      [[], { MCP_SURFACE: 'search' }],
    ] as const) {
      const connection = await spawnStdioClient({
        ...fixtureBin,
        args: [...fixtureBin.args, ...args],
        env: { MCP_START_CACHE: 'off', ...env },
      });
      connections.push(connection);
      expect(await names(connection.client)).toEqual(['search_tools', 'describe_tool', 'call_tool']);
      const found = await search(connection.client, 'echo text back');
      expect(found.tools[0]?.name).toBe('echo');
      const echoed = await connection.client.callTool({
        name: 'call_tool',
        arguments: { name: 'echo', arguments: { text: 'hi' } },
      });
      expect(echoed.isError).toBeFalsy();
    }
  });

  it('a bad surface is a usage error naming the setting; --help documents the flag', () => {
    const flag = runFixtureBin(['--surface', 'tiny']);
    expect(flag.status).toBe(2);
    expect(flag.stderr).toContain('--surface must be list or search, got "tiny"');
    const env = runFixtureBin([], { ...process.env, MCP_SURFACE: 'all' });
    expect(env.status).toBe(2);
    expect(env.stderr).toContain('MCP_SURFACE must be list or search');
    const help = runFixtureBin(['--help'], { ...process.env, MCP_SURFACE: 'all' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--surface <list|search>');
    expect(help.stdout).toContain('MCP_SURFACE');
  });
});
