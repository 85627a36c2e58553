import type { AuthInfo } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AnyToolDefinition,
  createLogger,
  definePrompt,
  defineResource,
  defineTool,
  observe,
  RateLimitedError,
  RegistryView,
  type ToolAccess,
  type ToolCallEnd,
  type ToolProvider,
  ToolRegistry,
  toolRef,
} from '../src/index.js';
import { type HttpAuth, type HttpHandle, serveHttp } from '../src/node/index.js';
import {
  type ConnectedClient,
  connectHttp,
  connectInMemory,
  errorBody,
  resultText,
} from '../src/testing/index.js';

const READS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const WRITES = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
const quiet = createLogger('access-test', { level: 'silent' });

/** Notes in two toolsets (`notes`: read + write, `archive`: read + write); `archive` loads later when dynamic. */
function notesProvider({ dynamic }: { dynamic: boolean }): ToolProvider & { ran: string[] } {
  const ran: string[] = [];
  const tool = (name: string, annotations: typeof READS) =>
    defineTool({
      name,
      description: `The ${name.replace('_', ' ')} tool.`,
      inputSchema: z.strictObject({}),
      annotations,
      handler: () => {
        ran.push(name);
        return `${name} ran`;
      },
    });
  const tools: Record<string, AnyToolDefinition> = {
    list_notes: tool('list_notes', READS),
    add_note: tool('add_note', WRITES),
    list_archived: tool('list_archived', READS),
    archive_note: tool('archive_note', WRITES),
  };
  const toolsets = [
    { name: 'notes', description: 'Notes', tools: ['list_notes', 'add_note'] },
    { name: 'archive', description: 'The archive', tools: ['list_archived', 'archive_note'] },
  ];
  const pick = (names: readonly string[]) => names.map((name) => tools[name] as AnyToolDefinition);
  return {
    id: 'notes',
    version: '1.0.0',
    tools: dynamic ? pick(['list_notes', 'add_note']) : Object.values(tools),
    toolsets,
    ran,
    prompts: dynamic
      ? []
      : [
          definePrompt({
            name: 'tidy_up',
            description: `Archive old notes with ${toolRef('archive_note')}.`,
            tools: ['archive_note'],
            argsSchema: z.strictObject({}),
            handler: () => 'Archive the old notes.',
          }),
          definePrompt({
            name: 'review',
            description: `Read the notes with ${toolRef('list_notes')}.`,
            tools: ['list_notes'],
            argsSchema: z.strictObject({}),
            handler: () => 'Read the notes.',
          }),
        ],
    resources: [
      defineResource({
        name: 'readme',
        uri: 'notes://readme',
        description: 'How the notes work',
        mimeType: 'text/plain',
        read: () => 'Notes are short.',
      }),
    ],
    ...(dynamic
      ? { loadToolset: (name: string) => pick(toolsets.find((each) => each.name === name)?.tools ?? []) }
      : {}),
  };
}

const weatherProvider: ToolProvider = {
  id: 'weather',
  version: '1.0.0',
  tools: [
    defineTool({
      name: 'forecast',
      description: 'The forecast.',
      inputSchema: z.strictObject({}),
      annotations: READS,
      handler: () => 'sunny',
    }),
  ],
};

function composed(dynamic = false) {
  const notes = notesProvider({ dynamic });
  const registry = new ToolRegistry({ logger: quiet })
    .use(notes, { prefix: 'notes_' })
    .use(weatherProvider, { prefix: 'weather_' });
  return { registry, notes };
}

const connections: ConnectedClient[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((connection) => connection.close()));
});

async function connect(source: ToolRegistry | RegistryView) {
  const connection = await connectInMemory(source);
  connections.push(connection);
  const { client } = connection;
  return {
    client,
    names: async () => (await client.listTools()).tools.map((tool) => tool.name),
    prompts: async () => (await client.listPrompts()).prompts.map((prompt) => prompt.name),
    resources: async () => (await client.listResources()).resources.map((resource) => resource.name),
    call: (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }),
  };
}

const url = (access: Omit<ToolAccess, 'source'>): ToolAccess => ({
  source: "this connection's URL",
  ...access,
});

describe('the registry knows each tool’s toolsets', () => {
  it('names a provider’s tools by its id and `<id>.<toolset>`', () => {
    const { registry } = composed();
    expect(registry.toolsetNames()).toEqual(['notes', 'notes.archive', 'notes.notes', 'weather']);
    expect(registry.toolsetsOf('notes_add_note')).toEqual(['notes', 'notes.notes']);
    expect(registry.toolsetsOf('weather_forecast')).toEqual(['weather']);
    expect(registry.toolsetsOf('nope')).toBeUndefined();
  });
});

