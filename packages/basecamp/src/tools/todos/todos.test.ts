import { errorBody, resultData } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useBasecampSession } from '../../test-session.js';
import { IDS, LAPTOP, LOCATOR } from '../../testing/index.js';

const session = useBasecampSession('todos');
const call = session.call;
type Todo = {
  id: number;
  title: string;
  description: string;
  due_on: string | null;
  starts_on: string | null;
  assignees: { name: string }[];
  todolist: { id: number };
};
type List = { items: { id: number; title?: string; name?: string }[] };

describe('to-do management', () => {
  it('reschedules a to-do and keeps everything it was not told to change', async () => {
    const before = resultData<Todo>(await call('get_todo', { todo_id: IDS.assignedTodo }));
    expect(before.assignees.length).toBeGreaterThan(0);
    const after = resultData<Todo>(
      await call('update_todo', { todo_id: IDS.assignedTodo, due_on: '2026-06-30' }),
    );
    expect(after.due_on).toBe('2026-06-30');
    expect(after.title).toBe(before.title);
    expect(after.description).toBe(before.description);
    expect(after.assignees).toEqual(before.assignees);
    const cleared = resultData<Todo>(
      await call('update_todo', {
        project_id: LAPTOP,
        todo_id: IDS.assignedTodo,
        due_on: null,
        assignee_ids: [],
      }),
    );
    expect(cleared).toMatchObject({ due_on: null, assignees: [], title: before.title });
  });

  it('refuses an update with nothing to change, and one in the wrong project', async () => {
    expect(errorBody(await call('update_todo', { todo_id: IDS.assignedTodo }))).toMatchObject({
      error_code: 'INVALID_INPUT',
    });
    const elsewhere = await call('update_todo', {
      project_id: LOCATOR,
      todo_id: IDS.assignedTodo,
      content: 'x',
    });
    expect(errorBody(elsewhere).message).toContain(`it is in project ${LAPTOP}`);
  });

  it('moves a to-do into another list, then trashes it', async () => {
    const created = resultData<Todo>(
      await call('create_todo', { todolist_id: IDS.strategyList, content: 'Pack' }),
    );
    const moved = resultData<Todo>(
      await call('move_todo', { todo_id: created.id, todolist_id: IDS.launchList, position: 1 }),
    );
    expect(moved.todolist.id).toBe(IDS.launchList);
    const launch = resultData<List>(await call('list_todos', { todolist_id: IDS.launchList }));
    expect(launch.items[0]?.id).toBe(created.id);
    const trashed = resultData<{ trashed: boolean }>(await call('trash_todo', { todo_id: created.id }));
    expect(trashed.trashed).toBe(true);
    const after = resultData<List>(await call('list_todos', { todolist_id: IDS.launchList }));
    expect(after.items.map((todo) => todo.id)).not.toContain(created.id);
    expect(errorBody(await call('get_todo', { todo_id: created.id }))).toMatchObject({
      error_code: 'NOT_FOUND',
    });
  });

  it('creates and renames lists, and adds and orders groups', async () => {
    const list = resultData<{ id: number; name: string; description: string }>(
      await call('create_todolist', {
        project_id: LAPTOP,
        name: 'Launch week',
        description: 'All **hands**',
      }),
    );
    expect(list).toMatchObject({ name: 'Launch week', description: 'All **hands**' });
    const renamed = resultData<{ name: string; description: string }>(
      await call('update_todolist', { todolist_id: list.id, description: 'Only _leads_' }),
    );
    expect(renamed).toMatchObject({ name: 'Launch week', description: 'Only _leads_' });
    await call('create_todolist_group', { todolist_id: list.id, name: 'Venue' });
    const press = resultData<{ id: number }>(
      await call('create_todolist_group', { todolist_id: list.id, name: 'Press' }),
    );
    await call('move_todolist_group', { group_id: press.id, position: 1 });
    const groups = resultData<List>(await call('list_todolist_groups', { todolist_id: list.id }));
    expect(groups.items.map((group) => group.name)).toEqual(['Press', 'Venue']);
    const lists = resultData<List>(await call('list_todolists', { project_id: LAPTOP }));
    expect(lists.items.map((entry) => entry.name)).toContain('Launch week');
    expect(lists.items.map((entry) => entry.name)).not.toContain('Press');
  });
});
