import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  formQuestion,
  MemoryTaskStore,
  READ_ONLY,
  rootsQuestion,
  samplingQuestion,
  TASKS_EXTENSION,
  TaskHost,
  ToolRegistry,
} from '../src/index.js';
import { serveHttp } from '../src/node/index.js';
import {
  type ConnectedClient,
  connectHttp,
  connectInMemory,
  errorBody,
  type ModernRequest,
  modernHttpClient,
  spawnStdioClient,
} from '../src/testing/index.js';

/** How often each tool's handler started: a handler that asks runs again once answered. */
let runs: Record<string, number> = {};
const ran = (name: string) => {
  runs[name] = (runs[name] ?? 0) + 1;
};

const NAME = formQuestion('What is your name?', { name: { type: 'string' } }, ['name']);
const nameOf = (answer: { action: string; content?: Record<string, unknown> }) =>
  answer.action === 'accept' ? String(answer.content?.name) : `(${answer.action})`;

const greet = defineTool({
  name: 'greet',
  description: 'Asks a name (of `who`), then greets.',
  inputSchema: z.strictObject({ who: z.string().default('you').describe('Whose name to ask') }),
  annotations: READ_ONLY,
  handler: async ({ who }, context) => {
    ran('greet');
    const { user_name } = await context.ask({
      user_name: formQuestion(`Name of ${who}?`, NAME.params.requestedSchema.properties, ['name']),
    });
    return `Hello, ${nameOf(user_name)}!`;
  },
});
const twoRounds = defineTool({
  name: 'two_rounds',
  description: 'Asks a name, then a colour.',
  inputSchema: z.strictObject({}),
  annotations: READ_ONLY,
  handler: async (_input, context) => {
    ran('two_rounds');
    const { step1 } = await context.ask({ step1: NAME });
    const { step2 } = await context.ask({
      step2: formQuestion('Colour?', { color: { type: 'string' } }, ['color']),
    });
    return `${nameOf(step1)} likes ${String(step2.content?.color)}`;
  },
});
const everything = defineTool({
  name: 'everything',
  description: 'Asks a form, the model and the roots at once.',
  inputSchema: z.strictObject({}),
  annotations: READ_ONLY,
  handler: async (_input, context) => {
    const answers = await context.ask({
      user_name: NAME,
      capital: samplingQuestion('Capital of France?'),
      roots: rootsQuestion(),
    });
    return `${nameOf(answers.user_name)} / ${answers.capital.content.text} / ${answers.roots.roots.map((root) => root.uri).join(',')}`;
  },
});

