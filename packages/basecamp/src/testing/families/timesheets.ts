import { PEOPLE } from '../fixtures.js';
import { type Family, type FamilyContext, isDate, nowIso, type Result } from './types.js';

// Time tracking: entries logged on an item (to-do, card, ...), per item, project and account.

interface Entry {
  id: number;
  recordingId: number;
  projectId: number;
  personId: number;
  date: string;
  hours: string;
  created_at: string;
}
const stores = new WeakMap<object, Map<number, Entry>>();
let nextId = 1_800_000_000;

function entries(c: FamilyContext): Map<number, Entry> {
  let found = stores.get(c.recordings);
  if (!found) {
    found = new Map();
    stores.set(c.recordings, found);
  }
  return found;
}

function entryJson(c: FamilyContext, entry: Entry) {
  const record = c.recordings.get(entry.recordingId);
  const project = c.projects.find((candidate) => candidate.id === entry.projectId);
  return {
    id: entry.id,
    status: 'active',
    created_at: entry.created_at,
    updated_at: entry.created_at,
    title: `${entry.hours} hours`,
    type: 'Timesheet::Entry',
    url: `${c.base}/timesheet_entries/${entry.id}.json`,
    app_url: `https://3.basecamp.com/buckets/${entry.projectId}/timesheet_entries/${entry.id}`,
    parent: record ? { id: record.id, title: record.title, type: record.type } : null,
    bucket: { id: entry.projectId, name: project?.name ?? '', type: 'Project' },
    creator: c.person(entry.personId),
    date: entry.date,
    description: '',
    hours: entry.hours,
    person: c.person(entry.personId),
  };
}

const HOURS = /^\d{1,3}(\.\d{1,2})?$|^\d{1,3}:[0-5]\d$/;

function route(c: FamilyContext): Result | undefined {
  if (!/timesheet/.test(c.path)) return undefined;
  const all = entries(c);
  const filtered = (keep: (entry: Entry) => boolean) => {
    const from = c.url.searchParams.get('from') ?? '0000-01-01';
    const to = c.url.searchParams.get('to') ?? '9999-12-31';
    const person = c.url.searchParams.get('person_id');
    return [...all.values()]
      .filter(keep)
      .filter(
        (entry) => entry.date >= from && entry.date <= to && (!person || String(entry.personId) === person),
      )
      .sort((a, b) => b.date.localeCompare(a.date))
      .map((entry) => entryJson(c, entry));
  };
  const validate = (body: Record<string, unknown>, partial: boolean) => {
    if ((body.date !== undefined || !partial) && !isDate(body.date)) return 'date must be YYYY-MM-DD';
    if ((body.hours !== undefined || !partial) && !(typeof body.hours === 'string' && HOURS.test(body.hours)))
      return 'hours must be like "1.5" or "1:30"';
    if (body.person_id !== undefined && !PEOPLE.some((person) => person.id === body.person_id))
      return 'Person not found';
    return undefined;
  };
  if (c.method === 'GET' && c.path === '/reports/timesheet.json')
    return { status: 200, body: filtered(() => true) };
  let value = c.id(/^\/projects\/(\d+)\/timesheet\.json$/);
  if (value !== undefined && c.method === 'GET') {
    const project = value;
    if (!c.projects.some((entry) => entry.id === project)) return c.notFound;
    return { status: 200, body: filtered((entry) => entry.projectId === project) };
  }
  value = c.id(/^\/recordings\/(\d+)\/timesheet\.json$/);
  if (value !== undefined && c.method === 'GET') {
    const record = c.recording(value);
    if (!record) return c.notFound;
    return { status: 200, body: filtered((entry) => entry.recordingId === record.id) };
  }
  value = c.id(/^\/recordings\/(\d+)\/timesheet\/entries\.json$/);
  if (value !== undefined && c.method === 'POST') {
    const record = c.recording(value);
    if (!record) return c.notFound;
    const problem = validate(c.body, false);
    if (problem) return c.invalid(problem);
    const entry: Entry = {
      id: nextId++,
      recordingId: record.id,
      projectId: record.projectId,
      personId: (c.body.person_id as number | undefined) ?? c.me.id,
      date: c.body.date as string,
      hours: c.body.hours as string,
      created_at: nowIso(),
    };
    all.set(entry.id, entry);
    return { status: 201, body: entryJson(c, entry) };
  }
  return undefined;
}

function entryRoute(c: FamilyContext): Result | undefined {
  const value = c.id(/^\/timesheet_entries\/(\d+)(?:\.json)?$/);
  if (value === undefined) return undefined;
  const entry = entries(c).get(value);
  if (!entry || (c.bucket !== undefined && entry.projectId !== c.bucket)) return c.notFound;
  if (c.method === 'GET' || c.method === 'PUT') {
    if (c.method === 'PUT') {
      if (c.body.date !== undefined && !isDate(c.body.date)) return c.invalid('date must be YYYY-MM-DD');
      if (c.body.hours !== undefined && !(typeof c.body.hours === 'string' && HOURS.test(c.body.hours)))
        return c.invalid('hours must be like "1.5" or "1:30"');
      if (typeof c.body.date === 'string') entry.date = c.body.date;
      if (typeof c.body.hours === 'string') entry.hours = c.body.hours;
      if (typeof c.body.person_id === 'number') entry.personId = c.body.person_id;
    }
    return { status: 200, body: entryJson(c, entry) };
  }
  return undefined;
}

export const timesheetsFamily: Family = { route: (c) => route(c) ?? entryRoute(c) };
