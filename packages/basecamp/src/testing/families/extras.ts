import type { FakeDockEntry, FakeProject, FakeRecording } from '../fixtures.js';
import { type Family, type FamilyContext, nowIso, type Result } from './types.js';

// Single chat lines and forward replies, a schedule's settings, hill charts, and a project's
// dock: renaming, switching on and off, reordering and adding tools.

const CHAT_LINES = ['Chat::Lines::Text', 'Chat::Lines::RichText', 'Chat::Lines::Upload'];

/** Each fake's hill charts (tracked to-do lists per to-do set) and schedule settings. */
const states = new WeakMap<
  Map<number, FakeRecording>,
  { tracked: Map<number, number[]>; includeDue: Map<number, boolean>; nextTool: number }
>();

function state(c: FamilyContext) {
  let found = states.get(c.recordings);
  if (!found) {
    found = { tracked: new Map(), includeDue: new Map(), nextTool: 1_069_480_500 };
    states.set(c.recordings, found);
  }
  return found;
}

const DOCK_PATHS: Record<string, string> = {
  message_board: 'message_boards',
  todoset: 'todosets',
  vault: 'vaults',
  chat: 'chats',
  schedule: 'schedules',
  questionnaire: 'questionnaires',
  inbox: 'inboxes',
  kanban_board: 'card_tables',
};

function toolJson(c: FamilyContext, project: FakeProject, entry: FakeDockEntry) {
  return {
    id: entry.id,
    status: 'active',
    created_at: project.created_at,
    updated_at: nowIso(),
    title: entry.title,
    name: entry.name,
    enabled: entry.enabled,
    position: entry.position,
    url: `${c.base}/buckets/${project.id}/${DOCK_PATHS[entry.name]}/${entry.id}.json`,
    app_url: `https://3.basecamp.com/999999999/buckets/${project.id}/${DOCK_PATHS[entry.name]}/${entry.id}`,
    bucket: { id: project.id, name: project.name, type: 'Project' },
  };
}

/** Numbers the enabled entries 1..n in their order; switched-off ones have no position. */
function renumber(project: FakeProject) {
  const enabled = project.dock
    .filter((entry) => entry.enabled)
    .sort((a, b) => (a.position ?? 999) - (b.position ?? 999));
  enabled.forEach((entry, index) => {
    entry.position = index + 1;
  });
  for (const entry of project.dock) if (!entry.enabled) entry.position = null;
}

function dockEntry(c: FamilyContext, toolId: number) {
  for (const project of c.projects) {
    if (c.bucket !== undefined && project.id !== c.bucket) continue;
    const entry = project.dock.find((candidate) => candidate.id === toolId);
    if (entry) return { project, entry };
  }
  return undefined;
}

