import { errorBody, resultData } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useBasecampSession } from '../../test-session.js';
import { IDS } from '../../testing/index.js';

const session = useBasecampSession('all');
const call = session.call;

describe('lookups and reports', () => {
  it('adds, renames and deletes a message type, seen by list_message_types', async () => {
    const created = resultData<{ id: number }>(
      await call('create_message_type', { name: 'Retro', icon: '🔁' }),
    );
    await call('update_message_type', { type_id: created.id, name: 'Retrospective' });
    const names = async () =>
      resultData<{ items: { name: string }[] }>(await call('list_message_types', {})).items.map(
        (type) => type.name,
      );
    expect(await names()).toContain('Retrospective');
    await call('delete_message_type', { type_id: created.id });
    expect(await names()).not.toContain('Retrospective');
    expect(errorBody(await call('delete_message_type', { type_id: created.id }))).toMatchObject({
      error_code: 'NOT_FOUND',
    });
  });

  it("gives one day's occurrence of a repeating event", async () => {
    const repeating = [...session.fake.recordings.values()].find((record) => record.recurrence);
    const occurrence = resultData<{ starts_at: string }>(
      await call('get_schedule_entry', { entry_id: repeating?.id, date: '2026-02-06' }),
    );
    expect(occurrence.starts_at.slice(0, 10)).toBe('2026-02-06');
    const missing = await call('get_schedule_entry', { entry_id: 1, date: '2026-02-03' });
    expect(errorBody(missing)).toMatchObject({ error_code: 'NOT_FOUND' });
  });

  it("lists a person's open to-dos and who has some", async () => {
    const people = resultData<{ people: { name: string }[] }>(await call('assigned_todos', {}));
    expect(people.people.length).toBeGreaterThan(0);
    const sharon = resultData<{ todos: { id: number }[] }>(
      await call('assigned_todos', { person_id: 1049715930 }),
    );
    expect(sharon.todos.map((todo) => todo.id)).toContain(IDS.assignedTodo);
  });
});
