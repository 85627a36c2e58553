import { request } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AnyToolDefinition,
  createLogger,
  defineTool,
  type ToolProvider,
  ToolRegistry,
} from '../src/index.js';
import { type HttpHandle, parseNarrowedPath, serveHttp } from '../src/node/index.js';
import { type ConnectedClient, connectHttp, errorBody, resultText } from '../src/testing/index.js';

const READS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const WRITES = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
const quiet = createLogger('narrowing-test', { level: 'silent' });
const TOKEN = 'narrowing-test-token';

function provider(id: string, toolsets: Record<string, Array<[string, boolean]>>): ToolProvider {
  const tools: AnyToolDefinition[] = [];
  for (const list of Object.values(toolsets)) {
    for (const [name, writes] of list) {
      tools.push(
        defineTool({
          name,
          description: `The ${name} tool.`,
          inputSchema: z.strictObject({}),
          annotations: writes ? WRITES : READS,
          handler: () => `${id} ${name} ran`,
        }),
      );
    }
  }
  const named = Object.entries(toolsets).filter(([name]) => name !== '');
  return {
    id,
    version: '1.0.0',
    tools,
    ...(named.length > 0
      ? {
          toolsets: named.map(([name, list]) => ({
            name,
            description: name,
            tools: list.map(([tool]) => tool),
          })),
        }
      : {}),
  };
}

const registry = new ToolRegistry({ logger: quiet })
  .use(
    provider('basecamp', {
      todos: [
        ['list_todos', false],
        ['create_todo', true],
      ],
      messages: [
        ['list_messages', false],
        ['post_message', true],
      ],
    }),
    { prefix: 'basecamp_' },
  )
  .use(provider('forge', { '': [['get_ticket', false]] }), { prefix: 'forge_' });
const ALL = [
  'basecamp_list_todos',
  'basecamp_create_todo',
  'basecamp_list_messages',
  'basecamp_post_message',
  'forge_get_ticket',
];

let handle: HttpHandle;
let base: string;
beforeAll(async () => {
  handle = await serveHttp({
    name: 'narrow',
    version: '1.0.0',
    registry,
    port: 0,
    token: TOKEN,
    logger: quiet,
  });
  base = new URL(handle.url).origin;
});
afterAll(() => handle.close());
const connections: ConnectedClient[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((connection) => connection.close()));
});

async function tools(path: string, headers: Record<string, string> = {}) {
  const connection = await connectHttp(`${base}${path}`, { token: TOKEN, headers });
  connections.push(connection);
  const names = (await connection.client.listTools()).tools.map((tool) => tool.name);
  return { names, client: connection.client };
}