/** A gate the test opens, so a task's progress never depends on timing. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}
let aborted = gate();

const approve = defineTool({
  name: 'approve',
  description: 'Runs as a task that waits for two answers.',
  inputSchema: z.strictObject({ item: z.string().describe('What to approve') }),
  annotations: READ_ONLY,
  task: 'optional',
  timeoutMs: 60_000,
  handler: async ({ item }, context) => {
    context.signal.addEventListener('abort', () => aborted.open(), { once: true });
    const { first, second } = await context.ask({
      first: formQuestion(`First approver of ${item}?`, { name: { type: 'string' } }),
      second: formQuestion(`Second approver of ${item}?`, { name: { type: 'string' } }),
    });
    return `${item} approved by ${nameOf(first)} and ${nameOf(second)}`;
  },
});
const impatient = defineTool({
  name: 'impatient',
  description: 'A task that waits for an answer no longer than its budget.',
  inputSchema: z.strictObject({}),
  annotations: READ_ONLY,
  task: 'optional',
  timeoutMs: 300,
  handler: async (_input, context) => nameOf((await context.ask({ user_name: NAME })).user_name),
});
const prepared = defineTool({
  name: 'prepared',
  description: 'Asks a name before it runs, then runs as a task.',
  inputSchema: z.strictObject({}),
  annotations: READ_ONLY,
  task: 'required',
  questions: () => ({ user_name: NAME }),
  handler: async (_input, context) => {
    ran('prepared');
    return `Hello, ${nameOf((await context.ask({ user_name: NAME })).user_name)}!`;
  },
});

const registry = () =>
  new ToolRegistry().use({
    id: 'ask',
    version: '1.0.0',
    tools: [greet, twoRounds, everything, approve, impatient, prepared],
  });

let connection: ConnectedClient | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await connection?.close();
  connection = undefined;
  for (const close of closers.splice(0)) await close();
  runs = {};
  aborted = gate();
});

type Answer = Record<string, unknown>;

/** A real client that answers forms, sampling and roots, remembering what it was asked. */
function answeringClient(options: { modern?: boolean; form?: Answer; capabilities?: Answer } = {}) {
  const asked: string[] = [];
  let forms = 0;
  const client = new Client(
    { name: 'ask-test', version: '0.0.0' },
    {
      capabilities: options.capabilities ?? { elicitation: { form: {} }, sampling: {}, roots: {} },
      ...(options.modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  const declared = options.capabilities ?? { elicitation: {}, sampling: {}, roots: {} };
  if (declared.elicitation)
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(String((request.params as { message: string }).message));
      forms += 1;
      return (options.form ?? {
        action: 'accept',
        content: { name: `Ada${forms}`, color: 'teal' },
      }) as never;
    });
  if (declared.sampling)
    client.setRequestHandler('sampling/createMessage', () => {
      asked.push('sampling');
      return {
        role: 'assistant',
        content: { type: 'text', text: 'Paris' },
        model: 'fake',
        stopReason: 'endTurn',
      };
    });
  if (declared.roots)
    client.setRequestHandler('roots/list', () => {
      asked.push('roots');
      return { roots: [{ uri: 'file:///work', name: 'work' }] };
    });
  return { client, asked };
}

async function http(options: { tasks?: TaskHost; requestStateKey?: string; token?: string } = {}) {
  const server = await serveHttp({
    name: 'ask-test',
    version: '0.0.0',
    registry: registry(),
    port: 0,
    ...options,
  });
  closers.push(() => server.close());
  return server.url;
}

const text = (result: { content?: unknown }) => (result.content as [{ text: string }])[0].text;

describe.each([
  { era: '2025-11-25 (in memory: elicitation/create on the connection)', modern: false },
  { era: '2026-07-28 (HTTP: input_required, answered on the retry)', modern: true },
])('a handler asks, client on $era', ({ modern }) => {
  const connect = async (client: Client) =>
    modern ? connectHttp(await http(), { client }) : connectInMemory(registry(), { client });

  it('asks the person, and the handler runs again with the answer', async () => {
    const { client, asked } = answeringClient({ modern });
    connection = await connect(client);
    const result = await connection.client.callTool({ name: 'greet', arguments: { who: 'the author' } });
    expect(text(result)).toBe('Hello, Ada1!');
    expect(asked).toEqual(['Name of the author?']);
    expect(runs.greet).toBe(2);
  });

  it('asks in two rounds, keeping the first answer (no second prompt for it)', async () => {
    const { client, asked } = answeringClient({ modern });
    connection = await connect(client);
    const result = await connection.client.callTool({ name: 'two_rounds', arguments: {} });
    expect(text(result)).toBe('Ada1 likes teal');
    expect(asked).toEqual(['What is your name?', 'Colour?']);
    expect(runs.two_rounds).toBe(3);
  });

  it('asks a form, the model and the roots at once', async () => {
    const { client, asked } = answeringClient({ modern });
    connection = await connect(client);
    const result = await connection.client.callTool({ name: 'everything', arguments: {} });
    expect(text(result)).toBe('Ada1 / Paris / file:///work');
    expect([...asked].sort()).toEqual(['What is your name?', 'roots', 'sampling']);
  });

  it('hands a decline to the handler', async () => {
    const { client } = answeringClient({ modern, form: { action: 'decline' } });
    connection = await connect(client);
    const result = await connection.client.callTool({ name: 'greet', arguments: {} });
    expect(text(result)).toBe('Hello, (decline)!');
  });

  it('answers INPUT_UNAVAILABLE to a client that cannot be asked, without asking', async () => {
    const { client, asked } = answeringClient({ modern, capabilities: { sampling: {} } });
    connection = await connect(client);
    const result = await connection.client.callTool({ name: 'greet', arguments: {} });
    expect(errorBody(result)).toMatchObject({ error_code: 'INPUT_UNAVAILABLE' });
    expect(asked).toEqual([]);
  });
});

describe('over stdio, next to a task tool (the tasks wrapper in front of every call)', () => {
  it.each([
    { era: '2025-11-25', modern: false },
    { era: '2026-07-28', modern: true },
  ])(
    'a $era client answers two rounds',
    async ({ modern }) => {
      const { client, asked } = answeringClient({ modern });
      connection = await spawnStdioClient({
        command: process.execPath,
        args: ['--import', 'tsx', fileURLToPath(new URL('./fixtures/ask-server.ts', import.meta.url))],
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        client,
      });
      const result = await connection.client.callTool({ name: 'greet', arguments: {} });
      expect(text(result)).toBe('Ada1 likes teal');
      expect(asked).toEqual(['Name?', 'Colour?']);
    },
    90_000,
  );
});

describe('hostile answers on 2026-07-28 (a client written out by hand)', () => {
  const form = { elicitation: { form: {} } };

  it('replicas behind one static token take each other’s state; another token’s is refused', async () => {
    const token = 'a-static-token-shared-by-two-replicas';
    const [first, second, stranger] = [
      modernHttpClient(await http({ token }), { capabilities: form, token }),
      modernHttpClient(await http({ token }), { capabilities: form, token }),
      modernHttpClient(await http({ token: 'another-static-token' }), {
        capabilities: form,
        token: 'another-static-token',
      }),
    ];
    const asked = await first('tools/call', { name: 'two_rounds', arguments: {} });
    const retry = {
      name: 'two_rounds',
      arguments: {},
      inputResponses: { step1: { action: 'accept', content: { name: 'Eve' } } },
      requestState: asked.requestState,
    };
    expect(await second('tools/call', retry)).toMatchObject({
      resultType: 'input_required',
      inputRequests: { step2: expect.any(Object) },
    });
    await expect(stranger('tools/call', retry)).rejects.toMatchObject({ code: -32602 });
  });

  it('refuses a tampered or foreign requestState (-32602), and one replayed for other arguments', async () => {
    const url = await http();
    const client = modernHttpClient(url, { capabilities: form });
    const first = await client('tools/call', { name: 'two_rounds', arguments: {} });
    expect(first).toMatchObject({
      resultType: 'input_required',
      inputRequests: { step1: expect.any(Object) },
    });
    const state = first.requestState as string;
    const accept = { step1: { action: 'accept', content: { name: 'Eve' } } };
    await expect(
      client('tools/call', {
        name: 'two_rounds',
        arguments: {},
        inputResponses: accept,
        requestState: `${state}x`,
      }),
    ).rejects.toMatchObject({ code: -32602 });
    // Signed by another server's key: not ours.
    const other = modernHttpClient(await http({ requestStateKey: 'another-key-of-at-least-32-characters' }), {
      capabilities: form,
    });
    const foreign = await other('tools/call', { name: 'two_rounds', arguments: {} });
    await expect(
      client('tools/call', {
        name: 'two_rounds',
        arguments: {},
        inputResponses: accept,
        requestState: foreign.requestState,
      }),
    ).rejects.toMatchObject({ code: -32602 });
    // Round 2 of greet(who: a) carries its answers; replayed on greet(who: b) it is refused.
    const asked = await client('tools/call', { name: 'greet', arguments: { who: 'a' } });
    const replayed = await client('tools/call', {
      name: 'greet',
      arguments: { who: 'b' },
      inputResponses: { user_name: { action: 'accept', content: { name: 'Mallory' } } },
      requestState: asked.requestState,
    });
    expect(replayed.isError).toBe(true);
    expect(JSON.parse(text(replayed))).toMatchObject({ error_code: 'INVALID_INPUT' });
    expect(JSON.parse(text(replayed)).message).toContain('issued for another call');
  });

  it('ignores an answer to a question nobody asked, and asks again', async () => {
    const client = modernHttpClient(await http(), { capabilities: form });
    const result = await client('tools/call', {
      name: 'greet',
      arguments: {},
      inputResponses: { admin: { action: 'accept', content: { name: 'root' } } },
    });
    expect(result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { user_name: expect.any(Object) },
    });
    expect(result.requestState).toEqual(expect.any(String));
  });

  it('answers a malformed answer with INVALID_INPUT', async () => {
    const client = modernHttpClient(await http(), { capabilities: form });
    const result = await client('tools/call', {
      name: 'greet',
      arguments: {},
      inputResponses: { user_name: { action: 'yes please' } },
    });
    expect(JSON.parse(text(result))).toMatchObject({ error_code: 'INVALID_INPUT' });
  });

  it('carries earlier answers only in the signed state: a step2 answer alone asks step1 again', async () => {
    const client = modernHttpClient(await http(), { capabilities: form });
    const result = await client('tools/call', {
      name: 'two_rounds',
      arguments: {},
      inputResponses: { step2: { action: 'accept', content: { color: 'red' } } },
    });
    expect(Object.keys(result.inputRequests as object)).toEqual(['step1']);
  });
});

