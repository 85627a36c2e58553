import { type FakeRecording, ME, PEOPLE } from '../fixtures.js';
import { type Family, type FamilyContext, nowIso, personIds, type Result } from './types.js';

// Subscriptions, boosts, the account's chats and deleting one's own chat lines.

interface FakeBoost {
  id: number;
  recordingId: number;
  eventId: number | undefined;
  content: string;
  boosterId: number;
  created_at: string;
}

/** Boosts of each fake (keyed by its recordings), so two fakes in one process never share them. */
const stores = new WeakMap<Map<number, FakeRecording>, Map<number, FakeBoost>>();
let nextBoost = 1_400_000_000;

const subscribers = (record: FakeRecording): number[] =>
  (record.extra?.subscribers as number[] | undefined) ?? [record.creatorId];

function subscription(c: FamilyContext, record: FakeRecording) {
  const people = subscribers(record);
  return {
    subscribed: people.includes(ME.id),
    count: people.length,
    url: `${c.base}/buckets/${record.projectId}/recordings/${record.id}/subscription.json`,
    subscribers: people.map((id) => c.person(id)),
  };
}

function boostJson(c: FamilyContext, boost: FakeBoost) {
  const record = c.recordings.get(boost.recordingId);
  return {
    id: boost.id,
    content: boost.content,
    created_at: boost.created_at,
    booster: c.person(boost.boosterId),
    recording: record ? { id: record.id, title: record.title, type: record.type } : null,
  };
}

function route(c: FamilyContext): Result | undefined {
  let boosts = stores.get(c.recordings);
  if (!boosts) {
    boosts = new Map();
    stores.set(c.recordings, boosts);
  }
  const sub = c.id(/^\/recordings\/(\d+)\/subscription\.json$/);
  if (sub !== undefined) {
    const record = c.recording(sub);
    if (!record) return c.notFound;
    if (c.method === 'GET') return { status: 200, body: subscription(c, record) };
    if (c.method === 'POST' || c.method === 'DELETE') {
      const rest = subscribers(record).filter((id) => id !== ME.id);
      record.extra = { ...record.extra, subscribers: c.method === 'POST' ? [...rest, ME.id] : rest };
      return c.method === 'POST' ? { status: 200, body: subscription(c, record) } : { status: 204 };
    }
    if (c.method === 'PUT') {
      const add = personIds(c.body.subscriptions, PEOPLE);
      const remove = personIds(c.body.unsubscriptions, PEOPLE);
      if (typeof add === 'string') return c.invalid(add);
      if (typeof remove === 'string') return c.invalid(remove);
      const next = subscribers(record).filter((id) => !remove.includes(id));
      record.extra = { ...record.extra, subscribers: [...next, ...add.filter((id) => !next.includes(id))] };
      return { status: 200, body: subscription(c, record) };
    }
  }
  const boostsOf = /^\/recordings\/(\d+)(?:\/events\/(\d+))?\/boosts\.json$/.exec(c.path);
  if (boostsOf) {
    const record = c.recording(Number(boostsOf[1]));
    if (!record) return c.notFound;
    const eventId = boostsOf[2] === undefined ? undefined : Number(boostsOf[2]);
    if (c.method === 'GET') {
      return {
        status: 200,
        body: [...boosts.values()]
          .filter((boost) => boost.recordingId === record.id && boost.eventId === eventId)
          .map((boost) => boostJson(c, boost)),
      };
    }
    if (c.method === 'POST') {
      if (typeof c.body.content !== 'string' || c.body.content.trim() === '')
        return c.invalid("Content can't be blank");
      if ([...c.body.content].length > 16) return c.invalid('Content is too long (maximum is 16 characters)');
      const boost: FakeBoost = {
        id: nextBoost++,
        recordingId: record.id,
        eventId,
        content: c.body.content,
        boosterId: ME.id,
        created_at: nowIso(),
      };
      boosts.set(boost.id, boost);
      return { status: 201, body: boostJson(c, boost) };
    }
  }
  const boostId = c.id(/^\/boosts\/(\d+)(?:\.json)?$/);
  if (boostId !== undefined && c.method === 'DELETE') {
    const boost = boosts.get(boostId);
    if (!boost) return c.notFound;
    if (boost.boosterId !== ME.id) return { status: 403, body: { status: 403, error: 'Forbidden' } };
    boosts.delete(boostId);
    return { status: 204 };
  }
  if (c.path === '/chats.json' && c.method === 'GET') {
    const chats = c.projects
      .filter((project) => project.status === 'active')
      .flatMap((project) =>
        project.dock
          .filter((entry) => entry.name === 'chat' && entry.enabled)
          .map((entry) => ({
            id: entry.id,
            status: 'active',
            title: entry.title,
            type: 'Chat::Transcript',
            url: `${c.base}/buckets/${project.id}/chats/${entry.id}.json`,
            lines_url: `${c.base}/buckets/${project.id}/chats/${entry.id}/lines.json`,
            bucket: { id: project.id, name: project.name, type: 'Project' },
          })),
      );
    return c.paginate(chats);
  }
  const line = /^\/chats\/(\d+)\/lines\/(\d+)(?:\.json)?$/.exec(c.path);
  if (line && c.method === 'DELETE') {
    const record = c.recording(
      Number(line[2]),
      'Chat::Lines::Text',
      'Chat::Lines::RichText',
      'Chat::Lines::Upload',
    );
    if (!record || record.parentId !== Number(line[1])) return c.notFound;
    if (record.creatorId !== ME.id)
      return { status: 403, body: { status: 403, error: 'You can only delete your own lines' } };
    record.status = 'trashed';
    return { status: 204 };
  }
  return undefined;
}

export const socialFamily: Family = { route };
