import { ToolRegistry } from '@x/mcp-core';
import {
  type ConnectedClient,
  connectInMemory,
  describeToolProvider,
  errorBody,
  resultData,
  resultText,
} from '@x/mcp-core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type BasecampSettings, createBasecampProvider } from './index.js';
import { DOCK, type FakeBasecamp, IDS, LAPTOP, LOCATOR, startFakeBasecamp } from './testing/index.js';

let fake: FakeBasecamp;
let connection: ConnectedClient;

const settings = (extra: BasecampSettings = {}): BasecampSettings => ({
  apiUrl: fake.url,
  launchpadUrl: fake.launchpadUrl,
  accessToken: fake.accessToken,
  accountId: fake.accountId,
  rateLimitRequests: 10_000,
  retryBaseMs: 5,
  env: {},
  ...extra,
});

beforeAll(async () => {
  fake = await startFakeBasecamp();
  connection = await connectInMemory(new ToolRegistry().use(createBasecampProvider(settings())));
});
afterAll(async () => {
  await connection.close();
  await fake.close();
});
afterEach(() => fake.resetLog());

describeToolProvider(() => createBasecampProvider(settings()));

const call = (name: string, args: Record<string, unknown> = {}) =>
  connection.client.callTool({ name, arguments: args });

type List<T> = {
  items: T[];
  has_more: boolean;
  next_page: number | null;
  total?: number;
  truncated: boolean;
};

describe('projects and their tools', () => {
  it('lists active projects with the tools they have switched on', async () => {
    const result = await call('list_projects');
    const data = resultData<List<{ id: number; name: string; enabled_tools: string[] }>>(result);
    expect(result.structuredContent).toEqual(data);
    expect(data.items.map((project) => project.id)).toEqual([LAPTOP, LOCATOR]);
    expect(data.items[0]?.enabled_tools).toEqual([
      'message_board',
      'todoset',
      'vault',
      'chat',
      'schedule',
      'chat',
      'inbox',
      'kanban_board',
    ]);
    expect(data).toMatchObject({ has_more: false, next_page: null, total: 2, truncated: false });
  });

  it('passes the archived status to Basecamp and can list all', async () => {
    const archived = resultData<List<{ name: string }>>(await call('list_projects', { status: 'archived' }));
    expect(archived.items.map((project) => project.name)).toEqual(['Old Website']);
    expect(fake.requests[0]?.query).toEqual({ status: 'archived' });
    const all = resultData<List<{ name: string }>>(await call('list_projects', { status: 'all' }));
    expect(all.items).toHaveLength(3);
    expect(all.total).toBe(3);
  });

  it('gives the dock IDs of a project and every entry with its state', async () => {
    const data = resultData<Record<string, unknown> & { dock: { name: string; enabled: boolean }[] }>(
      await call('get_project_tools', { project_id: LAPTOP }),
    );
    expect(data).toMatchObject({
      name: 'The Leto Laptop',
      message_board_id: DOCK.laptop.messageBoard,
      todoset_id: DOCK.laptop.todoset,
      vault_id: DOCK.laptop.vault,
      chat_id: null,
      schedule_id: DOCK.laptop.schedule,
    });
    expect(data.dock).toHaveLength(9);
    expect(data.dock.find((entry) => entry.name === 'questionnaire')).toMatchObject({ enabled: false });
  });

  it('answers NOT_FOUND for an unknown project, pointing at list_projects', async () => {
    const body = errorBody(await call('get_project_tools', { project_id: 42 }));
    expect(body.error_code).toBe('NOT_FOUND');
    expect(body.message).toContain('Use list_projects');
  });
});