function route(c: FamilyContext): Result | undefined {
  const { method } = c;
  const own = state(c);

  if (method === 'GET') {
    const line = /^\/chats\/(\d+)\/lines\/(\d+)\.json$/.exec(c.path);
    if (line) {
      const found = c.recording(Number(line[2]), ...CHAT_LINES);
      return found && found.parentId === Number(line[1]) ? { status: 200, body: c.json(found) } : c.notFound;
    }
    const reply = /^\/inbox_forwards\/(\d+)\/replies\/(\d+)\.json$/.exec(c.path);
    if (reply) {
      const found = c.recording(Number(reply[2]), 'Inbox::Forward::Reply');
      return found && found.parentId === Number(reply[1]) ? { status: 200, body: c.json(found) } : c.notFound;
    }
  }

  // Hill charts: one dot per tracked to-do list of the set.
  const hill = c.id(/^\/todosets\/(\d+)\/hill\.json$/) ?? c.id(/^\/todosets\/(\d+)\/hills\/settings\.json$/);
  if (hill !== undefined) {
    const owner = c.dockOwner(hill, 'todoset');
    if (!owner?.entry.enabled) return c.notFound;
    const lists = c.children(hill, ['Todolist']);
    const chart = () => {
      const tracked = own.tracked.get(hill) ?? [];
      return {
        enabled: tracked.length > 0,
        stale: false,
        updated_at: nowIso(),
        app_update_url: `https://3.basecamp.com/999999999/buckets/${owner.project.id}/todosets/${hill}/hill/edit`,
        dots: lists
          .filter((list) => tracked.includes(list.id))
          .map((list, index) => ({
            id: list.id,
            label: list.title,
            color: ['blue', 'green', 'red', 'orange'][index % 4],
            position: 0,
            url: `${c.base}/buckets/${owner.project.id}/todolists/${list.id}.json`,
            app_url: `https://3.basecamp.com/999999999/buckets/${owner.project.id}/todolists/${list.id}`,
          })),
      };
    };
    if (method === 'GET' && c.path.endsWith('/hill.json')) return { status: 200, body: chart() };
    if (method === 'PUT' && c.path.endsWith('/settings.json')) {
      const ids = (value: unknown) =>
        Array.isArray(value) ? value.map(Number) : value === undefined ? [] : null;
      const track = ids(c.body.tracked);
      const untrack = ids(c.body.untracked);
      if (!track || !untrack) return c.invalid('tracked and untracked must be lists of to-do list IDs');
      const unknown = [...track, ...untrack].filter((list) => !lists.some((entry) => entry.id === list));
      if (unknown.length > 0) return c.invalid(`To-do lists not in this to-do set: ${unknown.join(', ')}`);
      const now = (own.tracked.get(hill) ?? []).filter((list) => !untrack.includes(list));
      own.tracked.set(hill, [...now, ...track.filter((list) => !now.includes(list))]);
      return { status: 200, body: chart() };
    }
    return undefined;
  }

  // A schedule's own settings.
  const schedule = c.id(/^\/schedules\/(\d+)\.json$/);
  if (schedule !== undefined && method === 'PUT') {
    const owner = c.dockOwner(schedule, 'schedule');
    if (!owner?.entry.enabled) return c.notFound;
    const nested = c.body.schedule as Record<string, unknown> | undefined;
    const value = c.body.include_due_assignments ?? nested?.include_due_assignments;
    if (typeof value !== 'boolean') return c.invalid('include_due_assignments must be true or false');
    own.includeDue.set(schedule, value);
    return {
      status: 200,
      body: {
        id: schedule,
        status: 'active',
        title: owner.entry.title,
        type: 'Schedule',
        include_due_assignments: value,
        entries_count: c.children(schedule, ['Schedule::Entry']).length,
        url: `${c.base}/buckets/${owner.project.id}/schedules/${schedule}.json`,
        app_url: `https://3.basecamp.com/999999999/buckets/${owner.project.id}/schedules/${schedule}`,
        bucket: { id: owner.project.id, name: owner.project.name, type: 'Project' },
      },
    };
  }

  // The dock.
  if (c.path === '/dock/tools.json' && method === 'POST') {
    if (c.bucket === undefined) return c.notFound;
    const project = c.projects.find((entry) => entry.id === c.bucket);
    const source = project?.dock.find((entry) => entry.id === Number(c.body.source_recording_id));
    if (!project || !source) return c.invalid('source_recording_id is not a tool of this project');
    if (typeof c.body.title !== 'string' || c.body.title.trim() === '')
      return c.invalid("Title can't be blank");
    const entry: FakeDockEntry = {
      id: own.nextTool++,
      title: c.body.title,
      name: source.name,
      enabled: true,
      position: 999,
    };
    project.dock.push(entry);
    renumber(project);
    return { status: 201, body: toolJson(c, project, entry) };
  }
  const tool = c.id(/^\/dock\/tools\/(\d+)\.json$/);
  if (tool !== undefined && method === 'PUT') {
    const found = dockEntry(c, tool);
    if (!found) return c.notFound;
    if (typeof c.body.title !== 'string' || c.body.title.trim() === '')
      return c.invalid("Title can't be blank");
    found.entry.title = c.body.title;
    return { status: 200, body: toolJson(c, found.project, found.entry) };
  }
  const position = c.id(/^\/recordings\/(\d+)\/position\.json$/);
  if (position !== undefined) {
    const found = dockEntry(c, position);
    if (!found) return c.notFound;
    if (method === 'POST') {
      found.entry.enabled = true;
      found.entry.position = 999;
      renumber(found.project);
      return { status: 201 };
    }
    if (method === 'DELETE') {
      found.entry.enabled = false;
      renumber(found.project);
      return { status: 204 };
    }
    if (method === 'PUT') {
      const to = Number(c.body.position);
      if (!Number.isInteger(to) || to < 1) return c.invalid('position must be a whole number from 1');
      if (!found.entry.enabled) return c.invalid('The tool is switched off');
      const others = found.project.dock
        .filter((entry) => entry.enabled && entry !== found.entry)
        .sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
      others.splice(Math.min(to - 1, others.length), 0, found.entry);
      others.forEach((entry, index) => {
        entry.position = index + 1;
      });
      return { status: 200 };
    }
  }
  return undefined;
}

export const extrasFamily: Family = { route };
