import { ToolRegistry } from '@x/mcp-core';
import { type ConnectedClient, connectInMemory, errorBody, resultData } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBasecampProvider } from '../../index.js';
import { type FakeBasecamp, IDS, LAPTOP, LOCATOR, startFakeBasecamp } from '../../testing/index.js';

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
        toolsets: 'schedule',
      }),
    ),
  );
});
afterAll(async () => {
  await connection.close();
  await fake.close();
});

const call = (name: string, args: Record<string, unknown>) =>
  connection.client.callTool({ name, arguments: args });
type Entry = { id: number; hours: string; date: string; item: { id: number }; project: { id: number } };

describe('timesheets', () => {
  it('logs time on a to-do, corrects it, and finds it per item, project and account', async () => {
    const entry = resultData<Entry>(
      await call('log_time', {
        project_id: LAPTOP,
        recording_id: IDS.assignedTodo,
        date: '2026-02-02',
        hours: '1.5',
      }),
    );
    expect(entry).toMatchObject({ hours: '1.5', item: { id: IDS.assignedTodo }, project: { id: LAPTOP } });
    expect(
      resultData<Entry>(await call('update_time_entry', { entry_id: entry.id, hours: '2:15' })).hours,
    ).toBe('2:15');
    for (const scope of [{ recording_id: IDS.assignedTodo }, { project_id: LAPTOP }, {}]) {
      const listed = resultData<{ items: Entry[] }>(await call('list_timesheet', scope));
      expect(listed.items.map((item) => item.id)).toContain(entry.id);
    }
    const other = resultData<{ items: Entry[] }>(await call('list_timesheet', { project_id: LOCATOR }));
    expect(other.items).toEqual([]);
    const outside = resultData<{ items: Entry[] }>(await call('list_timesheet', { from: '2026-03-01' }));
    expect(outside.items.map((item) => item.id)).not.toContain(entry.id);
    expect(fake.requests.at(-1)?.query).toEqual({ from: '2026-03-01' });
  });

  it('refuses hours that are not a duration, before sending', async () => {
    fake.resetLog();
    const bad = await call('log_time', { recording_id: IDS.assignedTodo, date: '2026-02-02', hours: 'two' });
    expect(errorBody(bad)).toMatchObject({ error_code: 'INVALID_INPUT' });
    expect(fake.requests).toEqual([]);
  });
});
