import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as InMemoryTransportV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigError,
  DuplicateToolError,
  definePrompt,
  defineResourceTemplate,
  mountTools,
  ToolRegistry,
  ToolValidationError,
} from '../src/index.js';
import { type ConnectedClient, connectInMemory } from '../src/testing/index.js';
import { cleanup, createContentProvider, greet, note, readme } from './fixtures/content.js';
import { createFixtureProvider } from './fixtures/tools.js';

/** The JSON-RPC error a client call was answered with. */
async function rpcError(call: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await call;
  } catch (error) {
    const { code, message, data } = error as { code: number; message: string; data?: unknown };
    return { code, message, data };
  }
  throw new Error('expected a JSON-RPC error, got a result');
}

describe('definePrompt and defineResourceTemplate are validated at registration', () => {
  const registry = () => new ToolRegistry();

  it('rejects a prompt whose arguments are not strict, not strings or not described', () => {
    const loose = definePrompt({ ...greet, argsSchema: z.object({ name: z.string().describe('Who') }) });
    expect(() => registry().registerPrompt(loose)).toThrow(/argsSchema: must reject unknown arguments/);
    const numeric = definePrompt({
      ...greet,
      complete: {},
      argsSchema: z.strictObject({ n: z.number().describe('A number') }),
      handler: () => '',
    });
    expect(() => registry().registerPrompt(numeric)).toThrow(/argsSchema.n: must be a string/);
    const undescribed = definePrompt({
      ...greet,
      complete: {},
      argsSchema: z.strictObject({ name: z.string() }),
    });
    const error = captureError(() => registry().registerPrompt(undescribed));
    expect(error).toBeInstanceOf(ToolValidationError);
    expect((error as Error).message).toContain('argsSchema.name: has no .describe()');
  });

  it('rejects a completer for an argument that does not exist, and a bad name', () => {
    const stray = definePrompt({ ...greet, complete: { nobody: () => [] } as never });
    expect(() => registry().registerPrompt(stray)).toThrow(
      /complete.nobody: completes an argument that does not exist/,
    );
    expect(() => registry().registerPrompt({ ...greet, name: 'has space' })).toThrow(/name: must be 1-64/);
  });

  it('rejects a template whose variables do not match its URI template', () => {
    const mismatch = defineResourceTemplate({ ...note, uriTemplate: 'note://notes/{id}' });
    expect(() => registry().registerResource(mismatch)).toThrow(
      /variables: must have exactly the template's variables \(id\)/,
    );
    expect(() => registry().registerResource({ ...readme, mimeType: 'markdown' })).toThrow(/mimeType/);
    expect(() => registry().registerResource({ ...readme, uri: 'no scheme' })).toThrow(
      /uri: must be an absolute URI/,
    );
  });
});

