import { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  McpRequestError,
  MemoryTaskStore,
  READ_ONLY,
  TASKS_EXTENSION,
  TaskHost,
  ToolRegistry,
  UpstreamError,
} from '../src/index.js';
import { serveHttp } from '../src/node/index.js';
import {
  type ConnectedClient,
  connectInMemory,
  type ModernRequest,
  modernHttpClient,
} from '../src/testing/index.js';

/** A gate the test opens: the fixture tool's work waits on it, so nothing depends on timing. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

let work = gate();
/** Resolves with the abort reason when a running `build` handler's signal aborts. */
let aborted = gate();

const build = defineTool({
  name: 'build',
  description: 'Builds something that takes a while.',
  inputSchema: z.strictObject({ what: z.string().describe('What to build') }),
  annotations: READ_ONLY,
  task: 'optional',
  handler: async ({ what }, context) => {
    context.signal.addEventListener('abort', () => aborted.open(), { once: true });
    await Promise.race([
      work.opened,
      new Promise((_, reject) =>
        context.signal.addEventListener('abort', () => reject(new Error('aborted'))),
      ),
    ]);
    return `built ${what}`;
  },
});
const broken = defineTool({
  name: 'broken',
  description: 'Fails upstream.',
  inputSchema: z.strictObject({}),
  annotations: READ_ONLY,
  task: 'required',
  handler: () => {
    throw new UpstreamError('The upstream said no.');
  },
});
const crashing = defineTool({
  name: 'crashing',
  description: 'Ends in a protocol error.',
  inputSchema: z.strictObject({}),
  annotations: READ_ONLY,
  task: 'optional',
  handler: () => {
    throw new McpRequestError(-32603, 'It broke down.', { reason: 'test' });
  },
});
const quick = defineTool({
  name: 'quick',
  description: 'Answers at once.',
  inputSchema: z.strictObject({}),
  annotations: READ_ONLY,
  handler: () => 'quick answer',
});

const registry = () =>
  new ToolRegistry().use({ id: 'jobs', version: '1.0.0', tools: [build, broken, crashing, quick] });

const Any = z.looseObject({});
type Wire = Record<string, unknown>;

let connection: ConnectedClient | undefined;
let closeServer: (() => Promise<void>) | undefined;
afterEach(async () => {
  work.open();
  await connection?.close();
  await closeServer?.();
  connection = undefined;
  closeServer = undefined;
  work = gate();
  aborted = gate();
});

/** A 2026-07-28 client (the SDK's own has no tasks); `tasks` declares the extension. */
async function modernClient(host: TaskHost, tasks: boolean): Promise<ModernRequest> {
  const http = await serveHttp({
    name: 'tasks-test',
    version: '0.0.0',
    registry: registry(),
    port: 0,
    tasks: host,
  });
  closeServer = () => http.close();
  return modernHttpClient(http.url, { capabilities: tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {} });
}

const send = (client: Client, method: string, params: Wire) =>
  client.request({ method, params } as never, Any) as Promise<Wire>;

describe('tasks on 2026-07-28 (the io.modelcontextprotocol/tasks extension, over HTTP)', () => {
  it('returns a task to a client that declared the extension, runs it, and inlines the result in tasks/get', async () => {
    const host = new TaskHost({ pollIntervalMs: 250, ttlMs: 60_000 });
    const client = await modernClient(host, true);
    const created = await client('tools/call', { name: 'build', arguments: { what: 'the wall' } });
    expect(created).toMatchObject({
      resultType: 'task',
      status: 'working',
      ttlMs: 60_000,
      pollIntervalMs: 250,
    });
    expect(created).not.toHaveProperty('task');
    const taskId = created.taskId as string;
    expect(await client('tasks/get', { taskId })).toMatchObject({
      resultType: 'complete',
      taskId,
      status: 'working',
    });
    work.open();
    await host.idle();
    const done = await client('tasks/get', { taskId });
    expect(done).toMatchObject({
      resultType: 'complete',
      status: 'completed',
      result: { content: [{ type: 'text', text: 'built the wall' }] },
    });
    expect(done).not.toHaveProperty('error');
  });

  it('answers a client that did not declare the extension with the plain result, and refuses it tasks/*', async () => {
    const host = new TaskHost();
    const client = await modernClient(host, false);
    work.open();
    const result = await client('tools/call', { name: 'build', arguments: { what: 'a shed' } });
    expect(result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'built a shed' }],
    });
    expect(result).not.toHaveProperty('taskId');
    await expect(client('tasks/get', { taskId: 'x' })).rejects.toMatchObject({ code: -32021 });
    // A tool that runs only as a task: the capability it needs, named.
    await expect(client('tools/call', { name: 'broken', arguments: {} })).rejects.toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    });
  });

  it('cancels: the ack is empty, the handler’s signal aborts, the task stays cancelled', async () => {
    const host = new TaskHost();
    const client = await modernClient(host, true);
    const { taskId } = (await client('tools/call', { name: 'build', arguments: { what: 'x' } })) as {
      taskId: string;
    };
    expect(await client('tasks/cancel', { taskId })).toEqual(
      expect.objectContaining({ resultType: 'complete' }),
    );
    await aborted.opened;
    await host.idle();
    expect(await client('tasks/get', { taskId })).toMatchObject({ status: 'cancelled' });
    expect(await client('tasks/get', { taskId })).not.toHaveProperty('result');
    // Idempotent on a task that has ended.
    expect(await client('tasks/cancel', { taskId })).toMatchObject({ resultType: 'complete' });
  });

  it('a failing tool completes with isError; a protocol error fails the task with it', async () => {
    const host = new TaskHost();
    const client = await modernClient(host, true);
    const failing = await client('tools/call', { name: 'broken', arguments: {} });
    const crashed = await client('tools/call', { name: 'crashing', arguments: {} });
    await host.idle();
    const failed = await client('tasks/get', { taskId: failing.taskId });
    expect(failed).toMatchObject({ status: 'completed', result: { isError: true } });
    expect(JSON.parse((failed.result as { content: [{ text: string }] }).content[0].text)).toMatchObject({
      error_code: 'UPSTREAM_ERROR',
    });
    const broke = await client('tasks/get', { taskId: crashed.taskId });
    expect(broke).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'It broke down.', data: { reason: 'test' } },
    });
    expect(broke).not.toHaveProperty('result');
  });

  it('an unknown or expired task is -32602; tasks/result and tasks/list do not exist on this version', async () => {
    let now = Date.now();
    const host = new TaskHost({ store: new MemoryTaskStore(() => now), ttlMs: 1_000 });
    const client = await modernClient(host, true);
    work.open();
    const { taskId } = (await client('tools/call', { name: 'build', arguments: { what: 'x' } })) as {
      taskId: string;
    };
    await host.idle();
    expect(await client('tasks/get', { taskId })).toMatchObject({ status: 'completed' });
    now += 60_000; // well past the 1 s ttl
    await expect(client('tasks/get', { taskId })).rejects.toMatchObject({ code: -32602 });
    await expect(client('tasks/get', { taskId: 'no-such-task' })).rejects.toMatchObject({ code: -32602 });
    await expect(client('tasks/result', { taskId })).rejects.toMatchObject({ code: -32601 });
  });
});

