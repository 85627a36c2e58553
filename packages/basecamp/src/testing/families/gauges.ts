import { ME } from '../fixtures.js';
import { type Family, type FamilyContext, nowIso, type Result } from './types.js';

// Project progress gauges (Hill-like "how far along" needles): switched on per project.

interface Needle {
  id: number;
  projectId: number;
  position: number;
  color: string;
  description: string;
  created_at: string;
}
interface State {
  enabled: Set<number>;
  needles: Map<number, Needle>;
}
const stores = new WeakMap<object, State>();
let nextId = 1_700_000_000;
const COLORS = new Set(['green', 'yellow', 'red']);

function state(c: FamilyContext): State {
  let found = stores.get(c.recordings);
  if (!found) {
    found = { enabled: new Set(), needles: new Map() };
    stores.set(c.recordings, found);
  }
  return found;
}

function route(c: FamilyContext): Result | undefined {
  if (!/^\/(reports\/gauges|projects\/\d+\/gauge|gauge_needles)/.test(c.path)) return undefined;
  const s = state(c);
  const project = (id: number) => c.projects.find((entry) => entry.id === id && entry.status === 'active');
  const needleJson = (needle: Needle) => {
    const owner = project(needle.projectId);
    return {
      id: needle.id,
      status: 'active',
      created_at: needle.created_at,
      updated_at: needle.created_at,
      title: `${needle.position}%`,
      type: 'Gauge::Needle',
      url: `${c.base}/gauge_needles/${needle.id}.json`,
      app_url: `https://3.basecamp.com/buckets/${needle.projectId}/gauge_needles/${needle.id}`,
      bucket: { id: needle.projectId, name: owner?.name ?? '', type: 'Project' },
      creator: c.person(ME.id),
      description: needle.description,
      color: needle.color,
      position: needle.position,
    };
  };
  const needlesOf = (projectId: number) =>
    [...s.needles.values()].filter((needle) => needle.projectId === projectId).sort((a, b) => b.id - a.id);
  if (c.path === '/reports/gauges.json' && c.method === 'GET') {
    const wanted = (c.url.searchParams.get('bucket_ids') ?? '').split(',').filter(Boolean).map(Number);
    const gauges = [...s.enabled]
      .filter((id) => wanted.length === 0 || wanted.includes(id))
      .map((id) => {
        const [last, previous] = needlesOf(id);
        const owner = project(id);
        return {
          id: id + 11,
          status: 'active',
          title: 'Gauge',
          type: 'Gauge',
          bucket: { id, name: owner?.name ?? '', type: 'Project' },
          enabled: true,
          last_needle_color: last?.color ?? null,
          last_needle_position: last?.position ?? null,
          previous_needle_position: previous?.position ?? null,
        };
      });
    return { status: 200, body: gauges };
  }
  let value = c.id(/^\/projects\/(\d+)\/gauge\.json$/);
  if (value !== undefined && c.method === 'PUT') {
    if (!project(value)) return c.notFound;
    const enabled = (c.body.gauge as { enabled?: unknown } | undefined)?.enabled;
    if (typeof enabled !== 'boolean') return c.invalid('gauge.enabled must be true or false');
    if (enabled) s.enabled.add(value);
    else s.enabled.delete(value);
    return { status: 200, body: {} };
  }
  value = c.id(/^\/projects\/(\d+)\/gauge\/needles\.json$/);
  if (value !== undefined) {
    if (!project(value)) return c.notFound;
    if (c.method === 'GET') return { status: 200, body: needlesOf(value).map(needleJson) };
    if (c.method === 'POST') {
      if (!s.enabled.has(value)) return c.invalid('The gauge of this project is off');
      const payload = (c.body.gauge_needle ?? {}) as Record<string, unknown>;
      const position = Number(payload.position);
      if (!Number.isInteger(position) || position < 0 || position > 100)
        return c.invalid('position must be 0-100');
      const color = typeof payload.color === 'string' ? payload.color : 'green';
      if (!COLORS.has(color)) return c.invalid('color must be green, yellow or red');
      const needle: Needle = {
        id: nextId++,
        projectId: value,
        position,
        color,
        description: typeof payload.description === 'string' ? payload.description : '',
        created_at: nowIso(),
      };
      s.needles.set(needle.id, needle);
      return { status: 201, body: needleJson(needle) };
    }
  }
  value = c.id(/^\/gauge_needles\/(\d+)(?:\.json)?$/);
  if (value !== undefined) {
    const needle = s.needles.get(value);
    if (!needle || (c.bucket !== undefined && needle.projectId !== c.bucket)) return c.notFound;
    if (c.method === 'GET') return { status: 200, body: needleJson(needle) };
    if (c.method === 'DELETE') {
      s.needles.delete(value);
      return { status: 204 };
    }
    if (c.method === 'PUT') {
      const payload = (c.body.gauge_needle ?? {}) as Record<string, unknown>;
      if (typeof payload.description === 'string') needle.description = payload.description;
      return { status: 200, body: needleJson(needle) };
    }
  }
  return undefined;
}

export const gaugesFamily: Family = { route };
