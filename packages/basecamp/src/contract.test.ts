import { ToolRegistry } from '@x/mcp-core';
import { type ConnectedClient, connectInMemory, errorBody, resultData } from '@x/mcp-core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBasecampProvider } from './index.js';
import { DOCK, type FakeBasecamp, IDS, LAPTOP, LOCATOR, startFakeBasecamp } from './testing/index.js';

// The tool contract (project_id + content IDs) and the data the answers must not lose, through a
// real MCP client against the fake Basecamp.

let fake: FakeBasecamp;
let connection: ConnectedClient;

beforeAll(async () => {
  fake = await startFakeBasecamp();
  connection = await connectInMemory(
    new ToolRegistry().use(
      createBasecampProvider({
        apiUrl: fake.url,
        accessToken: fake.accessToken,
        accountId: fake.accountId,
        rateLimitRequests: 10_000,
        env: {},
      }),
    ),
  );
});
afterAll(async () => {
  await connection.close();
  await fake.close();
});
afterEach(() => fake.resetLog());

const call = (name: string, args: Record<string, unknown> = {}) =>
  connection.client.callTool({ name, arguments: args });

type Item = Record<string, unknown>;
type List<T = Item> = { items: T[]; has_more: boolean; next_page: number | null; total?: number };
const paths = () =>
  fake.requests.map((request) => `${request.method} ${request.path.slice(fake.accountId.length + 1)}`);