/** A raw POST (node:http sends the path exactly as written); resolves with status and JSON body. */
function post(path: string, headers: Record<string, string> = {}, token: string | null = TOKEN) {
  return new Promise<{
    status: number;
    body: { error?: { message: string; data?: Record<string, unknown> } };
  }>((resolve, reject) => {
    const req = request(
      `${base}${path}`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on('end', () => {
          let body = {};
          try {
            body = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    );
  });
}

describe('narrowed connection URLs over HTTP (token mode)', () => {
  it('serves everything at the endpoint itself', async () => {
    expect((await tools('/mcp')).names).toEqual(ALL);
  });

  it('narrows to toolsets by /mcp/x/<toolsets>, a provider id or id.toolset', async () => {
    expect((await tools('/mcp/x/basecamp.todos')).names).toEqual([
      'basecamp_list_todos',
      'basecamp_create_todo',
    ]);
    expect((await tools('/mcp/x/forge,basecamp.messages')).names).toEqual([
      'basecamp_list_messages',
      'basecamp_post_message',
      'forge_get_ticket',
    ]);
    expect((await tools('/mcp/x/basecamp')).names).toEqual(ALL.slice(0, 4));
    // A comma may come percent-encoded.
    expect((await tools('/mcp/x/forge%2Cbasecamp.todos')).names).toEqual([
      'basecamp_list_todos',
      'basecamp_create_todo',
      'forge_get_ticket',
    ]);
  });

  it('narrows to read-only tools by /mcp/readonly and /mcp/x/<toolsets>/readonly', async () => {
    expect((await tools('/mcp/readonly')).names).toEqual([
      'basecamp_list_todos',
      'basecamp_list_messages',
      'forge_get_ticket',
    ]);
    expect((await tools('/mcp/x/basecamp/readonly')).names).toEqual([
      'basecamp_list_todos',
      'basecamp_list_messages',
    ]);
  });

  it('narrows by the X-MCP-Toolsets, X-MCP-Tools and X-MCP-Readonly headers', async () => {
    expect((await tools('/mcp', { 'X-MCP-Toolsets': 'basecamp.messages' })).names).toEqual([
      'basecamp_list_messages',
      'basecamp_post_message',
    ]);
    expect((await tools('/mcp', { 'X-MCP-Tools': 'forge_get_ticket, basecamp_create_todo' })).names).toEqual([
      'basecamp_create_todo',
      'forge_get_ticket',
    ]);
    expect((await tools('/mcp', { 'X-MCP-Readonly': 'true' })).names).toEqual([
      'basecamp_list_todos',
      'basecamp_list_messages',
      'forge_get_ticket',
    ]);
    expect((await tools('/mcp', { 'X-MCP-Readonly': 'false' })).names).toEqual(ALL);
  });

  it('never widens: a header narrows a narrowed URL further', async () => {
    const { names, client } = await tools('/mcp/x/basecamp.todos', { 'X-MCP-Toolsets': 'basecamp,forge' });
    expect(names).toEqual(['basecamp_list_todos', 'basecamp_create_todo']);
    const readOnly = await tools('/mcp/readonly', {
      'X-MCP-Readonly': 'false',
      'X-MCP-Tools': 'basecamp_create_todo',
    });
    expect(readOnly.names).toEqual([]);
    const refused = await client.callTool({ name: 'forge_get_ticket', arguments: {} });
    expect(errorBody(refused)).toMatchObject({
      error_code: 'PERMISSION_DENIED',
      refused_by: "this connection's URL",
      message:
        "forge_get_ticket is not available here: this connection's URL allows only the toolsets basecamp.todos (it is in forge).",
    });
    const header = await readOnly.client.callTool({ name: 'basecamp_list_todos', arguments: {} });
    expect(errorBody(header).refused_by).toBe('the X-MCP-Tools header');
  });

  it('answers a call to a tool the URL leaves out with PERMISSION_DENIED, and runs the others', async () => {
    const { client } = await tools('/mcp/x/basecamp/readonly');
    expect(resultText(await client.callTool({ name: 'basecamp_list_todos', arguments: {} }))).toBe(
      'basecamp list_todos ran',
    );
    expect(errorBody(await client.callTool({ name: 'basecamp_create_todo', arguments: {} }))).toMatchObject({
      error_code: 'PERMISSION_DENIED',
      rule: 'readOnly',
    });
  });

  it('answers an unknown toolset or tool with 400 naming the valid ones', async () => {
    const unknown = await post('/mcp/x/basecamp.todo');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error?.message).toBe(
      'Unknown toolset "basecamp.todo" in this connection\'s URL. The toolsets are: basecamp, basecamp.messages, basecamp.todos, forge (a provider, or a provider, a dot and one of its toolsets).',
    );
    expect(unknown.body.error?.data).toEqual({
      valid_toolsets: ['basecamp', 'basecamp.messages', 'basecamp.todos', 'forge'],
    });
    // Names are exact: no case folding.
    expect((await post('/mcp/x/Basecamp')).status).toBe(400);
    const header = await post('/mcp', { 'X-MCP-Toolsets': 'jira' });
    expect(header.status).toBe(400);
    expect(header.body.error?.message).toContain('in the X-MCP-Toolsets header');
    const tool = await post('/mcp', { 'X-MCP-Tools': 'basecamp_delete_everything' });
    expect(tool.status).toBe(400);
    expect(tool.body.error?.data?.valid_tools).toEqual([...ALL].sort());
  });

  it('refuses malformed narrowings with 400 before anything else, echoing no long input', async () => {
    const long = 'a'.repeat(5000);
    const cases: Array<[string, Record<string, string>, string]> = [
      ['/mcp/x/', {}, 'empty toolset name'],
      ['/mcp/x/basecamp,,forge', {}, 'empty toolset name'],
      ['/mcp/x/forge,', {}, 'empty toolset name'],
      ['/mcp/x/forge,forge', {}, 'names the toolset "forge" twice'],
      [
        `/mcp/x/${Array.from({ length: 65 }, (_, index) => `t${index}`).join(',')}`,
        {},
        'more than 64 toolsets',
      ],
      [`/mcp/x/${long}`, {}, 'longer than any'],
      ['/mcp/x/forge/readonly/more', {}, 'A narrowed endpoint is'],
      ['/mcp/x/forge/writable', {}, 'A narrowed endpoint is'],
      ['/mcp/x', {}, 'A narrowed endpoint is'],
      ['/mcp/x/%E0%A4%A', {}, 'percent-encoding'],
      ['/mcp', { 'X-MCP-Readonly': 'yes' }, 'X-MCP-Readonly must be true or false'],
      ['/mcp', { 'X-MCP-Tools': '' }, 'empty tool name'],
      ['/mcp', { 'X-MCP-Toolsets': 'forge, forge' }, 'twice'],
    ];
    for (const [path, headers, message] of cases) {
      const answer = await post(path, headers, null);
      expect([path, answer.status]).toEqual([path, 400]);
      expect(answer.body.error?.message).toContain(message);
      expect(answer.body.error?.message.length).toBeLessThan(300);
    }
  });

  it('resolves dot segments before routing: /mcp/x/../admin is not the endpoint', async () => {
    for (const path of [
      '/mcp/x/../admin',
      '/mcp/x/%2e%2e/admin',
      '/mcp/other',
      '/mcpx/forge',
      '/mcp/X/forge',
    ]) {
      expect([path, (await post(path)).status]).toEqual([path, 404]);
    }
    // `/mcp/x/..` resolves to `/mcp/`, not the endpoint either.
    expect((await post('/mcp/x/..')).status).toBe(404);
    expect((await post('/mcp/x/forge/../basecamp')).status).toBe(200);
  });

  it('still needs the token on a narrowed URL', async () => {
    expect((await post('/mcp/x/forge', {}, null)).status).toBe(401);
    expect((await post('/mcp/readonly', {}, 'wrong')).status).toBe(401);
  });
});

describe('parseNarrowedPath', () => {
  it('reads the endpoint, /readonly and /x/<toolsets>[/readonly]; nothing else under it', () => {
    expect(parseNarrowedPath('/mcp', '/mcp')).toEqual({ readOnly: false });
    expect(parseNarrowedPath('/mcp', '/mcp/readonly')).toEqual({ readOnly: true });
    expect(parseNarrowedPath('/mcp', '/mcp/x/a,b.c')).toEqual({ toolsets: ['a', 'b.c'], readOnly: false });
    expect(parseNarrowedPath('/mcp', '/mcp/x/a/readonly')).toEqual({ toolsets: ['a'], readOnly: true });
    expect(parseNarrowedPath('/mcp', '/mcp/readonly/x/a')).toBeUndefined();
    expect(parseNarrowedPath('/mcp', '/mcp/')).toBeUndefined();
    expect(parseNarrowedPath('/mcp', '/other')).toBeUndefined();
  });
});