describe('dock resolution', () => {
  it('finds the message board from the project, once per project', async () => {
    await call('list_messages', { project_id: LAPTOP, limit: 5 });
    await call('list_messages', { project_id: LAPTOP, limit: 5, page: 2 });
    const projectReads = fake.requests.filter((request) => request.path.endsWith(`/projects/${LAPTOP}.json`));
    expect(projectReads.length).toBeLessThanOrEqual(1);
    expect(fake.requests.at(-1)?.path).toBe(
      `/${fake.accountId}/message_boards/${DOCK.laptop.messageBoard}/messages.json`,
    );
  });

  it('answers INVALID_INPUT listing both chats when a project has two, and accepts chat_id', async () => {
    const body = errorBody(await call('list_campfire_lines', { project_id: LAPTOP }));
    expect(body.error_code).toBe('INVALID_INPUT');
    expect(body.candidates).toEqual([
      `${DOCK.laptop.chat} (Chat)`,
      `${DOCK.laptop.designChat} (Design Chat)`,
    ]);
    expect(body.message).toContain('chat_id');
    const lines = resultData<List<{ content: string }>>(
      await call('list_campfire_lines', { project_id: LAPTOP, chat_id: DOCK.laptop.designChat }),
    );
    expect(lines.items.map((line) => line.content)).toEqual([
      'Palette option **3**',
      'Palette option **2**',
      'Palette option **1**',
    ]);
  });

  it('answers TOOL_NOT_ENABLED for a switched-off board and for a missing schedule', async () => {
    const board = errorBody(await call('list_messages', { project_id: LOCATOR }));
    expect(board.error_code).toBe('TOOL_NOT_ENABLED');
    expect(board.message).toContain('switched off');
    const schedule = errorBody(await call('list_schedule_entries', { project_id: LOCATOR }));
    expect(schedule.error_code).toBe('TOOL_NOT_ENABLED');
    expect(schedule.message).toContain('has no Schedule');
  });

  it('uses a single chat without asking', async () => {
    const result = await call('list_campfire_lines', { project_id: LOCATOR });
    expect(resultData<List<{ content: string }>>(result).items.map((line) => line.content)).toEqual([
      'Prototype ships Monday',
    ]);
  });
});

