import { spawnSync } from 'node:child_process';
import { connectHttp, errorBody, spawnStdioClient } from '@x/mcp-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { bin, type HttpServer, startHttpServer } from './helpers.js';

const TOKEN = 'composed-narrowing-token';
const running: HttpServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

describe('the composed server narrowed per connection (token mode)', () => {
  it('serves /mcp/x/<toolsets>[/readonly] and the X-MCP-* headers to real clients', async () => {
    const server = await startHttpServer(['--sandbox'], { MCP_HTTP_TOKEN: TOKEN });
    running.push(server);
    const list = async (path: string, headers: Record<string, string> = {}) => {
      const connection = await connectHttp(`${server.base}${path}`, { token: TOKEN, headers });
      try {
        return (await connection.client.listTools()).tools;
      } finally {
        await connection.close();
      }
    };
    const all = await list('/mcp');
    const todos = await list('/mcp/x/basecamp.todos');
    expect(todos.length).toBeGreaterThan(0);
    expect(todos.every((tool) => tool.name.startsWith('basecamp_') && tool.name.includes('todo'))).toBe(true);
    const readOnly = await list('/mcp/x/basecamp.todos,forge/readonly');
    expect(readOnly.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    expect(readOnly.some((tool) => tool.name.startsWith('forge_'))).toBe(true);
    expect(readOnly.some((tool) => tool.name.startsWith('basecamp_'))).toBe(true);
    expect(readOnly.some((tool) => tool.name.startsWith('context_'))).toBe(false);
    // The same narrowing by headers, and read-only everything.
    const byHeaders = await list('/mcp', {
      'X-MCP-Toolsets': 'basecamp.todos,forge',
      'X-MCP-Readonly': 'true',
    });
    expect(byHeaders.map((tool) => tool.name)).toEqual(readOnly.map((tool) => tool.name));
    expect((await list('/mcp/readonly')).map((tool) => tool.name)).toEqual(
      all.filter((tool) => tool.annotations?.readOnlyHint === true).map((tool) => tool.name),
    );

    const unknown = await fetch(`${server.base}/mcp/x/basecamp.kanban`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(unknown.status).toBe(400);
    const body = (await unknown.json()) as { error: { message: string; data: { valid_toolsets: string[] } } };
    expect(body.error.message).toContain('Unknown toolset "basecamp.kanban"');
    expect(body.error.data.valid_toolsets).toEqual(
      expect.arrayContaining([
        'basecamp',
        'basecamp.todos',
        'basecamp.admin',
        'forge',
        'context-forge',
        'bbj-rag',
      ]),
    );
  });
});

describe('--toolsets, in the form connection URLs use', () => {
  it('narrows a stdio server; a call to another tool says why it is refused', async () => {
    const { client, close } = await spawnStdioClient({
      command: process.execPath,
      args: [bin, '--sandbox', '--toolsets', 'basecamp.todos,bbj-rag'],
    });
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names.length).toBeGreaterThan(0);
      expect(names.every((name) => /^basecamp_.*todo/.test(name) || name.startsWith('bbj_rag_'))).toBe(true);
      expect(names.some((name) => name.startsWith('bbj_rag_'))).toBe(true);
      const refused = await client.callTool({ name: 'forge_list_tickets', arguments: {} });
      expect(errorBody(refused)).toMatchObject({
        error_code: 'PERMISSION_DENIED',
        refused_by: 'the --toolsets flag',
      });
    } finally {
      await close();
    }
  });

  it('narrows an HTTP server, and a connection URL narrows it further', async () => {
    const server = await startHttpServer(['--sandbox', '--toolsets', 'forge,bbj-rag'], {
      MCP_HTTP_TOKEN: TOKEN,
    });
    running.push(server);
    const names = async (path: string) => {
      const connection = await connectHttp(`${server.base}${path}`, { token: TOKEN });
      try {
        return (await connection.client.listTools()).tools.map((tool) => tool.name);
      } finally {
        await connection.close();
      }
    };
    const served = await names('/mcp');
    expect(served.every((name) => name.startsWith('forge_') || name.startsWith('bbj_rag_'))).toBe(true);
    const forge = await names('/mcp/x/forge');
    expect(forge.length).toBeGreaterThan(0);
    expect(forge.every((name) => name.startsWith('forge_'))).toBe(true);
    // The URL cannot widen the operator's narrowing.
    expect(await names('/mcp/x/basecamp')).toEqual([]);
  });

  it('refuses an unknown toolset at start, naming the valid ones', () => {
    const result = spawnSync(process.execPath, [bin, '--sandbox', '--toolsets', 'basecamp.kanban'], {
      encoding: 'utf8',
      timeout: 20_000,
      input: '',
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(
      '--toolsets: unknown toolset basecamp.kanban. The toolsets are: basecamp,',
    );
  });
});
