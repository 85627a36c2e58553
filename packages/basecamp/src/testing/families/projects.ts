import { type FakeDockEntry, type FakeProject, ME, PEOPLE } from '../fixtures.js';
import { type Family, type FamilyContext, nowIso, personIds, type Result } from './types.js';

// Projects (create, update, trash), project access (grant, revoke) and single people.

let nextId = 1_300_000_000;

const DEFAULT_TOOLS: [FakeDockEntry['name'], string][] = [
  ['message_board', 'Message Board'],
  ['todoset', 'To-dos'],
  ['vault', 'Docs & Files'],
  ['chat', 'Chat'],
  ['schedule', 'Schedule'],
  ['questionnaire', 'Automatic Check-ins'],
  ['kanban_board', 'Card Table'],
];

function route(c: FamilyContext): Result | undefined {
  const project = (id: number | undefined) =>
    c.projects.find((entry) => entry.id === id && entry.status !== 'trashed');
  if (c.path === '/projects.json' && c.method === 'POST') {
    if (typeof c.body.name !== 'string' || c.body.name.trim() === '') return c.invalid("Name can't be blank");
    if (c.projects.some((entry) => entry.name === c.body.name && entry.status === 'active'))
      return c.invalid('Name has already been taken');
    const now = nowIso();
    const created: FakeProject = {
      id: nextId++,
      name: c.body.name,
      description: typeof c.body.description === 'string' ? c.body.description : '',
      status: 'active',
      purpose: 'topic',
      created_at: now,
      updated_at: now,
      people: [ME.id],
      dock: DEFAULT_TOOLS.map(([name, title], index) => ({
        id: nextId++,
        name,
        title,
        enabled: index < 5,
        position: index < 5 ? index + 1 : null,
      })),
    };
    c.projects.push(created);
    return { status: 201, body: c.projectJson(created) };
  }
  let value = c.id(/^\/projects\/(\d+)\.json$/);
  if (value !== undefined && (c.method === 'PUT' || c.method === 'DELETE')) {
    const found = project(value);
    if (!found) return c.notFound;
    if (c.method === 'DELETE') {
      found.status = 'trashed';
      return { status: 204 };
    }
    if (typeof c.body.name !== 'string' || c.body.name.trim() === '') return c.invalid("Name can't be blank");
    found.name = c.body.name;
    if (typeof c.body.description === 'string') found.description = c.body.description;
    found.updated_at = nowIso();
    return { status: 200, body: c.projectJson(found) };
  }
  value = c.id(/^\/projects\/(\d+)\/people\/users\.json$/);
  if (value !== undefined && c.method === 'PUT') {
    const found = project(value);
    if (!found) return c.notFound;
    const grant = personIds(c.body.grant, PEOPLE);
    const revoke = personIds(c.body.revoke, PEOPLE);
    if (typeof grant === 'string') return c.invalid(grant);
    if (typeof revoke === 'string') return c.invalid(revoke);
    const granted = grant.filter((id) => !found.people.includes(id));
    const revoked = revoke.filter((id) => found.people.includes(id));
    found.people = [...found.people.filter((id) => !revoked.includes(id)), ...granted];
    return {
      status: 200,
      body: { granted: granted.map((id) => c.person(id)), revoked: revoked.map((id) => c.person(id)) },
    };
  }
  value = c.id(/^\/people\/(\d+)\.json$/);
  if (value !== undefined && c.method === 'GET') {
    return PEOPLE.some((entry) => entry.id === value) ? { status: 200, body: c.person(value) } : c.notFound;
  }
  return undefined;
}

export const projectsFamily: Family = { route };