describe('composition of prompts and resources', () => {
  it('prefixes prompt and resource names but keeps URIs', () => {
    const registry = new ToolRegistry().use(createContentProvider(), { prefix: 'n_' });
    expect(registry.content.listPrompts().map((prompt) => prompt.name)).toEqual([
      'n_greet',
      'n_cleanup',
      'n_status',
    ]);
    expect(registry.content.listResourceDescriptors()).toMatchObject([
      { name: 'n_readme', uri: 'note://readme' },
      { name: 'n_note', uriTemplate: 'note://notes/{noteId}' },
    ]);
  });

  it('drops a prompt whose tools the filters remove (read-only drops the cleanup workflow)', () => {
    const readOnly = new ToolRegistry().use(createContentProvider(), { readOnly: true });
    expect(readOnly.content.listPrompts().map((prompt) => prompt.name)).toEqual(['greet', 'status']);
    expect(readOnly.content.listResourceDescriptors()).toHaveLength(2);
  });

  it('matches include and exclude rules against prompt and resource names too', () => {
    const registry = new ToolRegistry().use(createContentProvider(), { exclude: ['greet', 'readme'] });
    expect(registry.content.listPrompts().map((prompt) => prompt.name)).toEqual(['cleanup', 'status']);
    expect(registry.content.listResourceDescriptors().map((resource) => resource.name)).toEqual(['note']);
    const only = new ToolRegistry().use(createContentProvider(), { include: ['echo', 'note'] });
    expect(only.content.listPrompts()).toEqual([]);
    expect(only.content.listResourceDescriptors().map((resource) => resource.name)).toEqual(['note']);
  });

  it('refuses a prompt name collision and a URI scheme served twice at startup', () => {
    const twice = new ToolRegistry().use(createContentProvider(), {
      prefix: 'a_',
      exclude: ['readme', 'note'],
    });
    expect(() => twice.use(createContentProvider(), { prefix: 'b_' })).not.toThrow();
    const registry = new ToolRegistry().use(createContentProvider(), { prefix: 'a_' });
    const error = captureError(() => registry.use(createContentProvider(), { prefix: 'b_' }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/note:\/\/(readme|notes) is already served by notes/);
    const prompts = new ToolRegistry().registerPrompt(greet);
    expect(() => prompts.registerPrompt(greet)).toThrow(DuplicateToolError);
    expect(() => prompts.registerPrompt(greet)).toThrow('A prompt named "greet" is already registered');
  });

  it('gets prompts and reads resources in process, without a server', async () => {
    const registry = new ToolRegistry().use(createContentProvider(), { prefix: 'n_' });
    const prompt = await registry.content.getPrompt('n_greet', { name: 'Ada' });
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Greet Ada in a warm tone.' } },
    ]);
    expect(await registry.content.readResource('note://notes/alpha')).toEqual({
      contents: [{ uri: 'note://notes/alpha', mimeType: 'text/plain', text: 'First note.' }],
    });
    await expect(registry.content.readResource('note://elsewhere')).rejects.toMatchObject({
      code: -32602,
      data: { error_code: 'NOT_FOUND', uri: 'note://elsewhere' },
    });
    await expect(registry.content.getPrompt('greet', {})).rejects.toMatchObject({ code: -32602 });
  });

  it('takes resources one by one under one host, but not the same URI twice', () => {
    const registry = new ToolRegistry().registerResource(note);
    const second = defineResourceTemplate({
      ...note,
      name: 'note_raw',
      uriTemplate: 'note://notes/{noteId}/raw',
    });
    expect(() => registry.registerResource(second)).not.toThrow();
    expect(() => registry.registerResource({ ...note, name: 'again' })).toThrow(
      'A resource named "note://notes/{noteId}" is already registered',
    );
  });

  it('refuses a prompt that names a tool its provider does not have', () => {
    const provider = { ...createContentProvider(), prompts: [{ ...cleanup, tools: ['no_such_tool'] }] };
    expect(() => new ToolRegistry().use(provider)).toThrow(
      /names tools this provider does not have: no_such_tool/,
    );
  });
});

