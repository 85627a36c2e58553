import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineTool, READ_ONLY, type StoredTask, TASKS_EXTENSION, TaskHost, ToolRegistry } from '@x/mcp-core';
import { type HttpHandle, serveHttp } from '@x/mcp-core/node';
import { type ModernRequest, modernHttpClient } from '@x/mcp-core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Keyring } from '../crypto.js';
import { type RedisServer, redisRequirement, startRedisServer } from '../testing/index.js';
import { createStore } from './create.js';
import type { KvStore } from './kv.js';
import { HostedTaskStore, taskKey } from './tasks.js';

const SECRET = 'tasks-test-secret-0123456789abcdef0123456789';

/** A gate the test opens: the construction waits on it, so nothing depends on timing. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}
let finished = gate();
let aborted = gate();

const construct = defineTool({
  name: 'construct',
  description: 'Builds a project from a template; takes a while.',
  inputSchema: z.strictObject({ name: z.string().describe('The project name') }),
  annotations: READ_ONLY,
  task: 'optional',
  handler: async ({ name }, context) => {
    context.signal.addEventListener('abort', () => aborted.open(), { once: true });
    await Promise.race([
      finished.opened,
      new Promise((_, reject) =>
        context.signal.addEventListener('abort', () => reject(new Error('aborted'))),
      ),
    ]);
    return `Project ${name} is ready: secret-ish result text`;
  },
});

const redis = redisRequirement();
let redisServer: RedisServer | undefined;
beforeAll(async () => {
  if ('path' in redis) redisServer = await startRedisServer({ path: redis.path });
});
afterAll(async () => {
  await redisServer?.stop();
});

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  finished.open();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  finished = gate();
  aborted = gate();
});

interface Replica {
  http: HttpHandle;
  host: TaskHost;
  kv: KvStore;
  call: ModernRequest;
}

/** One HTTP replica on its own connection to the shared store. */
async function replica(open: () => Promise<KvStore>): Promise<Replica> {
  const kv = await open();
  const host = new TaskHost({
    store: new HostedTaskStore(kv, Keyring.fromSecrets({ secret: SECRET })),
    pollIntervalMs: 500,
    cancelCheckMs: 10,
  });
  const http = await serveHttp({
    name: 'replica',
    version: '0.0.0',
    registry: new ToolRegistry().use({ id: 'bc', version: '0.0.0', tools: [construct] }),
    port: 0,
    tasks: host,
  });
  cleanups.push(
    () => kv.close(),
    () => http.close(),
  );
  const call = modernHttpClient(http.url, { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
  return { http, host, kv, call };
}

const drivers = [
  {
    driver: 'sqlite (two connections to one file)',
    skip: undefined as string | undefined,
    shared: async () => {
      const root = await mkdtemp(join(tmpdir(), 'x-task-store-'));
      cleanups.push(() => rm(root, { recursive: true, force: true }));
      return () => createStore(`sqlite:${join(root, 'store.db')}`);
    },
  },
  {
    driver: 'redis (two clients)',
    skip: 'skip' in redis ? redis.skip : undefined,
    shared: async () => {
      const prefix = `tasks-${globalThis.crypto.randomUUID()}:`;
      return () => createStore(redisServer?.url ?? '', { prefix });
    },
  },
];

describe.each(drivers)('tasks across two replicas, $driver', ({ skip, shared }) => {
  it.skipIf(skip !== undefined)(
    'a task started on one replica is polled, and its result read, on another',
    async () => {
      const open = await shared();
      const a = await replica(open);
      const b = await replica(open);
      const created = await a.call('tools/call', { name: 'construct', arguments: { name: 'Leto' } });
      expect(created).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: 500 });
      const taskId = created.taskId as string;
      expect(await b.call('tasks/get', { taskId })).toMatchObject({ status: 'working' });
      finished.open();
      await a.host.idle();
      expect(await b.call('tasks/get', { taskId })).toMatchObject({
        status: 'completed',
        result: { content: [{ type: 'text', text: 'Project Leto is ready: secret-ish result text' }] },
      });
      // Sealed at rest: the store holds no clear text of the result, nor of the task.
      const raw = await a.kv.get(taskKey('local', taskId));
      expect(raw?.value).toBeDefined();
      expect(raw?.value).not.toContain('secret-ish');
      expect(raw?.value).not.toContain('construct');
    },
  );

  it.skipIf(skip !== undefined)(
    'a cancellation on another replica aborts the handler where it runs',
    async () => {
      const open = await shared();
      const a = await replica(open);
      const b = await replica(open);
      const { taskId } = (await a.call('tools/call', { name: 'construct', arguments: { name: 'X' } })) as {
        taskId: string;
      };
      expect(await b.call('tasks/cancel', { taskId })).toMatchObject({ resultType: 'complete' });
      await aborted.opened;
      await a.host.idle();
      expect(await a.call('tasks/get', { taskId })).toMatchObject({ status: 'cancelled' });
    },
  );
});

describe('HostedTaskStore', () => {
  const task = (overrides: Partial<StoredTask> = {}): StoredTask => ({
    taskId: 't1',
    owner: 'user:ann',
    tool: 'construct',
    status: 'working',
    createdAt: new Date(1_000_000).toISOString(),
    lastUpdatedAt: new Date(1_000_000).toISOString(),
    ttlMs: 60_000,
    pollIntervalMs: 1_000,
    ...overrides,
  });

  async function store(now: () => number) {
    const kv = await createStore('memory:');
    cleanups.push(() => kv.close());
    return new HostedTaskStore(kv, Keyring.fromSecrets({ secret: SECRET }), { now });
  }

  it('keeps one user’s task from another, and refuses to create one twice', async () => {
    const tasks = await store(() => 1_000_500);
    await tasks.create(task());
    expect(await tasks.get('user:ann', 't1')).toMatchObject({ status: 'working' });
    expect(await tasks.get('user:bob', 't1')).toBeUndefined();
    expect(
      await tasks.update('user:bob', 't1', (current) => ({ ...current, status: 'cancelled' })),
    ).toBeUndefined();
    expect(await tasks.list('user:bob')).toEqual([]);
    expect((await tasks.list('user:ann')).map((each) => each.taskId)).toEqual(['t1']);
    await expect(tasks.create(task())).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('honours the ttl: a task is gone once ttlMs has passed since it was created', async () => {
    let now = 1_000_500;
    const tasks = await store(() => now);
    await tasks.create(task({ ttlMs: 10_000 }));
    now = 1_009_999;
    expect(await tasks.get('user:ann', 't1')).toMatchObject({ taskId: 't1' });
    now = 1_010_000;
    expect(await tasks.get('user:ann', 't1')).toBeUndefined();
    expect(
      await tasks.update('user:ann', 't1', (current) => ({ ...current, status: 'completed' })),
    ).toBeUndefined();
    expect(await tasks.list('user:ann')).toEqual([]);
  });

  it('updates with compare-and-set: concurrent writers each see the other’s change', async () => {
    const tasks = await store(() => 1_000_500);
    await tasks.create(task({ statusMessage: '' }));
    await Promise.all(
      ['a', 'b', 'c', 'd'].map((mark) =>
        tasks.update('user:ann', 't1', (current) => ({
          ...current,
          statusMessage: `${current.statusMessage ?? ''}${mark}`,
        })),
      ),
    );
    const after = await tasks.get('user:ann', 't1');
    expect([...(after?.statusMessage ?? '')].sort().join('')).toBe('abcd');
  });
});