describe('tasks on 2025-11-25 (task-augmented tools/call, in memory)', () => {
  async function legacyClient(host: TaskHost): Promise<Client> {
    const client = new Client(
      { name: 'tasks-test', version: '0.0.0' },
      { capabilities: { tasks: { list: {}, cancel: {} } } as never },
    );
    connection = await connectInMemory(registry(), { client, tasks: host });
    return client;
  }

  it('lists the task support, returns a nested task, answers tasks/get, tasks/list and a blocking tasks/result', async () => {
    const host = new TaskHost({ pollIntervalMs: 500 });
    const client = await legacyClient(host);
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'build')?.execution).toEqual({ taskSupport: 'optional' });
    expect(tools.find((tool) => tool.name === 'quick')?.execution).toBeUndefined();
    const created = await send(client, 'tools/call', {
      name: 'build',
      arguments: { what: 'a bridge' },
      task: { ttl: 30_000 },
    });
    const task = created.task as Wire;
    expect(task).toMatchObject({ status: 'working', ttl: 30_000, pollInterval: 500 });
    const taskId = task.taskId as string;
    expect(await send(client, 'tasks/get', { taskId })).toMatchObject({
      taskId,
      status: 'working',
      ttl: 30_000,
    });
    const listed = await send(client, 'tasks/list', {});
    expect((listed.tasks as Wire[]).map((each) => each.taskId)).toEqual([taskId]);
    const result = send(client, 'tasks/result', { taskId });
    work.open();
    expect(await result).toMatchObject({
      content: [{ type: 'text', text: 'built a bridge' }],
      _meta: { 'io.modelcontextprotocol/related-task': { taskId } },
    });
    await expect(send(client, 'tasks/cancel', { taskId })).rejects.toMatchObject({ code: -32602 });
  });

  it('a call without `task` gets the plain result', async () => {
    const client = await legacyClient(new TaskHost());
    work.open();
    const result = await client.callTool({ name: 'build', arguments: { what: 'a hut' } });
    expect(result.content).toEqual([{ type: 'text', text: 'built a hut' }]);
  });

  it('cancels a running task: the handler’s signal aborts and tasks/get shows it cancelled', async () => {
    const host = new TaskHost();
    const client = await legacyClient(host);
    const created = await send(client, 'tools/call', { name: 'build', arguments: { what: 'x' }, task: {} });
    const taskId = (created.task as Wire).taskId as string;
    expect(await send(client, 'tasks/cancel', { taskId })).toMatchObject({ taskId, status: 'cancelled' });
    await aborted.opened;
    await host.idle();
    expect(await send(client, 'tasks/get', { taskId })).toMatchObject({ status: 'cancelled' });
  });
});

describe('TaskHost', () => {
  it('keeps one owner’s tasks from another', async () => {
    const host = new TaskHost();
    const task = await host.start('user:ann', 'build', async () => ({
      content: [{ type: 'text', text: 'ok' }],
    }));
    await host.idle();
    expect(await host.get('user:ann', task.taskId)).toMatchObject({ status: 'completed' });
    expect(await host.get('user:bob', task.taskId)).toBeUndefined();
    expect(await host.cancel('user:bob', task.taskId)).toBeUndefined();
    expect(await host.store.list('user:bob')).toEqual([]);
  });
});