describe('project_id on every project-scoped tool', () => {
  it('answers the seed-style calls: get_message, get_todo, list_todos, list_comments, get_document', async () => {
    const message = resultData<Item>(
      await call('get_message', { project_id: LAPTOP, message_id: IDS.richMessage }),
    );
    expect(message).toMatchObject({
      id: IDS.richMessage,
      project_id: LAPTOP,
      project: { name: 'The Leto Laptop' },
    });
    const todo = resultData<Item>(await call('get_todo', { project_id: LAPTOP, todo_id: IDS.assignedTodo }));
    expect(todo).toMatchObject({
      title: 'Clear and simple UI',
      project: { id: LAPTOP, name: 'The Leto Laptop' },
    });
    const todos = resultData<List>(
      await call('list_todos', { project_id: LAPTOP, todolist_id: IDS.strategyList }),
    );
    expect(todos.items.map((entry) => entry.title)).toEqual(['Clear and simple UI', 'Pick the launch venue']);
    const comments = resultData<List>(
      await call('list_comments', { project_id: LAPTOP, recording_id: IDS.richMessage }),
    );
    expect(comments.items).toHaveLength(2);
    const document = resultData<Item>(
      await call('get_document', { project_id: LAPTOP, document_id: IDS.document }),
    );
    expect(document).toMatchObject({
      title: 'New Hire Info, Benefits Summary, and Forms',
      project_id: LAPTOP,
    });
    // With a project, Basecamp's project routes are asked, so another project's item is never read.
    expect(paths()).toEqual([
      `GET /buckets/${LAPTOP}/messages/${IDS.richMessage}.json`,
      `GET /buckets/${LAPTOP}/todos/${IDS.assignedTodo}.json`,
      `GET /buckets/${LAPTOP}/todolists/${IDS.strategyList}/todos.json`,
      `GET /buckets/${LAPTOP}/recordings/${IDS.richMessage}/comments.json`,
      `GET /buckets/${LAPTOP}/documents/${IDS.document}.json`,
    ]);
  });

  it('answers NOT_FOUND naming the real project when the item is in another one', async () => {
    for (const [name, args] of [
      ['get_message', { project_id: LOCATOR, message_id: IDS.richMessage }],
      ['get_todo', { project_id: LOCATOR, todo_id: IDS.assignedTodo }],
      ['list_todos', { project_id: LOCATOR, todolist_id: IDS.strategyList }],
      ['list_comments', { project_id: LOCATOR, recording_id: IDS.richMessage }],
      ['get_document', { project_id: LOCATOR, document_id: IDS.document }],
    ] as const) {
      const body = errorBody(await call(name, args));
      expect(body.error_code).toBe('NOT_FOUND');
      expect(body.message).toMatch(
        new RegExp(`is not in project ${LOCATOR}: it is in project ${LAPTOP} \\("The Leto Laptop"\\)`),
      );
    }
  });

  it('answers NOT_FOUND inside the project for an item that does not exist at all', async () => {
    const body = errorBody(await call('get_todo', { project_id: LAPTOP, todo_id: 1 }));
    expect(body).toMatchObject({
      error_code: 'NOT_FOUND',
      message: `To-do 1 was not found in project ${LAPTOP}, or you have no access to it. Use list_todos to see to-do IDs.`,
    });
  });

  it('writes only inside the named project', async () => {
    const wrong = errorBody(await call('complete_todo', { project_id: LOCATOR, todo_id: IDS.assignedTodo }));
    expect(wrong.error_code).toBe('NOT_FOUND');
    expect(fake.recordings.get(IDS.assignedTodo)?.completed).toBe(false);
    const refused = errorBody(
      await call('create_comment', { project_id: LOCATOR, recording_id: IDS.richMessage, content: 'hi' }),
    );
    expect(refused.error_code).toBe('NOT_FOUND');
    const noTodo = errorBody(
      await call('create_todo', { project_id: LOCATOR, todolist_id: IDS.strategyList, content: 'x' }),
    );
    expect(noTodo.error_code).toBe('NOT_FOUND');
    expect(fake.requests.filter((request) => request.method !== 'GET' && request.status < 400)).toEqual([]);
    fake.resetLog();

    const done = resultData<Item>(
      await call('complete_todo', { project_id: LAPTOP, todo_id: IDS.assignedTodo }),
    );
    expect(done.completed).toBe(true);
    const reopened = resultData<Item>(
      await call('reopen_todo', { project_id: LAPTOP, todo_id: IDS.assignedTodo }),
    );
    expect(reopened.completed).toBe(false);
    const comment = resultData<Item>(
      await call('create_comment', {
        project_id: LAPTOP,
        recording_id: IDS.richMessage,
        content: 'Looks **good**',
      }),
    );
    expect(comment).toMatchObject({
      content: 'Looks **good**',
      parent: { id: IDS.richMessage, type: 'Message' },
    });
    const todo = resultData<Item>(
      await call('create_todo', {
        project_id: LAPTOP,
        todolist_id: IDS.strategyList,
        content: 'Print flyers',
      }),
    );
    expect(todo).toMatchObject({
      title: 'Print flyers',
      project_id: LAPTOP,
      todolist: { id: IDS.strategyList },
    });
    expect(paths().filter((path) => !path.startsWith('GET'))).toEqual([
      `POST /buckets/${LAPTOP}/todos/${IDS.assignedTodo}/completion.json`,
      `DELETE /buckets/${LAPTOP}/todos/${IDS.assignedTodo}/completion.json`,
      `POST /buckets/${LAPTOP}/recordings/${IDS.richMessage}/comments.json`,
      `POST /buckets/${LAPTOP}/todolists/${IDS.strategyList}/todos.json`,
    ]);
  });

  it('says so in every item tool schema and in the server instructions', async () => {
    const { tools } = await connection.client.listTools();
    for (const name of [
      'get_message',
      'get_todo',
      'list_todos',
      'list_comments',
      'get_document',
      'create_todo',
      'complete_todo',
      'reopen_todo',
      'create_comment',
      'list_folders',
    ]) {
      const tool = tools.find((candidate) => candidate.name === name);
      expect(Object.keys(tool?.inputSchema.properties ?? {})).toContain('project_id');
      // Where it comes from when it is required; on an item's tool, where it is optional, what it
      // checks (list_projects' own description says every project_id comes from it).
      const projectId = tool?.inputSchema.properties?.project_id as { description?: string } | undefined;
      if (tool?.inputSchema.required?.includes('project_id')) {
        expect(projectId?.description).toMatch(/list_projects/);
      } else {
        expect(projectId?.description).toMatch(/^Optional: .*the item must be in it/);
      }
    }
    expect(connection.client.getInstructions()).toContain('get_message {project_id, message_id}');
  });
});

