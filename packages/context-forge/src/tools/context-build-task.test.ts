import { TASKS_EXTENSION, TaskHost, ToolRegistry } from '@x/mcp-core';
import { serveHttp } from '@x/mcp-core/node';
import { modernHttpClient } from '@x/mcp-core/testing';
import { afterEach, expect, it } from 'vitest';
import { createContextForgeProvider } from '../index.js';
import { createExampleStore } from '../testing/index.js';

const HARBOR = 'project_1761904800000_h4rb0r7ap';
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('context_build runs as a task for a client that asks (2026-07-28), and answers plainly otherwise', async () => {
  const example = await createExampleStore();
  cleanups.push(() => example.close());
  const host = new TaskHost();
  const http = await serveHttp({
    name: 'context-forge',
    version: '0.0.0',
    registry: new ToolRegistry().use(createContextForgeProvider({ dataDir: example.dataDir })),
    port: 0,
    tasks: host,
  });
  cleanups.push(() => http.close());
  const asking = modernHttpClient(http.url, { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
  const created = await asking('tools/call', { name: 'context_build', arguments: { projectId: HARBOR } });
  expect(created).toMatchObject({ resultType: 'task', status: 'working' });
  await host.idle();
  const done = await asking('tasks/get', { taskId: created.taskId });
  expect(done).toMatchObject({ status: 'completed' });
  const text = (done.result as { content: [{ text: string }] }).content[0].text;
  expect(text).toContain('project: harbor-api');

  const plain = await modernHttpClient(http.url)('tools/call', {
    name: 'context_build',
    arguments: { projectId: HARBOR },
  });
  expect(plain).toMatchObject({ resultType: 'complete' });
  expect((plain.content as [{ text: string }])[0].text).toBe(text);
});