describe('read tools', () => {
  it('lists messages with Markdown excerpts, page by page', async () => {
    const first = resultData<
      List<{ id: number; subject: string; content: string; author: { name: string } }>
    >(await call('list_messages', { project_id: LAPTOP, limit: 20 }));
    expect(first.items).toHaveLength(20);
    expect(first).toMatchObject({ has_more: true, next_page: 2, total: 27 });
    expect(first.items[0]).toMatchObject({
      id: IDS.richMessage,
      subject: 'Launch plan',
      author: { name: 'Victor Cooper' },
    });
    const second = resultData<List<{ id: number }>>(
      await call('list_messages', { project_id: LAPTOP, limit: 20, page: 2 }),
    );
    expect(second.items).toHaveLength(7);
    expect(second).toMatchObject({ has_more: false, next_page: null });
    const ids = new Set([...first.items, ...second.items].map((message) => message.id));
    expect(ids.size).toBe(27);
  });

  it('reads a message as Markdown, never HTML', async () => {
    const result = await call('get_message', { message_id: IDS.richMessage });
    const data = resultData<{ content: string; content_truncated: boolean; comments_count: number }>(result);
    expect(data.content).toContain('@Sharon owns the shots');
    expect(data.content).toContain('```\nconst launch');
    expect(data.content).not.toMatch(/<\/?(div|bc-attachment|figure|strong|br)/);
    expect(data).toMatchObject({ content_truncated: false, comments_count: 2 });
  });

  it('lists to-do lists and pending to-dos across geared pages', async () => {
    const lists = resultData<List<{ id: number; name: string; completed_ratio: string }>>(
      await call('list_todolists', { project_id: LAPTOP }),
    );
    expect(lists.items.map((list) => list.name)).toEqual(['Strategy ideas', 'Launch checklist']);
    expect(lists.items[1]?.completed_ratio).toBe('10/130');
    const todos = resultData<List<{ title: string; completed: boolean }>>(
      await call('list_todos', { todolist_id: IDS.launchList, page: 2, limit: 50 }),
    );
    expect(todos.items[0]?.title).toBe('Checklist item 51');
    expect(todos.items.every((todo) => !todo.completed)).toBe(true);
    expect(todos).toMatchObject({ total: 120, has_more: true, next_page: 3 });
  });

  it('sends the completed filter to Basecamp instead of filtering locally', async () => {
    const todos = resultData<List<{ title: string; completed: boolean }>>(
      await call('list_todos', { todolist_id: IDS.launchList, completed: true }),
    );
    expect(todos.items).toHaveLength(10);
    expect(todos.total).toBe(10);
    expect(todos.items.every((todo) => todo.completed)).toBe(true);
    expect(fake.requests[0]?.query).toEqual({ completed: 'true' });
  });

  it('gets a to-do with assignees, dates and completion', async () => {
    const todo = resultData<Record<string, unknown>>(await call('get_todo', { todo_id: IDS.assignedTodo }));
    expect(todo).toMatchObject({
      title: 'Clear and simple UI',
      description: 'Keep the setup to _three_ screens. Ask @Victor first.',
      completed: false,
      due_on: '2026-03-01',
      starts_on: '2026-02-20',
      assignees: [
        { id: 1049715930, name: 'Sharon Bradford', email: 'sharon@honchodesign.com' },
        { id: 1049715938, name: 'Annie Bryan', email: 'annie@honchodesign.com' },
      ],
      todolist: { id: IDS.strategyList, title: 'Strategy ideas' },
    });
    const done = resultData<Record<string, unknown>>(await call('get_todo', { todo_id: IDS.completedTodo }));
    expect(done).toMatchObject({ completed: true, completed_by: { name: 'Sharon Bradford' } });
    expect(typeof done.completed_at).toBe('string');
  });

  it('answers NOT_FOUND for a missing to-do, pointing at list_todos', async () => {
    const body = errorBody(await call('get_todo', { todo_id: 1 }));
    expect(body).toMatchObject({ error_code: 'NOT_FOUND', retryable: false });
    expect(body.message).toBe(
      'To-do 1 was not found, or you have no access to it. Use list_todos to see to-do IDs.',
    );
  });

  it('lists comments on any recording, oldest first', async () => {
    const comments = resultData<List<{ content: string; author: { name: string } }>>(
      await call('list_comments', { recording_id: IDS.richMessage }),
    );
    expect(comments.items.map((comment) => comment.author.name)).toEqual(['Sharon Bradford', 'Annie Bryan']);
    expect(comments.items[0]?.content).toBe(
      'Shots are **done**. See [the folder](https://example.com/shots).',
    );
  });

  it('lists and reads documents, and lists uploads', async () => {
    const documents = resultData<List<{ id: number; title: string }>>(
      await call('list_documents', { project_id: LAPTOP }),
    );
    expect(documents.items.map((document) => document.title)).toContain('Brand voice');
    const document = resultData<{ content: string }>(
      await call('get_document', { document_id: IDS.document }),
    );
    expect(document.content).toBe(
      '**Health Insurance**\nWe have one policy; the company pays most of it.\n\n**Paid Time Off**\nClear it with your team.',
    );
    const uploads = resultData<List<Record<string, unknown>>>(
      await call('list_uploads', { project_id: LAPTOP }),
    );
    expect(uploads.items.find((upload) => upload.id === IDS.upload)).toMatchObject({
      filename: 'company-logo.png',
      content_type: 'image/png',
      byte_size: 1281,
      description: 'Check out the new logo',
    });
  });

  it('lists schedule entries with participants', async () => {
    const entries = resultData<List<Record<string, unknown>>>(
      await call('list_schedule_entries', { project_id: LAPTOP }),
    );
    expect(entries.items[0]).toMatchObject({
      summary: 'Team Meeting',
      description: 'Time to synergize!',
      all_day: false,
      participants: [{ name: 'Victor Cooper' }, { name: 'Steve Marsh' }],
    });
  });

  it('lists people on the account and on a project', async () => {
    const everyone = resultData<List<{ email: string }>>(await call('list_people'));
    expect(everyone.items).toHaveLength(4);
    const project = resultData<List<{ name: string }>>(await call('list_people', { project_id: LOCATOR }));
    expect(project.items.map((person) => person.name)).toEqual(['Victor Cooper', 'Sharon Bradford']);
  });

  it('searches with filters passed to Basecamp and highlights as emphasis', async () => {
    const results = resultData<List<{ id: number; type: string; excerpt: string; project: { id: number } }>>(
      await call('search', { query: 'launch', type: 'Message', project_id: LAPTOP, limit: 5 }),
    );
    expect(fake.requests.at(-1)?.query).toEqual({
      q: 'launch',
      type: 'Message',
      bucket_id: String(LAPTOP),
      page: '1',
      per_page: '5',
    });
    expect(results.items.map((result) => result.type)).toEqual(['Message', 'Message']);
    expect(results.items.every((result) => result.project.id === LAPTOP)).toBe(true);
    expect(results.items.find((result) => result.id === IDS.richMessage)?.excerpt).toMatch(
      /^_Launch_ plan for the Leto laptop\. Sharon owns the shots/,
    );
    const paged = resultData<List<unknown>>(await call('search', { query: 'checklist item', limit: 50 }));
    expect(paged).toMatchObject({ has_more: true, next_page: 2, total: 130 });
  });

  it('cuts a response that is too large and says so', async () => {
    const small = await connectInMemory(
      new ToolRegistry().use(createBasecampProvider(settings({ maxResponseChars: 4_000 }))),
    );
    try {
      const data = resultData<List<unknown>>(
        await small.client.callTool({
          name: 'list_todos',
          arguments: { todolist_id: IDS.launchList, limit: 100 },
        }),
      );
      expect(data.truncated).toBe(true);
      expect(data.has_more).toBe(true);
      expect(data.items.length).toBeGreaterThan(0);
      expect(data.items.length).toBeLessThan(100);
      expect(JSON.stringify(data).length).toBeLessThanOrEqual(4_000);
    } finally {
      await small.close();
    }
  });
});