describe('prompts, resources and completions over MCP', () => {
  let connection: ConnectedClient;
  let client: Client;
  beforeAll(async () => {
    connection = await connectInMemory(new ToolRegistry().use(createContentProvider(), { prefix: 'n_' }));
    client = connection.client;
  });
  afterAll(() => connection.close());

  it('advertises prompts, resources and completions', () => {
    const capabilities = client.getServerCapabilities();
    expect(capabilities?.prompts).toBeDefined();
    expect(capabilities?.resources).toBeDefined();
    expect(capabilities?.completions).toBeDefined();
  });

  it('lists prompts with their described arguments', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['n_greet', 'n_cleanup', 'n_status']);
    expect(prompts[0]?.arguments).toEqual([
      { name: 'name', description: 'Who to greet', required: true },
      { name: 'tone', description: 'How to greet: warm or formal', required: false },
    ]);
  });

  it('gets a prompt, with the served tool name in its text and a resource embedded', async () => {
    const simple = await client.getPrompt({ name: 'n_greet', arguments: { name: 'Ada', tone: '' } });
    expect(simple.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Greet Ada in a warm tone.' } },
    ]);
    const workflow = await client.getPrompt({ name: 'n_cleanup', arguments: { note: 'alpha' } });
    expect(workflow.description).toBe('Cleaning up alpha');
    expect(workflow.messages[0]?.content).toMatchObject({
      type: 'resource',
      resource: { text: 'First note.' },
    });
    expect(workflow.messages[1]?.content).toMatchObject({ text: 'Then call n_remove_item with id alpha.' });
  });

  it('answers bad prompt arguments, unknown prompts and failures with typed JSON-RPC errors', async () => {
    const unknownKey = await rpcError(
      client.getPrompt({ name: 'n_greet', arguments: { name: 'Ada', mood: 'x' } }),
    );
    expect(unknownKey).toMatchObject({ code: -32602, data: { error_code: 'INVALID_INPUT' } });
    expect(unknownKey.message).toContain('mood: unknown argument');
    const missing = await rpcError(client.getPrompt({ name: 'n_greet', arguments: {} }));
    expect(missing).toMatchObject({ code: -32602, data: { error_code: 'INVALID_INPUT' } });
    const unknown = await rpcError(client.getPrompt({ name: 'greet', arguments: {} }));
    expect(unknown.code).toBe(-32602);
    const notFound = await rpcError(client.getPrompt({ name: 'n_cleanup', arguments: { note: 'gamma' } }));
    expect(notFound).toMatchObject({ code: -32602, data: { error_code: 'NOT_FOUND' } });
    const down = await rpcError(client.getPrompt({ name: 'n_cleanup', arguments: { note: 'down' } }));
    expect(down).toMatchObject({
      code: -32603,
      data: { error_code: 'UPSTREAM_UNAVAILABLE', retryable: true },
    });
    const crash = await rpcError(client.getPrompt({ name: 'n_cleanup', arguments: { note: 'crash' } }));
    expect(crash).toMatchObject({ code: -32603, data: { error_code: 'INTERNAL_ERROR' } });
    expect(crash.message).not.toContain('secret');
    const status = await client.getPrompt({ name: 'n_status' });
    expect(status.messages[0]?.content).toMatchObject({ text: expect.stringContaining('status report') });
    const extra = await rpcError(client.getPrompt({ name: 'n_status', arguments: { verbose: 'yes' } }));
    expect(extra).toMatchObject({ code: -32602, data: { error_code: 'INVALID_INPUT' } });
  });

  it('lists resources and templates, and reads both', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual([
      'note://readme',
      'note://notes/alpha',
      'note://notes/beta',
      'note://notes/beta-2',
    ]);
    expect(resources[1]).toMatchObject({ name: 'note alpha', mimeType: 'text/plain' });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      {
        name: 'n_note',
        title: 'A note',
        uriTemplate: 'note://notes/{noteId}',
        description: 'One note as plain text, by its id.',
        mimeType: 'text/plain',
      },
    ]);
    const read = await client.readResource({ uri: 'note://notes/beta' });
    expect(read.contents).toEqual([
      { uri: 'note://notes/beta', mimeType: 'text/plain', text: 'Second note.' },
    ]);
    const fixed = await client.readResource({ uri: 'note://readme' });
    expect(fixed.contents[0]).toMatchObject({
      mimeType: 'text/markdown',
      text: expect.stringContaining('# Fixture'),
    });
  });

  it('answers unknown URIs, malformed ids and missing items with invalid-params errors', async () => {
    expect((await rpcError(client.readResource({ uri: 'other://x' }))).code).toBe(-32602);
    const malformed = await rpcError(client.readResource({ uri: 'note://notes/UPPER_CASE' }));
    expect(malformed).toMatchObject({ code: -32602, data: { error_code: 'INVALID_INPUT' } });
    const missing = await rpcError(client.readResource({ uri: 'note://notes/gamma' }));
    expect(missing).toMatchObject({
      code: -32602,
      data: { error_code: 'NOT_FOUND', uri: 'note://notes/gamma' },
    });
  });

  it('completes prompt arguments and template variables', async () => {
    const tone = await client.complete({
      ref: { type: 'ref/prompt', name: 'n_greet' },
      argument: { name: 'tone', value: 'f' },
    });
    expect(tone.completion.values).toEqual(['formal']);
    const notes = await client.complete({
      ref: { type: 'ref/resource', uri: 'note://notes/{noteId}' },
      argument: { name: 'noteId', value: 'be' },
    });
    expect(notes.completion.values).toEqual(['beta', 'beta-2']);
    const none = await client.complete({
      ref: { type: 'ref/prompt', name: 'n_greet' },
      argument: { name: 'name', value: 'A' },
    });
    expect(none.completion.values).toEqual([]);
  });
});