describe('a RegistryView through a real MCP client', () => {
  it('lists exactly the tools every access allows, with the descriptors the registry lists', async () => {
    const { registry } = composed();
    const whole = await connect(registry);
    const all = (await whole.client.listTools()).tools;
    const view = await connect(new RegistryView(registry, [url({ toolsets: ['notes.archive', 'weather'] })]));
    const listed = (await view.client.listTools()).tools;
    expect(listed.map((tool) => tool.name)).toEqual([
      'notes_list_archived',
      'notes_archive_note',
      'weather_forecast',
    ]);
    // The same descriptors the SDK lists for the whole registry.
    expect(listed).toEqual(all.filter((tool) => listed.some((each) => each.name === tool.name)));
  });

  it('answers a call to a refused tool with PERMISSION_DENIED naming the access and why', async () => {
    const { registry, notes } = composed();
    const view = await connect(new RegistryView(registry, [url({ toolsets: ['weather'] })]));
    const refused = await view.call('notes_add_note');
    expect(refused.isError).toBe(true);
    expect(errorBody(refused)).toMatchObject({
      error_code: 'PERMISSION_DENIED',
      refused_by: "this connection's URL",
      rule: 'toolsets',
      message:
        "notes_add_note is not available here: this connection's URL allows only the toolsets weather (it is in notes.notes).",
    });
    expect(notes.ran).toEqual([]);
    expect(resultText(await view.call('weather_forecast'))).toBe('sunny');
  });

  it('serves only read-only tools under readOnly, and hides the prompts that name a refused tool', async () => {
    const { registry, notes } = composed();
    const view = await connect(new RegistryView(registry, [url({ readOnly: true })]));
    expect(await view.names()).toEqual(['notes_list_notes', 'notes_list_archived', 'weather_forecast']);
    expect(await view.prompts()).toEqual(['notes_review']);
    expect(await view.resources()).toEqual(['notes_readme']);
    expect(errorBody(await view.call('notes_archive_note'))).toMatchObject({
      error_code: 'PERMISSION_DENIED',
      rule: 'readOnly',
      message:
        "notes_archive_note is not available here: this connection's URL allows only read-only tools, and notes_archive_note can change data.",
    });
    expect(notes.ran).toEqual([]);
  });

  it('serves only named tools under `tools`', async () => {
    const { registry } = composed();
    const view = await connect(
      new RegistryView(registry, [url({ tools: ['notes_list_notes', 'weather_forecast'] })]),
    );
    expect(await view.names()).toEqual(['notes_list_notes', 'weather_forecast']);
    expect(await view.prompts()).toEqual(['notes_review']);
    expect(errorBody(await view.call('notes_list_archived'))).toMatchObject({
      error_code: 'PERMISSION_DENIED',
      rule: 'tools',
    });
  });

  it('lists only a named provider’s prompts and resources under `toolsets`', async () => {
    const { registry } = composed();
    const view = await connect(new RegistryView(registry, [url({ toolsets: ['weather'] })]));
    expect(await view.names()).toEqual(['weather_forecast']);
    // The notes provider serves prompts and resources, weather none: nothing is left to list.
    expect(await view.prompts()).toEqual([]);
    expect(await view.resources()).toEqual([]);
    const notes = await connect(new RegistryView(registry, [url({ toolsets: ['notes.notes'] })]));
    expect(await notes.resources()).toEqual(['notes_readme']);
    expect(await notes.prompts()).toEqual(['notes_review']);
  });

  it('intersects several accesses: a tool is served only when every one allows it', async () => {
    const { registry } = composed();
    const policy: ToolAccess = { source: "the server's policy (rule 2)", toolsets: ['notes'] };
    const view = await connect(new RegistryView(registry, [url({ readOnly: true }), policy]));
    expect(await view.names()).toEqual(['notes_list_notes', 'notes_list_archived']);
    // Refused by the URL first (read-only), then by the policy: the first refusal names itself.
    expect(errorBody(await view.call('notes_add_note')).refused_by).toBe("this connection's URL");
    expect(errorBody(await view.call('weather_forecast')).refused_by).toBe("the server's policy (rule 2)");
  });

  it('answers an unknown tool as the SDK does, not as a refusal', async () => {
    const { registry } = composed();
    const view = await connect(new RegistryView(registry, [url({ readOnly: true })]));
    await expect(view.call('no_such_tool')).rejects.toThrow('Tool no_such_tool not found');
  });

  it('with no access, serves the whole registry', async () => {
    const { registry } = composed();
    const view = await connect(new RegistryView(registry, []));
    expect(await view.names()).toEqual(registry.toMcpTools().map((tool) => tool.name));
  });
});

