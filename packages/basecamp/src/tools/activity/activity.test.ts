import { errorBody, resultData } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useBasecampSession } from '../../test-session.js';
import { IDS, LAPTOP, LOCATOR } from '../../testing/index.js';

const session = useBasecampSession('activity,todos,messages');
const call = session.call;
type Items<T> = { items: T[] };

describe('activity', () => {
  it('trashes an item, finds it among the trashed, restores it, and shows that history', async () => {
    await call('set_recording_status', { recording_id: IDS.richMessage, status: 'trashed' });
    expect(errorBody(await call('get_message', { message_id: IDS.richMessage }))).toMatchObject({
      error_code: 'NOT_FOUND',
    });
    const trashed = resultData<Items<{ id: number; status: string }>>(
      await call('list_recordings', { type: 'Message', status: 'trashed', project_ids: [LAPTOP] }),
    );
    expect(trashed.items).toEqual([expect.objectContaining({ id: IDS.richMessage, status: 'trashed' })]);
    await call('set_recording_status', {
      project_id: LAPTOP,
      recording_id: IDS.richMessage,
      status: 'active',
    });
    expect(resultData<{ id: number }>(await call('get_message', { message_id: IDS.richMessage })).id).toBe(
      IDS.richMessage,
    );
    const events = resultData<Items<{ action: string }>>(
      await call('list_events', { recording_id: IDS.richMessage }),
    );
    expect(events.items.map((event) => event.action)).toEqual(['restored', 'trashed', 'created']);
  });

  it('keeps a status change inside the project given', async () => {
    const result = await call('set_recording_status', {
      project_id: LOCATOR,
      recording_id: IDS.document,
      status: 'archived',
    });
    expect(errorBody(result)).toMatchObject({ error_code: 'NOT_FOUND' });
    expect(
      session.fake.requests.some(
        (request) =>
          request.path.endsWith(`/recordings/${IDS.document}/status/archived.json`) && request.status === 204,
      ),
    ).toBe(false);
  });

  it('lists what is assigned to me: open, by due date, and completed', async () => {
    await call('update_todo', {
      todo_id: IDS.assignedTodo,
      assignee_ids: [1049715913],
      due_on: '2020-01-01',
    });
    const open = resultData<Items<{ id: number; title: string; due_on: string; project: { id: number } }>>(
      await call('my_assignments', {}),
    );
    expect(open.items).toEqual([
      expect.objectContaining({
        id: IDS.assignedTodo,
        due_on: '2020-01-01',
        project: expect.objectContaining({ id: LAPTOP }),
      }),
    ]);
    const overdue = resultData<Items<{ id: number }>>(
      await call('my_assignments', { show: 'due', due: 'overdue' }),
    );
    expect(overdue.items.map((item) => item.id)).toEqual([IDS.assignedTodo]);
    expect(session.fake.requests.at(-1)?.query).toEqual({ scope: 'overdue' });
    const report = resultData<Record<string, { id: number }[]>>(await call('overdue_todos', {}));
    expect(report.over_three_months_late?.map((todo) => todo.id)).toContain(IDS.assignedTodo);
    await call('complete_todo', { todo_id: IDS.assignedTodo });
    const done = resultData<Items<{ id: number; completed: boolean }>>(
      await call('my_assignments', { show: 'completed' }),
    );
    expect(done.items).toEqual([expect.objectContaining({ id: IDS.assignedTodo, completed: true })]);
  });
});
