import { type FakeRecording, ME } from '../fixtures.js';
import { type Family, type FamilyContext, nowIso, type Result } from './types.js';

// Recordings across projects: status changes (archive, trash, restore), listing by type, their
// events, "my assignments" and the overdue report.

interface FakeEvent {
  id: number;
  action: string;
  created_at: string;
  creatorId: number;
}

const STATUSES = new Set(['active', 'archived', 'trashed']);
let nextEvent = 1_200_000_000;

function events(record: FakeRecording): FakeEvent[] {
  const log = (record.extra?.events as FakeEvent[] | undefined) ?? [];
  return [
    { id: record.id + 7, action: 'created', created_at: record.created_at, creatorId: record.creatorId },
    ...log,
  ];
}

function logEvent(record: FakeRecording, action: string): void {
  const log = (record.extra?.events as FakeEvent[] | undefined) ?? [];
  record.extra = {
    ...record.extra,
    events: [...log, { id: nextEvent++, action, created_at: nowIso(), creatorId: ME.id }],
  };
}

const ASSIGNABLE = ['Todo', 'Kanban::Card', 'Kanban::Step'];

function assignment(c: FamilyContext, record: FakeRecording) {
  const project = c.projects.find((entry) => entry.id === record.projectId);
  const parent = c.recordings.get(record.parentId);
  const json = c.json(record);
  return {
    id: record.id,
    app_url: json.app_url,
    content: record.title,
    starts_on: record.starts_on ?? null,
    due_on: record.due_on ?? null,
    bucket: {
      id: record.projectId,
      name: project?.name ?? '',
      app_url: `https://3.basecamp.com/projects/${record.projectId}`,
    },
    completed: Boolean(record.completed),
    type: record.type,
    assignees: (record.assignee_ids ?? []).map((id) => {
      const person = c.person(id);
      return { id, name: person.name };
    }),
    comments_count: 0,
    has_description: record.html !== '',
    parent: parent ? { id: parent.id, title: parent.title, app_url: c.json(parent).app_url } : null,
  };
}

function route(c: FamilyContext): Result | undefined {
  const status = /^\/recordings\/(\d+)\/status\/(active|archived|trashed)\.json$/.exec(c.path);
  if (status && c.method === 'PUT') {
    const record = c.recordings.get(Number(status[1]));
    if (!record || (c.bucket !== undefined && record.projectId !== c.bucket)) return c.notFound;
    const target = status[2] as FakeRecording['status'];
    if (record.status !== target) logEvent(record, target === 'active' ? 'restored' : target);
    record.status = target;
    record.updated_at = nowIso();
    return { status: 204 };
  }
  if (c.method !== 'GET') return undefined;
  if (c.path === '/projects/recordings.json') {
    const type = c.url.searchParams.get('type');
    if (!type) return c.invalid('type is required');
    const wanted = c.url.searchParams.get('status') ?? 'active';
    if (!STATUSES.has(wanted)) return c.invalid('status must be active, archived or trashed');
    const buckets = (c.url.searchParams.get('bucket') ?? '').split(',').filter(Boolean).map(Number);
    const sort = c.url.searchParams.get('sort') === 'created_at' ? 'created_at' : 'updated_at';
    const ascending = c.url.searchParams.get('direction') === 'asc';
    const found = [...c.recordings.values()]
      .filter((record) => record.type === type && record.status === wanted)
      .filter((record) => buckets.length === 0 || buckets.includes(record.projectId))
      .sort((a, b) => (ascending ? 1 : -1) * a[sort].localeCompare(b[sort]));
    return c.paginate(found.map((record) => c.json(record)));
  }
  const value = c.id(/^\/recordings\/(\d+)\/events\.json$/);
  if (value !== undefined) {
    const record = c.recordings.get(value);
    if (!record || (c.bucket !== undefined && record.projectId !== c.bucket)) return c.notFound;
    return c.paginate(
      events(record)
        .reverse()
        .map((event) => ({
          id: event.id,
          recording_id: record.id,
          action: event.action,
          details: {},
          created_at: event.created_at,
          creator: c.person(event.creatorId),
        })),
    );
  }
  const mine = (record: FakeRecording) =>
    ASSIGNABLE.includes(record.type) &&
    record.status === 'active' &&
    (record.assignee_ids ?? []).includes(ME.id);
  if (c.path === '/my/assignments.json') {
    const open = [...c.recordings.values()].filter((record) => mine(record) && !record.completed);
    return {
      status: 200,
      body: { priorities: [], non_priorities: open.map((record) => assignment(c, record)) },
    };
  }
  if (c.path === '/my/assignments/completed.json') {
    const done = [...c.recordings.values()].filter((record) => mine(record) && record.completed);
    return { status: 200, body: done.map((record) => assignment(c, record)) };
  }
  if (c.path === '/my/assignments/due.json') {
    const scope = c.url.searchParams.get('scope');
    const today = nowIso().slice(0, 10);
    const due = [...c.recordings.values()].filter(
      (record) =>
        mine(record) &&
        !record.completed &&
        typeof record.due_on === 'string' &&
        (scope === 'overdue'
          ? record.due_on < today
          : scope === 'due_today'
            ? record.due_on === today
            : true),
    );
    return { status: 200, body: due.map((record) => assignment(c, record)) };
  }
  if (c.path === '/reports/todos/overdue.json') {
    const now = Date.now();
    const late = [...c.recordings.values()].filter(
      (record) =>
        record.type === 'Todo' &&
        record.status === 'active' &&
        !record.completed &&
        record.due_on &&
        Date.parse(record.due_on) < now,
    );
    const days = (record: FakeRecording) => (now - Date.parse(record.due_on as string)) / 86_400_000;
    const bucket = (min: number, max: number) =>
      late.filter((record) => days(record) >= min && days(record) < max).map((record) => c.json(record));
    return {
      status: 200,
      body: {
        under_a_week_late: bucket(0, 7),
        over_a_week_late: bucket(7, 30),
        over_a_month_late: bucket(30, 90),
        over_three_months_late: bucket(90, Number.POSITIVE_INFINITY),
      },
    };
  }
  return undefined;
}

export const activityFamily: Family = { route };
