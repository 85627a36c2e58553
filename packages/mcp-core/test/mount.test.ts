import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as InMemoryTransportV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMcpServer, mountTools, ToolRegistry } from '../src/index.js';
import { errorBody, resultData } from '../src/testing/index.js';
import { createFixtureProvider } from './fixtures/tools.js';

const registry = new ToolRegistry().use(createFixtureProvider(), { exclude: ['noisy'] });

async function mountedOnV2() {
  const server = new McpServer({ name: 'host-v2', version: '1.0.0' });
  server.registerTool(
    'host_own_tool',
    { description: 'The host server own tool', inputSchema: z.object({}) },
    async () => ({
      content: [{ type: 'text', text: 'own' }],
    }),
  );
  mountTools(server, registry);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientTransport);
  return client;
}

async function mountedOnV1() {
  const server = new McpServerV1({ name: 'host-v1', version: '1.0.0' });
  mountTools(server, registry);
  const [clientTransport, serverTransport] = InMemoryTransportV1.createLinkedPair();
  await server.connect(serverTransport);
  const client = new ClientV1({ name: 'c', version: '1' });
  await client.connect(clientTransport);
  return client;
}

function comparable(tools: { name: string; inputSchema: unknown; [key: string]: unknown }[]) {
  // v1 labels every schema draft-07 and adds its task-support field; the rest must match.
  return tools.map(({ execution: _execution, ...tool }) => ({
    ...tool,
    inputSchema: withoutDialect(tool.inputSchema),
    ...(tool.outputSchema ? { outputSchema: withoutDialect(tool.outputSchema) } : {}),
  }));
}
function withoutDialect(schema: unknown) {
  const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  return rest;
}

describe('mountTools', () => {
  it('puts our tools next to the host tools on an SDK v2 McpServer', async () => {
    const client = await mountedOnV2();
    const { tools } = await client.listTools();
    expect(tools[0]?.name).toBe('host_own_tool');
    expect(tools.slice(1)).toEqual(registry.toMcpTools());
  });

  it('lists the same tools on an SDK v1 McpServer', async () => {
    const v1 = await mountedOnV1();
    const { tools } = await v1.listTools();
    expect(comparable(tools as never)).toEqual(comparable(registry.toMcpTools() as never));
  });

  it.each([
    ['v2', mountedOnV2],
    ['v1', mountedOnV1],
  ])('calls the same tools with the same results on %s', async (label, connect) => {
    const client = await connect();
    const ok = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    expect(ok.structuredContent).toEqual({ sum: 3 });
    expect(resultData(ok as never)).toEqual({ sum: 3 });
    const invalid = errorBody(
      (await client.callTool({ name: 'add', arguments: { a: 1, b: 2, c: 3 } })) as never,
    );
    expect(invalid).toMatchObject({
      error_code: 'INVALID_INPUT',
      fields: [{ field: 'c', message: 'unknown field' }],
    });
    const notFound = errorBody(
      (await client.callTool({ name: 'fail', arguments: { code: 'NOT_FOUND' } })) as never,
    );
    expect(notFound.error_code).toBe('NOT_FOUND');
    const progress: unknown[] = [];
    const onprogress = (update: unknown) => progress.push(update);
    // v1 takes (params, resultSchema, options); v2 takes (params, options).
    const call = client.callTool.bind(client) as (...args: unknown[]) => Promise<unknown>;
    if (label === 'v1') await call({ name: 'slow', arguments: { ms: 1 } }, undefined, { onprogress });
    else await call({ name: 'slow', arguments: { ms: 1 } }, { onprogress });
    expect(progress.length).toBe(2);
  });
});

describe('a registry served to many short-lived servers', () => {
  it('does not keep a reference per server it told about added tools', async () => {
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    const registry = new ToolRegistry();
    // What every HTTP request's server does: listen for added tools, then become garbage.
    const serveRequests = async (count: number) => {
      for (let batch = 0; batch < count / 10_000; batch++) {
        for (let index = 0; index < 10_000; index++) registry.onToolsAdded(() => {});
        await new Promise((resolve) => setImmediate(resolve));
        collectGarbage();
      }
    };
    await serveRequests(20_000);
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    await serveRequests(400_000);
    collectGarbage();
    // Kept without sweeping: a WeakRef and a set entry each, about 20 MB for 400,000 servers.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(4 * 1024 * 1024);
  });
});

describe('a server for one tools/call (createMcpServer only)', () => {
  const connect = async (only: string) => {
    const server = createMcpServer({ name: 's', version: '1', registry, only });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(clientTransport);
    return client;
  };

  it('mounts that tool alone, and answers its call as a full server would', async () => {
    const client = await connect('add');
    expect(resultData(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toEqual({ sum: 5 });
    // Nothing else is there to answer: not the other tools, nor prompts.
    await expect(client.callTool({ name: 'echo', arguments: { text: 'x' } })).rejects.toThrow(
      'Tool echo not found',
    );
    await client.close();
  });

  it('is a full server when the source has no such tool (an unknown tool is answered as always)', async () => {
    const client = await connect('no_such_tool');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(
      registry.toMcpTools().map((tool) => tool.name),
    );
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(
      'Tool no_such_tool not found',
    );
    await client.close();
  });
});
