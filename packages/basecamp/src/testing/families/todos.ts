import { type FakeRecording, PEOPLE } from '../fixtures.js';
import { type Family, type FamilyContext, isDate, nowIso, personIds, type Result } from './types.js';

// To-do management beyond create and complete: updates (a PUT replaces every field, as Basecamp
// documents), trash, moves, to-do lists and their groups.

const byPosition = (a: FakeRecording, b: FakeRecording) => (a.position ?? 0) - (b.position ?? 0);

function renumber(records: FakeRecording[]): void {
  records.forEach((record, index) => {
    record.position = index + 1;
  });
}

function route(c: FamilyContext): Result | undefined {
  const blank = (value: unknown) => typeof value !== 'string' || value.trim() === '';
  if (c.method === 'PUT') {
    let value = c.id(/^\/todos\/(\d+)\.json$/);
    if (value !== undefined) {
      const todo = c.recording(value, 'Todo');
      if (!todo) return c.notFound;
      if (blank(c.body.content)) return c.invalid("Content can't be blank");
      const assignees = personIds(c.body.assignee_ids, PEOPLE);
      if (typeof assignees === 'string') return c.invalid(assignees);
      const subscribers = personIds(c.body.completion_subscriber_ids, PEOPLE);
      if (typeof subscribers === 'string') return c.invalid(subscribers);
      for (const field of ['due_on', 'starts_on'] as const) {
        const given = c.body[field];
        if (given !== undefined && given !== null && given !== '' && !isDate(given))
          return c.invalid(`${field} is not a date`);
      }
      // Every field not sent is cleared: that is how Basecamp's PUT behaves.
      todo.title = c.body.content as string;
      todo.html = typeof c.body.description === 'string' ? c.body.description : '';
      todo.assignee_ids = assignees;
      todo.completion_subscriber_ids = subscribers;
      todo.due_on = (c.body.due_on as string | undefined) || null;
      todo.starts_on = (c.body.starts_on as string | undefined) || null;
      todo.updated_at = nowIso();
      return { status: 200, body: c.json(todo) };
    }
    value = c.id(/^\/todos\/(\d+)\/position\.json$/);
    if (value !== undefined) {
      const todo = c.recording(value, 'Todo');
      if (!todo) return c.notFound;
      const position = Number(c.body.position);
      if (!Number.isInteger(position) || position < 1) return c.invalid('position must be 1 or more');
      let target = todo.parentId;
      if (c.body.parent_id !== undefined) {
        const list = c.recording(Number(c.body.parent_id), 'Todolist');
        if (!list || list.projectId !== todo.projectId)
          return c.invalid('parent_id is not a to-do list of this project');
        target = list.id;
      }
      const siblings = (parent: number) =>
        c
          .children(parent, ['Todo'])
          .filter((entry) => !entry.completed)
          .sort(byPosition);
      renumber(siblings(todo.parentId).filter((entry) => entry !== todo));
      const destination = siblings(target).filter((entry) => entry !== todo);
      destination.splice(Math.min(position - 1, destination.length), 0, todo);
      todo.parentId = target;
      renumber(destination);
      todo.updated_at = nowIso();
      return { status: 200, body: c.json(todo) };
    }
    value = c.id(/^\/todolists\/(\d+)\/position\.json$/);
    if (value !== undefined) {
      const group = c.recording(value, 'Todolist');
      const parent = group ? c.recordings.get(group.parentId) : undefined;
      if (!group || parent?.type !== 'Todolist') return c.notFound;
      const position = Number(c.body.position);
      if (!Number.isInteger(position) || position < 1) return c.invalid('position must be 1 or more');
      const siblings = c
        .children(parent.id, ['Todolist'])
        .sort(byPosition)
        .filter((entry) => entry !== group);
      siblings.splice(Math.min(position - 1, siblings.length), 0, group);
      renumber(siblings);
      return { status: 200, body: c.json(group) };
    }
    value = c.id(/^\/todolists\/(\d+)\.json$/);
    if (value !== undefined) {
      const list = c.recording(value, 'Todolist');
      if (!list) return c.notFound;
      if (blank(c.body.name)) return c.invalid("Name can't be blank");
      list.title = c.body.name as string;
      if (typeof c.body.description === 'string') list.html = c.body.description;
      list.updated_at = nowIso();
      return { status: 200, body: c.json(list) };
    }
    return undefined;
  }
  if (c.method === 'DELETE') {
    const value = c.id(/^\/todos\/(\d+)\.json$/);
    if (value !== undefined) {
      const todo = c.recording(value, 'Todo');
      if (!todo) return c.notFound;
      todo.status = 'trashed';
      todo.updated_at = nowIso();
      return { status: 204 };
    }
    return undefined;
  }
  if (c.method === 'POST') {
    let value = c.id(/^\/todosets\/(\d+)\/todolists\.json$/);
    if (value !== undefined) {
      const owner = c.dockOwner(value, 'todoset');
      if (!owner) return c.notFound;
      if (blank(c.body.name)) return c.invalid("Name can't be blank");
      return c.created({
        type: 'Todolist',
        projectId: owner.project.id,
        parentId: value,
        title: c.body.name as string,
        html: typeof c.body.description === 'string' ? c.body.description : '',
        position: c.children(value, ['Todolist']).length + 1,
      });
    }
    value = c.id(/^\/todolists\/(\d+)\/groups\.json$/);
    if (value !== undefined) {
      const list = c.recording(value, 'Todolist');
      if (!list) return c.notFound;
      if (blank(c.body.name)) return c.invalid("Name can't be blank");
      return c.created({
        type: 'Todolist',
        projectId: list.projectId,
        parentId: value,
        title: c.body.name as string,
        html: '',
        position: c.children(value, ['Todolist']).length + 1,
      });
    }
    return undefined;
  }
  if (c.method === 'GET') {
    const value = c.id(/^\/todolists\/(\d+)\/groups\.json$/);
    if (value !== undefined) {
      if (!c.recording(value, 'Todolist')) return c.notFound;
      return c.paginate(
        c
          .children(value, ['Todolist'])
          .sort(byPosition)
          .map((group) => c.json(group)),
      );
    }
  }
  return undefined;
}

export const todosFamily: Family = { route };