describe('data the answers keep', () => {
  it('shows chat lines that are files, with name, size, type and download URL', async () => {
    const lines = resultData<List>(
      await call('list_campfire_lines', { project_id: LAPTOP, chat_id: DOCK.laptop.chat, limit: 2 }),
    );
    expect(lines.items[0]).toMatchObject({
      id: IDS.uploadLine,
      type: 'Chat::Lines::Upload',
      content:
        '[company-logo.png](https://storage.3.basecamp.com/999999999/blobs/line1069479923-0/download/company-logo.png) (1.3 KB, image/png)',
      attachments: [
        {
          filename: 'company-logo.png',
          content_type: 'image/png',
          byte_size: 1281,
          download_url:
            'https://storage.3.basecamp.com/999999999/blobs/line1069479923-0/download/company-logo.png',
        },
      ],
    });
    expect(lines.items[1]).toMatchObject({
      type: 'Chat::Lines::Text',
      content: "I'm hungry",
      attachments: [],
    });
  });

  it('keeps the text around mentions and images exactly as written', async () => {
    const message = resultData<{ content: string; visible_to_clients: boolean }>(
      await call('get_message', { project_id: LAPTOP, message_id: IDS.galleryMessage }),
    );
    expect(message.content).toContain('Thanks @Victor!\n\nReviewers: @Sharon @Annie @Steve');
    expect(message.content).toContain(
      '![left.jpg](https://3.basecampapi.com/999999999/blobs/img002/previews/full) ![Right side](',
    );
    expect(message.visible_to_clients).toBe(true);
  });

  it('cuts list excerpts at a Markdown boundary, never inside an image or link', async () => {
    const messages = resultData<List<{ id: number; content: string; content_truncated: boolean }>>(
      await call('list_messages', { project_id: LAPTOP, limit: 3 }),
    );
    const long = messages.items.find((message) => message.id === IDS.longMessage);
    expect(long?.content_truncated).toBe(true);
    expect(long?.content.endsWith('…')).toBe(true);
    expect(long?.content.length).toBeLessThanOrEqual(1_500);
    expect(long?.content.replace(/!?\[[^\]]*\]\([^)]*\)/g, '')).not.toMatch(/[[\]()]/);
  });

  it('says when a list cut a description', async () => {
    const long = `${'Check the venue, the catering and the sound. '.repeat(60)}Done.`;
    const created = resultData<{ id: number; description_truncated: boolean }>(
      await call('create_todo', {
        project_id: LOCATOR,
        todolist_id: IDS.locatorList,
        content: 'Long one',
        description: long,
      }),
    );
    expect(created.description_truncated).toBe(false);
    const listed = resultData<List<{ id: number; description: string; description_truncated: boolean }>>(
      await call('list_todos', { project_id: LOCATOR, todolist_id: IDS.locatorList }),
    );
    const item = listed.items.find((todo) => todo.id === created.id);
    expect(item?.description_truncated).toBe(true);
    expect(item?.description.endsWith('…')).toBe(true);
    expect(item?.description.length).toBeLessThanOrEqual(1_500);
    const full = resultData<{ description: string; description_truncated: boolean }>(
      await call('get_todo', { project_id: LOCATOR, todo_id: created.id }),
    );
    expect(full).toMatchObject({ description: long, description_truncated: false });
  });

  it('escapes only what would change the meaning, both ways', async () => {
    const posted = resultData<{ id: number; content: string }>(
      await call('create_message', {
        project_id: LAPTOP,
        subject: 'Naming',
        content: 'Use snake_case_name for keys; 2 * 3 is 6.',
      }),
    );
    expect(posted.content).toBe('Use snake_case_name for keys; 2 * 3 is 6.');
    const read = resultData<{ content: string }>(
      await call('get_message', { project_id: LAPTOP, message_id: posted.id }),
    );
    expect(read.content).toBe('Use snake_case_name for keys; 2 * 3 is 6.');
  });

  it('sends nested lists, code, tables and headings as Basecamp rich text and reads them back the same', async () => {
    const markdown = [
      '# Release',
      '',
      '- Prepare',
      '  1. write notes',
      '  2. review',
      '- Ship',
      '  - tag',
      '',
      '```',
      'pnpm publish --tag next',
      '```',
      '',
      '| Step | Owner |',
      '| ---- | ----- |',
      '| tag  | Ann   |',
    ].join('\n');
    const posted = resultData<{ id: number; content: string }>(
      await call('create_message', { project_id: LAPTOP, subject: 'Release', content: markdown }),
    );
    const sent = fake.requests.find((request) => request.method === 'POST')?.body as { content: string };
    expect(sent.content).toBe(
      '<h1>Release</h1><ul><li>Prepare<ol><li>write notes</li><li>review</li></ol></li><li>Ship<ul><li>tag</li></ul></li></ul><pre>pnpm publish --tag next</pre><pre>| Step | Owner |\n| ---- | ----- |\n| tag  | Ann   |</pre>',
    );
    expect(posted.content).toBe(markdown);
  });

  it('gives schedule entries their project, creator, comment count and recurrence', async () => {
    const entries = resultData<List>(await call('list_schedule_entries', { project_id: LAPTOP }));
    expect(entries.items[0]).toMatchObject({
      summary: 'Team Meeting',
      project: { id: LAPTOP, name: 'The Leto Laptop' },
      parent: { id: DOCK.laptop.schedule, type: 'Schedule' },
      creator: { name: 'Victor Cooper' },
      comments_count: 0,
      visible_to_clients: false,
      recurrence: { frequency: 'every_week', days: [5], hour: 18, minute: 0, start_date: '2026-02-27' },
    });
    expect(entries.items[1]).toMatchObject({ summary: 'Launch day', recurrence: null });
  });

  it('gives to-dos their completion subscribers, list and project name', async () => {
    const todo = resultData<Item>(await call('get_todo', { todo_id: IDS.assignedTodo }));
    expect(todo).toMatchObject({
      completion_subscribers: [{ id: 1049715913, name: 'Victor Cooper', email: 'victor@honchodesign.com' }],
      project: { id: LAPTOP, name: 'The Leto Laptop' },
      parent: { id: IDS.strategyList, type: 'Todolist', title: 'Strategy ideas' },
      visible_to_clients: false,
    });
  });
});

