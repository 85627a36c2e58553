import { Client } from '@modelcontextprotocol/client';
import { TASKS_EXTENSION, TaskHost, ToolRegistry } from '@x/mcp-core';
import { serveHttp } from '@x/mcp-core/node';
import { connectInMemory, modernHttpClient } from '@x/mcp-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBasecampProvider } from '../../index.js';
import { type FakeBasecamp, startFakeBasecamp, TEMPLATE_ID } from '../../testing/index.js';

// create_project_from_template as a task: the fake Basecamp answers the construction "pending"
// at the first look and "completed" at the next (it advances on request, never with time), and
// the provider polls it with no wait between looks.
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(constructionPollMs = 0) {
  const fake: FakeBasecamp = await startFakeBasecamp();
  cleanups.push(() => fake.close());
  const registry = new ToolRegistry().use(
    createBasecampProvider({
      apiUrl: fake.url,
      accessToken: fake.accessToken,
      accountId: fake.accountId,
      rateLimitRequests: 10_000,
      env: {},
      toolsets: 'admin,projects',
      constructionPollMs,
    }),
  );
  return { fake, registry };
}

const constructionLooks = (fake: FakeBasecamp) =>
  fake.requests.filter((request) => /project_constructions\/\d+/.test(request.path)).length;

describe('create_project_from_template as a task', () => {
  it('2026-07-28 over HTTP: answers with a task that follows the construction to the project', async () => {
    const { fake, registry } = await setup();
    const host = new TaskHost();
    const http = await serveHttp({ name: 'basecamp', version: '0.0.0', registry, port: 0, tasks: host });
    cleanups.push(() => http.close());
    const call = modernHttpClient(http.url, { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    const created = await call('tools/call', {
      name: 'create_project_from_template',
      arguments: { template_id: TEMPLATE_ID, name: 'Launch 3' },
    });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    await host.idle();
    const done = await call('tasks/get', { taskId: created.taskId });
    expect(done).toMatchObject({
      status: 'completed',
      result: { structuredContent: { status: 'completed' } },
    });
    const project = (done.result as { structuredContent: { project: { name: string } } }).structuredContent
      .project;
    expect(project.name).toBe('Launch 3');
    // One POST, then a look that said pending and one that said completed.
    expect(constructionLooks(fake)).toBe(2);
  });

  it('2025-11-25 in memory: a task-augmented call, and tasks/result with the project', async () => {
    const { registry } = await setup();
    const client = new Client(
      { name: 'construction-test', version: '0.0.0' },
      { capabilities: { tasks: { list: {}, cancel: {} } } as never },
    );
    const connection = await connectInMemory(registry, { client, tasks: new TaskHost() });
    cleanups.push(() => connection.close());
    const Any = z.looseObject({});
    const created = (await client.request(
      {
        method: 'tools/call',
        params: {
          name: 'create_project_from_template',
          arguments: { template_id: TEMPLATE_ID, name: 'L4' },
          task: {},
        },
      } as never,
      Any,
    )) as { task: { taskId: string; status: string } };
    expect(created.task.status).toBe('working');
    const result = (await client.request(
      { method: 'tasks/result', params: { taskId: created.task.taskId } } as never,
      Any,
    )) as { structuredContent: { status: string; project: { name: string } } };
    expect(result.structuredContent).toMatchObject({ status: 'completed', project: { name: 'L4' } });
  });

  it('a client that asks for no task gets the construction as it starts, as before', async () => {
    const { fake, registry } = await setup();
    const connection = await connectInMemory(registry, { tasks: new TaskHost() });
    cleanups.push(() => connection.close());
    const result = await connection.client.callTool({
      name: 'create_project_from_template',
      arguments: { template_id: TEMPLATE_ID, name: 'L5' },
    });
    expect(result.structuredContent).toMatchObject({ status: 'pending', project: null });
    expect(constructionLooks(fake)).toBe(0);
  });

  it('cancelling the task stops the polling: nothing more is asked of Basecamp', async () => {
    // A long wait between looks, which only the cancellation ends.
    const { fake, registry } = await setup(3_600_000);
    const host = new TaskHost();
    const http = await serveHttp({ name: 'basecamp', version: '0.0.0', registry, port: 0, tasks: host });
    cleanups.push(() => http.close());
    const call = modernHttpClient(http.url, { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    const created = await call('tools/call', {
      name: 'create_project_from_template',
      arguments: { template_id: TEMPLATE_ID, name: 'L6' },
    });
    await call('tasks/cancel', { taskId: created.taskId });
    await host.idle();
    expect(await call('tasks/get', { taskId: created.taskId })).toMatchObject({ status: 'cancelled' });
    expect(constructionLooks(fake)).toBe(0);
  });
});
