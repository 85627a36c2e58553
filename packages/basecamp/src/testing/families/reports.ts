import { type FakeRecording, PEOPLE } from '../fixtures.js';
import type { Family, FamilyContext, Result } from './types.js';

// Reports and lookups: upcoming schedule, one occurrence of a repeating entry, upload versions,
// message types (categories) changes, pingable and assignable people, a person's to-dos.

interface Category {
  id: number;
  name: string;
  icon: string;
}
const stores = new WeakMap<object, Map<number, Category>>();
let nextCategory = 1_600_000_000;

function categories(c: FamilyContext): Map<number, Category> {
  let found = stores.get(c.recordings);
  if (!found) {
    found = new Map();
    stores.set(c.recordings, found);
  }
  return found;
}

const live = (c: FamilyContext, type: string) =>
  [...c.recordings.values()].filter((record) => record.type === type && record.status === 'active');

function route(c: FamilyContext): Result | undefined {
  if (c.method === 'GET') {
    if (c.path === '/reports/schedules/upcoming.json') {
      const from = c.url.searchParams.get('window_starts_on') ?? '0000-01-01';
      const to = c.url.searchParams.get('window_ends_on') ?? '9999-12-31';
      const inWindow = (record: FakeRecording) => {
        const day = record.entry?.starts_at.slice(0, 10) ?? '';
        return day >= from && day <= to;
      };
      const entries = live(c, 'Schedule::Entry').filter((record) => !record.recurrence && inWindow(record));
      const repeating = live(c, 'Schedule::Entry').filter((record) => record.recurrence !== undefined);
      return {
        status: 200,
        body: {
          schedule_entries: entries.map((record) => c.json(record)),
          recurring_schedule_entry_occurrences: repeating.map((record) => c.json(record)),
          assignables: [],
        },
      };
    }
    const occurrence = /^\/schedule_entries\/(\d+)\/occurrences\/(\d{4}-\d{2}-\d{2})(?:\.json)?$/.exec(
      c.path,
    );
    if (occurrence) {
      const entry = c.recording(Number(occurrence[1]), 'Schedule::Entry');
      if (!entry?.entry || !entry.recurrence) return c.notFound;
      const day = occurrence[2] as string;
      const json = c.json(entry);
      const shift = (iso: string) => `${day}${iso.slice(10)}`;
      return {
        status: 200,
        body: { ...json, starts_at: shift(entry.entry.starts_at), ends_at: shift(entry.entry.ends_at) },
      };
    }
    let value = c.id(/^\/uploads\/(\d+)\/versions\.json$/);
    if (value !== undefined) {
      const upload = c.recording(value, 'Upload');
      if (!upload) return c.notFound;
      return { status: 200, body: [c.json(upload)] };
    }
    if (c.path === '/circles/people.json' || c.path === '/reports/todos/assigned.json') {
      return { status: 200, body: PEOPLE.map((person) => c.person(person.id)) };
    }
    value = c.id(/^\/reports\/todos\/assigned\/(\d+)(?:\.json)?$/);
    if (value !== undefined) {
      const person = value;
      if (!PEOPLE.some((entry) => entry.id === person)) return c.notFound;
      const todos = live(c, 'Todo').filter(
        (todo) => !todo.completed && (todo.assignee_ids ?? []).includes(person),
      );
      return {
        status: 200,
        body: {
          person: c.person(person),
          grouped_by: c.url.searchParams.get('group_by') ?? 'bucket',
          todos: todos.map((todo) => c.json(todo)),
        },
      };
    }
  }
  if (c.path === '/categories.json' && c.method === 'POST') {
    if (typeof c.body.name !== 'string' || c.body.name.trim() === '') return c.invalid("Name can't be blank");
    if (typeof c.body.icon !== 'string' || c.body.icon.trim() === '') return c.invalid("Icon can't be blank");
    const category = { id: nextCategory++, name: c.body.name, icon: c.body.icon };
    categories(c).set(category.id, category);
    return { status: 201, body: category };
  }
  const categoryId = c.id(/^\/categories\/(\d+)(?:\.json)?$/);
  if (categoryId !== undefined) {
    const category = categories(c).get(categoryId);
    if (!category) return c.notFound;
    if (c.method === 'DELETE') {
      categories(c).delete(categoryId);
      return { status: 204 };
    }
    if (c.method === 'PUT') {
      if (typeof c.body.name === 'string' && c.body.name.trim() !== '') category.name = c.body.name;
      if (typeof c.body.icon === 'string' && c.body.icon.trim() !== '') category.icon = c.body.icon;
      return { status: 200, body: category };
    }
    if (c.method === 'GET') return { status: 200, body: category };
  }
  if (c.path === '/categories.json' && c.method === 'GET') {
    const added = [...categories(c).values()];
    if (added.length === 0) return undefined;
    // The built-in types answer from the edits family; append the ones created here.
    return { status: 200, body: [...BUILT_IN, ...added] };
  }
  return undefined;
}

const BUILT_IN = [
  { id: 1069479501, name: 'Announcement', icon: '📢' },
  { id: 1069479502, name: 'FYI', icon: '✨' },
  { id: 1069479503, name: 'Heartbeat', icon: '❤️' },
];

export const reportsFamily: Family = { route };
