import { ToolRegistry } from '@x/mcp-core';
import { type ConnectedClient, connectInMemory, errorBody } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createBasecampProvider } from '../index.js';
import { type FakeBasecamp, IDS, LAPTOP, startFakeBasecamp } from '../testing/index.js';
import { fileInput } from './files/file-input.js';
import { isoDate, isoDateTime } from './shared.js';

// The date, time and base64 inputs are listed without zod's long patterns, and validated exactly
// as zod's z.iso.date(), z.iso.datetime({ offset: true }) and z.base64() validate them.
describe('lean input shapes', () => {
  const days = [
    '2024-02-29',
    '2023-02-29',
    '2026-02-30',
    '2026-13-01',
    '2026-1-01',
    '2026-01-01T00:00',
    'x',
    '',
  ];
  const times = ['2026-03-15T14:00:00Z', '2026-03-15T14:00:00+02:00', '2026-03-15T14:00', '2026-03-15', 'x'];
  const encoded = ['aGVsbG8=', 'abc', 'a b', '!!!!', 'YQ=='];

  it('accepts and refuses what zod accepts and refuses, with the same message', () => {
    const same = (ours: z.ZodType, theirs: z.ZodType, values: string[]) => {
      for (const value of values) {
        const mine = ours.safeParse(value);
        const zods = theirs.safeParse(value);
        expect({ value, ok: mine.success }).toEqual({ value, ok: zods.success });
        if (!zods.success && value !== '') {
          expect(mine.error?.issues[0]?.message).toBe(zods.error.issues[0]?.message);
        }
      }
    };
    same(isoDate(), z.iso.date(), days);
    same(isoDateTime(), z.iso.datetime({ offset: true }), times);
    same(fileInput.content_base64.unwrap(), z.base64().min(1), encoded);
    expect(isoDate().safeParse('2023-02-29').success).toBe(false);
    expect(isoDate().safeParse('2024-02-29').success).toBe(true);
  });

  it('lists them by format, with no pattern longer than a short one in any tool', () => {
    const tools = new ToolRegistry().use(createBasecampProvider({ toolsets: 'all', env: {} })).toMcpTools();
    const long: string[] = [];
    const walk = (where: string, node: unknown): void => {
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'pattern' && typeof value === 'string' && value.length > 60) long.push(where);
        walk(`${where}.${key}`, value);
      }
    };
    for (const tool of tools) walk(tool.name, tool.inputSchema);
    expect(long).toEqual([]);
    const update = tools.find((tool) => tool.name === 'update_todo');
    const dueOn = update?.inputSchema.properties?.due_on as { anyOf: { type: string; format?: string }[] };
    expect(dueOn.anyOf).toEqual([{ type: 'string', format: 'date' }, { type: 'null' }]);
    const entry = tools.find((tool) => tool.name === 'create_schedule_entry');
    expect(entry?.inputSchema.properties?.starts_at).toMatchObject({ type: 'string', format: 'date-time' });
    const upload = tools.find((tool) => tool.name === 'upload_file');
    expect(upload?.inputSchema.properties?.content_base64).toMatchObject({ contentEncoding: 'base64' });
  });
});

describe('a day that does not exist, through a client', () => {
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
          env: {},
        }),
      ),
    );
  });
  afterAll(async () => {
    await connection.close();
    await fake.close();
  });

  it('is refused as invalid input naming the field, and nothing is sent', async () => {
    const before = fake.requests.length;
    const result = await connection.client.callTool({
      name: 'create_todo',
      arguments: { project_id: LAPTOP, todolist_id: IDS.strategyList, content: 'Ship', due_on: '2026-02-30' },
    });
    const body = errorBody(result);
    expect(body.error_code).toBe('INVALID_INPUT');
    expect(body.message).toContain('due_on');
    expect(fake.requests.slice(before).filter((request) => request.method !== 'GET')).toEqual([]);
  });
});