describe('write tools', () => {
  it('posts a message with Markdown sent as Basecamp HTML', async () => {
    const result = await call('create_message', {
      project_id: LAPTOP,
      subject: 'Kickoff',
      content: 'Welcome **everyone**.\n\n- read the brief',
    });
    const message = resultData<{ id: number; subject: string; content: string }>(result);
    expect(message.subject).toBe('Kickoff');
    expect(message.content).toBe('Welcome **everyone**.\n\n- read the brief');
    const post = fake.requests.find((request) => request.method === 'POST');
    expect(post?.path).toBe(`/${fake.accountId}/message_boards/${DOCK.laptop.messageBoard}/messages.json`);
    expect(post?.body).toEqual({
      subject: 'Kickoff',
      status: 'active',
      content: '<div>Welcome <strong>everyone</strong>.</div><ul><li>read the brief</li></ul>',
    });
    expect(fake.recordings.get(message.id)?.title).toBe('Kickoff');
  });

  it('adds a to-do with assignees and dates', async () => {
    const todo = resultData<Record<string, unknown>>(
      await call('create_todo', {
        todolist_id: IDS.strategyList,
        content: 'Book the venue',
        description: 'Ask _two_ places',
        assignee_ids: [1049715944],
        due_on: '2026-04-01',
        notify: true,
      }),
    );
    expect(todo).toMatchObject({
      title: 'Book the venue',
      description: 'Ask _two_ places',
      due_on: '2026-04-01',
      assignees: [{ id: 1049715944, name: 'Steve Marsh' }],
    });
    expect(fake.requests.find((request) => request.method === 'POST')?.body).toEqual({
      content: 'Book the venue',
      description: '<div>Ask <em>two</em> places</div>',
      assignee_ids: [1049715944],
      notify: true,
      due_on: '2026-04-01',
    });
  });

  it("passes Basecamp's 422 message on as INVALID_INPUT", async () => {
    const body = errorBody(
      await call('create_todo', { todolist_id: IDS.strategyList, content: 'x', assignee_ids: [5] }),
    );
    expect(body.error_code).toBe('INVALID_INPUT');
    expect(body.message).toContain('Assignees not found: 5');
  });

  it('completes and reopens a to-do', async () => {
    const done = resultData<{ completed: boolean; completed_by: { name: string } }>(
      await call('complete_todo', { todo_id: IDS.assignedTodo }),
    );
    expect(done.completed).toBe(true);
    expect(done.completed_by.name).toBe('Victor Cooper');
    expect(fake.requests[0]).toMatchObject({
      method: 'POST',
      path: `/${fake.accountId}/todos/${IDS.assignedTodo}/completion.json`,
    });
    const reopened = resultData<{ completed: boolean }>(
      await call('reopen_todo', { todo_id: IDS.assignedTodo }),
    );
    expect(reopened.completed).toBe(false);
    expect(fake.requests.some((request) => request.method === 'DELETE')).toBe(true);
  });

  it('comments on a recording and posts in a chat', async () => {
    const comment = resultData<{ content: string; parent: { id: number } }>(
      await call('create_comment', { recording_id: IDS.assignedTodo, content: 'On it ~~tomorrow~~ today' }),
    );
    expect(comment).toMatchObject({ content: 'On it ~~tomorrow~~ today', parent: { id: IDS.assignedTodo } });
    const line = resultData<{ content: string }>(
      await call('post_campfire_line', { project_id: LAPTOP, chat_id: DOCK.laptop.chat, content: 'Lunch?' }),
    );
    expect(line.content).toBe('Lunch?');
    expect(fake.requests.at(-1)?.body).toEqual({ content: 'Lunch?' });
  });

  it('are absent from a read-only registry', async () => {
    const readOnly = new ToolRegistry().use(createBasecampProvider(settings()), { readOnly: true });
    const names = readOnly.getAll().map((tool) => tool.name);
    expect(names).toHaveLength(17);
    for (const write of [
      'create_message',
      'create_todo',
      'complete_todo',
      'reopen_todo',
      'create_comment',
      'post_campfire_line',
    ]) {
      expect(names).not.toContain(write);
    }
  });
});