describe('capabilities follow what is served', () => {
  it('a tools-only registry advertises no prompts, resources or completions', async () => {
    const connection = await connectInMemory(new ToolRegistry().use(createFixtureProvider()));
    const capabilities = connection.client.getServerCapabilities();
    expect(capabilities?.tools).toBeDefined();
    expect(capabilities?.prompts).toBeUndefined();
    expect(capabilities?.resources).toBeUndefined();
    expect(capabilities?.completions).toBeUndefined();
    await connection.close();
  });
});

describe('mountTools carries prompts and resources', () => {
  const registry = new ToolRegistry().use(createContentProvider(), { exclude: ['noisy'] });

  it('on an SDK v2 McpServer, next to the host prompts', async () => {
    const server = new McpServer({ name: 'host-v2', version: '1.0.0' });
    server.registerPrompt('host_prompt', { description: 'The host prompt' }, () => ({ messages: [] }));
    mountTools(server, registry);
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(clientTransport);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['host_prompt', 'greet', 'cleanup', 'status']);
    const result = await client.getPrompt({ name: 'cleanup', arguments: { note: 'beta' } });
    expect(result.messages[1]?.content).toMatchObject({ text: 'Then call remove_item with id beta.' });
    const read = await client.readResource({ uri: 'note://notes/alpha' });
    expect(read.contents[0]).toMatchObject({ text: 'First note.' });
    await client.close();
  });

  it('on an SDK v1 McpServer: lists, gets, reads and completes the same', async () => {
    const server = new McpServerV1({ name: 'host-v1', version: '1.0.0' });
    mountTools(server, registry);
    const [clientTransport, serverTransport] = InMemoryTransportV1.createLinkedPair();
    await server.connect(serverTransport);
    const client = new ClientV1({ name: 'c', version: '1' });
    await client.connect(clientTransport);
    const capabilities = client.getServerCapabilities();
    expect(capabilities?.prompts && capabilities.resources && capabilities.completions).toBeTruthy();
    const { prompts } = await client.listPrompts();
    expect(prompts.map(({ name, arguments: args }) => ({ name, args: args ?? [] }))).toEqual(
      registry.content.listPrompts().map(({ name, arguments: args }) => ({ name, args })),
    );
    const status = await client.getPrompt({ name: 'status' });
    expect(status.messages[0]?.content).toMatchObject({ text: expect.stringContaining('status report') });
    const greeting = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada', tone: 'formal' } });
    expect(greeting.messages[0]?.content).toEqual({ type: 'text', text: 'Greet Ada in a formal tone.' });
    const notFound = await rpcError(client.getPrompt({ name: 'cleanup', arguments: { note: 'gamma' } }));
    expect(notFound).toMatchObject({ code: -32602, data: { error_code: 'NOT_FOUND' } });
    expect((await rpcError(client.getPrompt({ name: 'nope' }))).code).toBe(-32602);
    const read = await client.readResource({ uri: 'note://notes/beta-2' });
    expect(read.contents[0]).toMatchObject({ text: 'Third note.', mimeType: 'text/plain' });
    expect((await rpcError(client.readResource({ uri: 'other://x' }))).code).toBe(-32602);
    const { resources } = await client.listResources();
    expect(resources).toHaveLength(4);
    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'cleanup' },
      argument: { name: 'note', value: 'al' },
    });
    expect(completion.completion.values).toEqual(['alpha']);
    const optional = await client.complete({
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'tone', value: 'w' },
    });
    expect(optional.completion.values).toEqual(['warm']);
    const variable = await client.complete({
      ref: { type: 'ref/resource', uri: 'note://notes/{noteId}' },
      argument: { name: 'noteId', value: 'beta-' },
    });
    expect(variable.completion.values).toEqual(['beta-2']);
    await client.close();
  });
});

function captureError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