describe('hostile bodies', () => {
  it('answers quickly and correctly for a message whose <pre> holds 300,000 spaces', async () => {
    fake.recordings.set(1069499999, {
      id: 1069499999,
      type: 'Message',
      projectId: LAPTOP,
      parentId: DOCK.laptop.messageBoard,
      creatorId: 1049715913,
      status: 'active',
      // Newer than anything the other tests post, so it heads the board.
      created_at: '2099-01-01T00:00:00.000Z',
      updated_at: '2099-01-01T00:00:00.000Z',
      title: 'Hostile',
      html: `<pre>${' '.repeat(300_000)}x</pre>${'<div>'.repeat(30_000)}deep`,
    });
    try {
      const message = resultData<{ content: string; content_truncated: boolean }>(
        await call('get_message', { project_id: LAPTOP, message_id: 1069499999 }),
      );
      expect(message.content_truncated).toBe(true);
      expect(message.content.length).toBeLessThanOrEqual(20_000);
      expect(message.content).toMatch(/^```\n {1000,}\n```\n…$/);
      const list = resultData<List<{ id: number; content: string; content_truncated: boolean }>>(
        await call('list_messages', { project_id: LAPTOP, limit: 1 }),
      );
      expect(list.items[0]).toMatchObject({ id: 1069499999, content_truncated: true });
    } finally {
      fake.recordings.delete(1069499999);
    }
  });
});