describe('limits and secrets', () => {
  it('absorbs a burst of 60 calls against a server allowing 10 per second: zero RATE_LIMITED', async () => {
    const strict = await startFakeBasecamp({ rateLimit: { requests: 10, windowMs: 1_000 } });
    const burst = await connectInMemory(
      new ToolRegistry().use(
        createBasecampProvider({
          apiUrl: strict.url,
          accessToken: strict.accessToken,
          accountId: strict.accountId,
          rateLimitRequests: 10,
          rateLimitWindowMs: 1_000,
          env: {},
        }),
      ),
    );
    try {
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, index) =>
          burst.client.callTool({ name: 'get_todo', arguments: { todo_id: 1069490001 + (index % 30) } }),
        ),
      );
      const codes = results.filter((result) => result.isError).map((result) => errorBody(result).error_code);
      expect(codes).toEqual([]);
      expect(strict.rateLimited).toBe(0);
    } finally {
      await burst.close();
      await strict.close();
    }
  }, 30_000);

  it('never puts the token in a result', async () => {
    for (const [name, args] of [
      ['list_projects', {}],
      ['get_todo', { todo_id: 1 }],
      ['list_campfire_lines', { project_id: LAPTOP }],
    ] as const) {
      expect(resultText(await call(name, args))).not.toContain(fake.accessToken);
    }
  });

  it('reports readiness without reading any project', async () => {
    const provider = createBasecampProvider(settings());
    const ready = await provider.checkReadiness?.({ signal: AbortSignal.timeout(5_000) });
    expect(ready).toMatchObject({
      ready: true,
      checks: [
        { name: 'credentials', ok: true },
        { name: 'upstream', ok: true },
      ],
    });
    expect(JSON.stringify(ready)).not.toContain(fake.accessToken);
    const loggedOut = await createBasecampProvider({
      apiUrl: fake.url,
      env: {},
      tokenFile: '/nonexistent/basecamp/token.json',
    }).checkReadiness?.({
      signal: AbortSignal.timeout(5_000),
    });
    expect(loggedOut?.ready).toBe(false);
    expect(loggedOut?.checks[0]?.detail).toContain('basecamp-mcp login');
  });

  it('does no I/O when the provider is built', () => {
    const provider = createBasecampProvider({ apiUrl: 'not a url', env: { BASECAMP_ACCOUNT_ID: 'x' } });
    expect(provider.tools).toHaveLength(24);
  });
});