describe('admit', () => {
  it('is asked before every allowed call, never for a refused one; a throw refuses the call with its error', async () => {
    const { registry, notes } = composed();
    const asked: string[] = [];
    let budget = 1;
    const limit: ToolAccess = {
      source: 'the rate limit',
      admit({ tool }) {
        asked.push(tool);
        if (budget-- <= 0) {
          throw new RateLimitedError('Too many calls: try again in 2 s.', {
            details: { retry_after_ms: 2000 },
          });
        }
      },
    };
    const view = await connect(new RegistryView(registry, [url({ readOnly: true }), limit]));
    expect(resultText(await view.call('notes_list_notes'))).toBe('list_notes ran');
    expect(errorBody(await view.call('notes_add_note')).error_code).toBe('PERMISSION_DENIED');
    const limited = await view.call('notes_list_archived');
    expect(errorBody(limited)).toMatchObject({
      error_code: 'RATE_LIMITED',
      retry_after_ms: 2000,
      retryable: true,
    });
    expect(asked).toEqual(['notes_list_notes', 'notes_list_archived']);
    expect(notes.ran).toEqual(['list_notes']);
  });

  it('may be asynchronous; a failure that is not a tool error becomes INTERNAL_ERROR without its text', async () => {
    const { registry } = composed();
    const lines: string[] = [];
    const logger = createLogger('access-test', { level: 'error', write: (line) => lines.push(line) });
    const broken: ToolAccess = {
      source: 'the rate limit',
      admit: async () => {
        throw new Error('redis at 10.0.0.7 refused the connection');
      },
    };
    const view = await connect(new RegistryView(registry, [broken], { logger }));
    const result = await view.call('weather_forecast');
    expect(errorBody(result).error_code).toBe('INTERNAL_ERROR');
    expect(resultText(result)).not.toContain('10.0.0.7');
    expect(lines.join('\n')).toContain('10.0.0.7');
  });
});

describe('events', () => {
  it('announces refused and not-admitted calls once each, with their outcome code', async () => {
    const { registry } = composed();
    const seen: Array<{ tool: string; outcome?: string }> = [];
    const stop = observe({
      toolCall: (event) => {
        const record: { tool: string; outcome?: string } = { tool: event.tool };
        seen.push(record);
        return {
          end: (end: ToolCallEnd) => {
            record.outcome = end.outcome;
          },
        };
      },
    });
    try {
      const limit: ToolAccess = {
        source: 'the rate limit',
        admit: ({ tool }) => {
          if (tool === 'notes_list_archived') throw new RateLimitedError('Slow down.');
        },
      };
      const view = await connect(new RegistryView(registry, [url({ readOnly: true }), limit]));
      await view.call('notes_add_note');
      await view.call('notes_list_archived');
      await view.call('notes_list_notes');
    } finally {
      stop();
    }
    expect(seen).toEqual([
      { tool: 'notes_add_note', outcome: 'PERMISSION_DENIED' },
      { tool: 'notes_list_archived', outcome: 'RATE_LIMITED' },
      { tool: 'notes_list_notes', outcome: 'ok' },
    ]);
  });
});

describe('dynamic toolsets under a narrowing', () => {
  it('serves enable_toolset, hides the tools it adds beyond the narrowing and refuses to enable other toolsets', async () => {
    const { registry } = composed(true);
    const view = await connect(new RegistryView(registry, [url({ toolsets: ['notes.archive'] })]));
    expect(await view.names()).toEqual(['notes_list_toolsets', 'notes_enable_toolset']);
    const refused = await view.call('notes_enable_toolset', { toolset: 'notes' });
    expect(errorBody(refused)).toMatchObject({
      error_code: 'PERMISSION_DENIED',
      message:
        "notes_enable_toolset cannot enable notes.notes here: this connection's URL allows only the toolsets notes.archive.",
    });
    await view.call('notes_enable_toolset', { toolset: 'archive' });
    expect(await view.names()).toEqual([
      'notes_list_toolsets',
      'notes_enable_toolset',
      'notes_list_archived',
      'notes_archive_note',
    ]);
    const readOnly = await connect(new RegistryView(registry, [url({ readOnly: true })]));
    // Added to the registry by the other connection; this one shows only its read tool.
    expect(await readOnly.names()).toEqual([
      'notes_list_notes',
      'notes_list_toolsets',
      'notes_enable_toolset',
      'weather_forecast',
      'notes_list_archived',
    ]);
    expect(errorBody(await readOnly.call('notes_archive_note')).rule).toBe('readOnly');
  });
});