/** Polls `tasks/get` until the task is in `status` (the server moves it; the test only looks). */
async function until(client: ModernRequest, taskId: string, status: string) {
  for (;;) {
    const task = await client('tasks/get', { taskId });
    if (task.status === status) return task;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('a task that waits for input (2026-07-28 tasks extension)', () => {
  const capabilities = { elicitation: { form: {} }, extensions: { [TASKS_EXTENSION]: {} } };

  it('waits in input_required, takes partial answers, and completes once all are in', async () => {
    const host = new TaskHost({ cancelCheckMs: 20 });
    const client = modernHttpClient(await http({ tasks: host }), { capabilities });
    const { taskId } = (await client('tools/call', { name: 'approve', arguments: { item: 'the plan' } })) as {
      taskId: string;
    };
    const waiting = await until(client, taskId, 'input_required');
    expect(Object.keys(waiting.inputRequests as object).sort()).toEqual(['first', 'second']);
    expect(waiting).not.toHaveProperty('requestState');
    // A malformed answer is refused whole; an unknown key is ignored.
    await expect(
      client('tasks/update', { taskId, inputResponses: { first: { action: 'maybe' } } }),
    ).rejects.toMatchObject({ code: -32602 });
    expect(
      await client('tasks/update', {
        taskId,
        inputResponses: {
          first: { action: 'accept', content: { name: 'Ann' } },
          third: { action: 'accept' },
        },
      }),
    ).toMatchObject({ resultType: 'complete' });
    const partial = await client('tasks/get', { taskId });
    expect(partial).toMatchObject({ status: 'input_required' });
    expect(Object.keys(partial.inputRequests as object)).toEqual(['second']);
    await client('tasks/update', { taskId, inputResponses: { second: { action: 'decline' } } });
    await host.idle();
    expect(await client('tasks/get', { taskId })).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'the plan approved by Ann and (decline)' }] },
    });
  });

  it('is cancelled while it waits: its handler aborts and it stays cancelled', async () => {
    const host = new TaskHost({ cancelCheckMs: 20 });
    const client = modernHttpClient(await http({ tasks: host }), { capabilities });
    const { taskId } = (await client('tools/call', { name: 'approve', arguments: { item: 'x' } })) as {
      taskId: string;
    };
    await until(client, taskId, 'input_required');
    await client('tasks/cancel', { taskId });
    await aborted.opened;
    await host.idle();
    expect(await client('tasks/get', { taskId })).toMatchObject({ status: 'cancelled' });
    // Answers for a cancelled task change nothing.
    await client('tasks/update', { taskId, inputResponses: { first: { action: 'accept' } } });
    expect(await client('tasks/get', { taskId })).toMatchObject({ status: 'cancelled' });
  });

  it('ends with the tool’s timeout when nobody answers in its budget', async () => {
    const host = new TaskHost({ cancelCheckMs: 20 });
    const client = modernHttpClient(await http({ tasks: host }), { capabilities });
    const { taskId } = (await client('tools/call', { name: 'impatient', arguments: {} })) as {
      taskId: string;
    };
    await host.idle();
    const done = await client('tasks/get', { taskId });
    expect(done).toMatchObject({ status: 'completed', result: { isError: true } });
    expect(JSON.parse(text(done.result as { content: unknown }))).toMatchObject({
      error_code: 'UPSTREAM_UNAVAILABLE',
      timeout_ms: 300,
    });
  });

  it('takes the answers on another replica (two servers over one store)', async () => {
    const store = new MemoryTaskStore();
    const running = new TaskHost({ store, cancelCheckMs: 20 });
    const onA = modernHttpClient(await http({ tasks: running }), { capabilities });
    const onB = modernHttpClient(await http({ tasks: new TaskHost({ store }) }), { capabilities });
    const { taskId } = (await onA('tools/call', { name: 'approve', arguments: { item: 'y' } })) as {
      taskId: string;
    };
    await until(onB, taskId, 'input_required');
    await onB('tasks/update', {
      taskId,
      inputResponses: {
        first: { action: 'accept', content: { name: 'B1' } },
        second: { action: 'accept', content: { name: 'B2' } },
      },
    });
    await running.idle();
    expect(await onB('tasks/get', { taskId })).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'y approved by B1 and B2' }] },
    });
  });

  it('asks a tool’s questions in rounds before the task exists, then runs it with the answers', async () => {
    const host = new TaskHost();
    const client = modernHttpClient(await http({ tasks: host }), { capabilities });
    const first = await client('tools/call', { name: 'prepared', arguments: {} });
    expect(first).toMatchObject({ resultType: 'input_required' });
    expect(first).not.toHaveProperty('taskId');
    expect(runs.prepared).toBeUndefined();
    const created = await client('tools/call', {
      name: 'prepared',
      arguments: {},
      inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
      requestState: first.requestState,
    });
    expect(created).toMatchObject({ resultType: 'task' });
    expect(created).not.toHaveProperty('requestState');
    await host.idle();
    expect(await client('tasks/get', { taskId: created.taskId })).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'Hello, Alice!' }] },
    });
  });

  it('answers INPUT_UNAVAILABLE in a 2025-11-25 task (nothing carries its question), never waits', async () => {
    const host = new TaskHost();
    const { client } = answeringClient();
    connection = await connectInMemory(registry(), { client, tasks: host });
    const created = (await client.request(
      { method: 'tools/call', params: { name: 'approve', arguments: { item: 'z' }, task: {} } } as never,
      z.looseObject({}),
    )) as { task: { taskId: string } };
    await host.idle();
    const result = (await client.request(
      { method: 'tasks/result', params: { taskId: created.task.taskId } } as never,
      z.looseObject({}),
    )) as { content: unknown };
    expect(JSON.parse(text(result))).toMatchObject({ error_code: 'INPUT_UNAVAILABLE' });
  });
});
