import { type FakeRecording, ME, PEOPLE } from '../fixtures.js';
import { type Family, type FamilyContext, isDate, type Result } from './types.js';

// Your notifications (unread / read, marking read) and people's out-of-office.

interface State {
  read: Set<number>;
  away: Map<number, { start_date: string; end_date: string }>;
}
const stores = new WeakMap<object, State>();

function state(c: FamilyContext): State {
  let found = stores.get(c.recordings);
  if (!found) {
    found = { read: new Set(), away: new Map() };
    stores.set(c.recordings, found);
  }
  return found;
}

function notification(c: FamilyContext, record: FakeRecording, unread: boolean) {
  const project = c.projects.find((entry) => entry.id === record.projectId);
  const json = c.json(record);
  return {
    id: record.id + 3,
    created_at: record.created_at,
    updated_at: record.updated_at,
    section: 'inbox',
    unread_count: unread ? 1 : 0,
    unread_at: unread ? record.updated_at : null,
    read_at: unread ? null : record.updated_at,
    readable_sgid: `BAh7--readable-${record.id}`,
    readable_identifier: `${record.type}/${record.id}`,
    title: record.title,
    type: record.type,
    bucket_name: project?.name ?? '',
    creator: c.person(record.creatorId),
    content_excerpt: record.html.replace(/<[^>]*>/g, '').slice(0, 100),
    app_url: json.app_url,
  };
}

function route(c: FamilyContext): Result | undefined {
  const s = state(c);
  if (c.path === '/my/readings.json' && c.method === 'GET') {
    // Messages and comments by others are what notify you.
    const items = [...c.recordings.values()]
      .filter(
        (record) =>
          ['Message', 'Comment'].includes(record.type) &&
          record.status === 'active' &&
          record.creatorId !== ME.id,
      )
      .sort((a, b) => b.updated_at.localeCompare(a.updated_at))
      .slice(0, 20);
    return {
      status: 200,
      body: {
        unreads: items
          .filter((record) => !s.read.has(record.id))
          .map((record) => notification(c, record, true)),
        reads: items
          .filter((record) => s.read.has(record.id))
          .map((record) => notification(c, record, false)),
        memories: [],
      },
    };
  }
  if (c.path === '/my/unreads.json' && c.method === 'PUT') {
    if (!Array.isArray(c.body.readables)) return c.invalid('readables must be a list');
    for (const sgid of c.body.readables) {
      const id = Number(/^BAh7--readable-(\d+)$/.exec(String(sgid))?.[1]);
      if (Number.isFinite(id)) s.read.add(id);
    }
    return { status: 200, body: {} };
  }
  const away = /^\/people\/(\d+)\/out_of_office\.json$/.exec(c.path);
  if (away) {
    const person = PEOPLE.find((entry) => entry.id === Number(away[1]));
    if (!person) return c.notFound;
    const json = () => {
      const period = s.away.get(person.id);
      const today = new Date().toISOString().slice(0, 10);
      return {
        person: { id: person.id, name: person.name },
        enabled: period !== undefined,
        ongoing: period !== undefined && period.start_date <= today && today <= period.end_date,
        start_date: period?.start_date ?? null,
        end_date: period?.end_date ?? null,
      };
    };
    if (c.method === 'GET') return { status: 200, body: json() };
    if (person.id !== ME.id && !ME.admin) return { status: 403, body: { status: 403, error: 'Forbidden' } };
    if (c.method === 'DELETE') {
      s.away.delete(person.id);
      return { status: 204 };
    }
    if (c.method === 'POST') {
      const period = c.body.out_of_office as Record<string, unknown> | undefined;
      if (!period || !isDate(period.start_date) || !isDate(period.end_date))
        return c.invalid('start_date and end_date are required dates');
      if ((period.end_date as string) < (period.start_date as string))
        return c.invalid('end_date must not be before start_date');
      s.away.set(person.id, { start_date: period.start_date as string, end_date: period.end_date as string });
      return { status: 200, body: json() };
    }
  }
  return undefined;
}

export const peopleFamily: Family = { route };
