import { type FakeRecording, PEOPLE } from '../fixtures.js';
import type { Family, FamilyContext, Result } from './types.js';

// The activity timeline ("Latest activity"): the account's, one project's, one person's.

function event(c: FamilyContext, record: FakeRecording) {
  const project = c.projects.find((entry) => entry.id === record.projectId);
  const json = c.json(record);
  return {
    id: record.id + 5,
    created_at: record.created_at,
    kind: `${record.type.toLowerCase().replace(/::/g, '_')}_created`,
    parent_recording_id: record.parentId,
    url: json.url,
    app_url: json.app_url,
    creator: c.person(record.creatorId),
    action: 'created',
    target: record.type,
    title: record.title,
    summary_excerpt: record.html.replace(/<[^>]*>/g, '').slice(0, 120),
    bucket: { id: record.projectId, name: project?.name ?? '', type: 'Project' },
  };
}

function route(c: FamilyContext): Result | undefined {
  if (c.method !== 'GET') return undefined;
  const timeline = (keep: (record: FakeRecording) => boolean) =>
    [...c.recordings.values()]
      .filter((record) => record.status === 'active' && keep(record))
      .sort((a, b) => b.created_at.localeCompare(a.created_at))
      .map((record) => event(c, record));
  if (c.path === '/reports/progress.json') return c.paginate(timeline(() => true));
  let value = c.id(/^\/projects\/(\d+)\/timeline\.json$/);
  if (value !== undefined) {
    const project = value;
    if (!c.projects.some((entry) => entry.id === project && entry.status !== 'trashed')) return c.notFound;
    return c.paginate(timeline((record) => record.projectId === project));
  }
  value = c.id(/^\/reports\/users\/progress\/(\d+)\.json$/);
  if (value !== undefined) {
    const person = value;
    if (!PEOPLE.some((entry) => entry.id === person)) return c.notFound;
    return {
      status: 200,
      body: {
        person: c.person(person),
        events: timeline((record) => record.creatorId === person).slice(0, 50),
      },
    };
  }
  return undefined;
}

export const progressFamily: Family = { route };
