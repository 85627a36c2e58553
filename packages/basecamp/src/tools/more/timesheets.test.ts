import { errorBody, resultData } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useBasecampSession } from '../../test-session.js';
import { IDS, LAPTOP, LOCATOR } from '../../testing/index.js';

const session = useBasecampSession('schedule');
const call = session.call;
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
    expect(session.fake.requests.at(-1)?.query).toEqual({ from: '2026-03-01' });
  });

  it('refuses hours that are not a duration, before sending', async () => {
    session.fake.resetLog();
    const bad = await call('log_time', { recording_id: IDS.assignedTodo, date: '2026-02-02', hours: 'two' });
    expect(errorBody(bad)).toMatchObject({ error_code: 'INVALID_INPUT' });
    expect(session.fake.requests).toEqual([]);
  });
});