describe('challenge', () => {
  const scopes = (challenge: boolean): ToolAccess => ({
    source: "your token's scopes",
    readOnly: true,
    ...(challenge
      ? {
          challenge: () =>
            new Response(null, {
              status: 403,
              headers: {
                'www-authenticate': 'Bearer error="insufficient_scope", scope="mcp:read mcp:write"',
              },
            }),
        }
      : {}),
  });

  it('is the answer only when every access that refuses the tool has one', () => {
    const { registry } = composed();
    expect(new RegistryView(registry, [scopes(true)]).challenge('notes_add_note')?.status).toBe(403);
    expect(new RegistryView(registry, [scopes(true)]).challenge('notes_list_notes')).toBeUndefined();
    expect(new RegistryView(registry, [scopes(true)]).challenge('no_such_tool')).toBeUndefined();
    // The URL refuses it too: stepping up the token would not help.
    const both = new RegistryView(registry, [url({ toolsets: ['weather'] }), scopes(true)]);
    expect(both.challenge('notes_add_note')).toBeUndefined();
    expect(new RegistryView(registry, [scopes(false)]).challenge('notes_add_note')).toBeUndefined();
  });
});

describe('serveHttp with accessFor', () => {
  const { registry, notes } = composed();
  const accessed: string[] = [];
  const auth: HttpAuth = {
    async authenticate(request) {
      const token = /^Bearer (\S+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
      if (token !== 'reader' && token !== 'writer' && token !== 'limited') {
        return new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer' } });
      }
      return {
        token,
        clientId: 'c1',
        scopes: token === 'reader' ? ['mcp:read'] : ['mcp'],
      } satisfies AuthInfo;
    },
    accessFor(info, request) {
      accessed.push(new URL(request.url).pathname);
      if (info.token === 'limited') {
        return [
          { source: 'the rate limit', admit: () => Promise.reject(new RateLimitedError('Slow down.')) },
        ];
      }
      if (info.token !== 'reader') return [];
      return [
        {
          source: "your token's scopes",
          readOnly: true,
          challenge: ({ tool }) =>
            new Response(JSON.stringify({ error: 'insufficient_scope', tool }), {
              status: 403,
              headers: {
                'content-type': 'application/json',
                'www-authenticate': 'Bearer error="insufficient_scope", scope="mcp:read mcp:write"',
              },
            }),
        },
      ];
    },
  };
  let handle: HttpHandle;
  beforeAll(async () => {
    handle = await serveHttp({ name: 'access', version: '1.0.0', registry, port: 0, auth, logger: quiet });
  });
  afterAll(() => handle.close());

  it('serves each caller under its own accesses', async () => {
    const reader = await connectHttp(handle.url, { token: 'reader' });
    const writer = await connectHttp(handle.url, { token: 'writer' });
    connections.push(reader, writer);
    const names = async (connection: ConnectedClient) =>
      (await connection.client.listTools()).tools.map((tool) => tool.name);
    expect(await names(reader)).toEqual(['notes_list_notes', 'notes_list_archived', 'weather_forecast']);
    expect(await names(writer)).toHaveLength(5);
    expect(accessed.length).toBeGreaterThan(0);
    expect(accessed.every((path) => path === '/mcp')).toBe(true);
    expect(resultText(await writer.client.callTool({ name: 'notes_add_note', arguments: {} }))).toBe(
      'add_note ran',
    );
  });

  it('answers a refused call with the access’s challenge before the SDK sees it', async () => {
    notes.ran.length = 0;
    const response = await fetch(handle.url, {
      method: 'POST',
      headers: {
        authorization: 'Bearer reader',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'notes_add_note', arguments: {} },
      }),
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="mcp:read mcp:write"',
    );
    expect(await response.json()).toEqual({ error: 'insufficient_scope', tool: 'notes_add_note' });
    expect(notes.ran).toEqual([]);
  });

  it('announces a challenged call to the observers as refused, with its caller', async () => {
    const seen: Array<{ tool: string; clientId?: string; outcome?: string }> = [];
    const stop = observe({
      toolCall: (event) => {
        const record: { tool: string; clientId?: string; outcome?: string } = {
          tool: event.tool,
          ...(event.request.auth ? { clientId: event.request.auth.clientId } : {}),
        };
        seen.push(record);
        return {
          end: (end: ToolCallEnd) => {
            record.outcome = end.outcome;
          },
        };
      },
    });
    try {
      const response = await fetch(handle.url, {
        method: 'POST',
        headers: {
          authorization: 'Bearer reader',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'notes_archive_note', arguments: {} },
        }),
      });
      expect(response.status).toBe(403);
      await response.body?.cancel();
    } finally {
      stop();
    }
    expect(seen).toEqual([{ tool: 'notes_archive_note', clientId: 'c1', outcome: 'PERMISSION_DENIED' }]);
  });

  it('serves an allowed call and a not-admitted one as tool results', async () => {
    const reader = await connectHttp(handle.url, { token: 'reader' });
    const limited = await connectHttp(handle.url, { token: 'limited' });
    connections.push(reader, limited);
    expect(resultText(await reader.client.callTool({ name: 'notes_list_notes', arguments: {} }))).toBe(
      'list_notes ran',
    );
    const refused = await limited.client.callTool({ name: 'weather_forecast', arguments: {} });
    expect(errorBody(refused).error_code).toBe('RATE_LIMITED');
  });
});