describe('Docs & Files folders', () => {
  it('lists folders with their counts, and documents and files inside one', async () => {
    const folders = resultData<List>(await call('list_folders', { project_id: LAPTOP }));
    expect(folders.items).toEqual([
      expect.objectContaining({
        id: IDS.folder,
        title: 'HR Stuff',
        documents_count: 1,
        uploads_count: 1,
        folders_count: 0,
        parent: { id: DOCK.laptop.vault, type: 'Vault', title: 'Docs & Files' },
      }),
    ]);
    const documents = resultData<List>(
      await call('list_documents', { project_id: LAPTOP, folder_id: IDS.folder }),
    );
    expect(documents.items.map((document) => document.title)).toEqual(['Vacation policy']);
    const uploads = resultData<List>(
      await call('list_uploads', { project_id: LAPTOP, folder_id: IDS.folder }),
    );
    expect(uploads.items.map((upload) => upload.filename)).toEqual(['handbook.pdf']);
    const inside = resultData<List>(
      await call('list_folders', { project_id: LAPTOP, folder_id: IDS.folder }),
    );
    expect(inside.items).toEqual([]);
    // The top level does not list what is inside the folder.
    const top = resultData<List>(await call('list_documents', { project_id: LAPTOP }));
    expect(top.items.map((document) => document.title)).not.toContain('Vacation policy');
  });

  it("refuses another project's folder", async () => {
    const body = errorBody(await call('list_documents', { project_id: LOCATOR, folder_id: IDS.folder }));
    expect(body.error_code).toBe('NOT_FOUND');
    expect(body.message).toContain(`Folder ${IDS.folder} is not in project ${LOCATOR}`);
  });
});

describe('search', () => {
  it("accepts the types of Basecamp's search metadata, read once", async () => {
    const folders = resultData<List>(await call('search', { query: 'hr stuff', type: 'Vault' }));
    expect(folders.items.map((hit) => hit.id)).toEqual([IDS.folder]);
    const files = resultData<List>(
      await call('search', { query: 'handbook', type: 'Attachment', file_type: 'PDF' }),
    );
    expect(files.items.map((hit) => hit.id)).toEqual([IDS.folderUpload]);
    expect(fake.requests.filter((request) => request.path.endsWith('/searches/metadata.json'))).toHaveLength(
      1,
    );
  });

  it('refuses a type the metadata does not list, naming the ones it does', async () => {
    const body = errorBody(await call('search', { query: 'launch', type: 'Todolist' }));
    expect(body.error_code).toBe('INVALID_INPUT');
    expect(body.message).toContain('Client::Correspondence (Client emails)');
    expect(body.candidates).toContain('Inbox::Forward (Forwarded emails)');
    expect(fake.requests.some((request) => request.path.endsWith('/search.json'))).toBe(false);
  });

  it('gives a comment hit its parent and project, enough to open it', async () => {
    const hits = resultData<List>(await call('search', { query: 'prototype board', type: 'Comment' }));
    expect(hits.items).toEqual([
      expect.objectContaining({
        type: 'Comment',
        project: { id: LOCATOR, name: 'The Leto Locator' },
        parent: { id: IDS.locatorList, type: 'Todolist', title: 'Prototype' },
        excerpt: 'The _prototype board_ arrived.',
      }),
    ]);
    const parent = (hits.items[0] as { parent: { id: number } }).parent;
    const todos = await call('list_todos', { project_id: LOCATOR, todolist_id: parent.id });
    expect(todos.isError).toBeFalsy();
  });
});
