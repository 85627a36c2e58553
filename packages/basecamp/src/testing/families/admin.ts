import { type FakeProject, ME } from '../fixtures.js';
import { type Family, type FamilyContext, nowIso, type Result } from './types.js';

// Webhooks of a project and project templates (create a project from one).

interface Webhook {
  id: number;
  projectId: number;
  payload_url: string;
  types: string[];
  active: boolean;
  created_at: string;
  updated_at: string;
}
interface Template {
  id: number;
  name: string;
  status: 'active' | 'trashed';
  created_at: string;
}
interface Store {
  webhooks: Map<number, Webhook>;
  templates: Map<number, Template>;
  /** `polls`: GETs answered so far; the first answers "pending", later ones "completed". */
  constructions: Map<number, { templateId: number; projectId: number; polls: number }>;
}

/** A template every fake starts with. */
export const TEMPLATE_ID = 1069482000;

const stores = new WeakMap<object, Store>();
let nextId = 1_500_000_000;

function store(c: FamilyContext): Store {
  let found = stores.get(c.recordings);
  if (!found) {
    found = {
      webhooks: new Map(),
      templates: new Map([
        [
          TEMPLATE_ID,
          {
            id: TEMPLATE_ID,
            name: 'Product launch',
            status: 'active',
            created_at: '2025-11-01T09:00:00.000Z',
          },
        ],
      ]),
      constructions: new Map(),
    };
    stores.set(c.recordings, found);
  }
  return found;
}

function route(c: FamilyContext): Result | undefined {
  if (!/^\/(webhooks|templates)/.test(c.path)) return undefined;
  const s = store(c);
  const webhookJson = (hook: Webhook) => ({
    id: hook.id,
    active: hook.active,
    created_at: hook.created_at,
    updated_at: hook.updated_at,
    payload_url: hook.payload_url,
    types: hook.types,
    url: `${c.base}/buckets/${hook.projectId}/webhooks/${hook.id}.json`,
    app_url: `https://3.basecamp.com/buckets/${hook.projectId}/webhooks/${hook.id}`,
    recent_deliveries: [],
  });
  const templateJson = (template: Template) => ({
    id: template.id,
    status: template.status,
    created_at: template.created_at,
    updated_at: template.created_at,
    name: template.name,
    url: `${c.base}/templates/${template.id}.json`,
    app_url: `https://3.basecamp.com/templates/${template.id}`,
    dock: [],
  });
  const validHook = (body: Record<string, unknown>, partial: boolean) => {
    if (body.payload_url !== undefined || !partial) {
      if (typeof body.payload_url !== 'string' || !/^https:\/\//.test(body.payload_url))
        return 'Payload url must be https';
    }
    if (body.types !== undefined || !partial) {
      if (!Array.isArray(body.types) || body.types.some((type) => typeof type !== 'string'))
        return 'Types must be a list';
    }
    return undefined;
  };

  if (c.path === '/webhooks.json' && c.bucket !== undefined) {
    const project = c.projects.find((entry) => entry.id === c.bucket && entry.status === 'active');
    if (!project) return c.notFound;
    if (c.method === 'GET') {
      return {
        status: 200,
        body: [...s.webhooks.values()].filter((hook) => hook.projectId === project.id).map(webhookJson),
      };
    }
    if (c.method === 'POST') {
      const problem = validHook(c.body, false);
      if (problem) return c.invalid(problem);
      const now = nowIso();
      const hook: Webhook = {
        id: nextId++,
        projectId: project.id,
        payload_url: c.body.payload_url as string,
        types: c.body.types as string[],
        active: c.body.active !== false,
        created_at: now,
        updated_at: now,
      };
      s.webhooks.set(hook.id, hook);
      return { status: 201, body: webhookJson(hook) };
    }
  }
  let value = c.id(/^\/webhooks\/(\d+)(?:\.json)?$/);
  if (value !== undefined) {
    const hook = s.webhooks.get(value);
    if (!hook || (c.bucket !== undefined && hook.projectId !== c.bucket)) return c.notFound;
    if (c.method === 'GET') return { status: 200, body: webhookJson(hook) };
    if (c.method === 'DELETE') {
      s.webhooks.delete(value);
      return { status: 204 };
    }
    if (c.method === 'PUT') {
      const problem = validHook(c.body, true);
      if (problem) return c.invalid(problem);
      if (typeof c.body.payload_url === 'string') hook.payload_url = c.body.payload_url;
      if (Array.isArray(c.body.types)) hook.types = c.body.types as string[];
      if (typeof c.body.active === 'boolean') hook.active = c.body.active;
      hook.updated_at = nowIso();
      return { status: 200, body: webhookJson(hook) };
    }
  }
  if (c.path === '/templates.json') {
    if (c.method === 'GET') {
      const status = c.url.searchParams.get('status') ?? 'active';
      return c.paginate(
        [...s.templates.values()].filter((template) => template.status === status).map(templateJson),
      );
    }
    if (c.method === 'POST') {
      if (typeof c.body.name !== 'string' || c.body.name.trim() === '')
        return c.invalid("Name can't be blank");
      const template: Template = { id: nextId++, name: c.body.name, status: 'active', created_at: nowIso() };
      s.templates.set(template.id, template);
      return { status: 201, body: templateJson(template) };
    }
  }
  value = c.id(/^\/templates\/(\d+)\/project_constructions\.json$/);
  if (value !== undefined && c.method === 'POST') {
    const template = s.templates.get(value);
    if (template?.status !== 'active') return c.notFound;
    if (typeof c.body.name !== 'string' || c.body.name.trim() === '') return c.invalid("Name can't be blank");
    const now = nowIso();
    const project: FakeProject = {
      id: nextId++,
      name: c.body.name,
      description: `From the template ${template.name}`,
      status: 'active',
      purpose: 'topic',
      created_at: now,
      updated_at: now,
      people: [ME.id],
      dock: [
        { id: nextId++, name: 'message_board', title: 'Message Board', enabled: true, position: 1 },
        { id: nextId++, name: 'todoset', title: 'To-dos', enabled: true, position: 2 },
      ],
    };
    c.projects.push(project);
    const id = nextId++;
    s.constructions.set(id, { templateId: value, projectId: project.id, polls: 0 });
    return {
      status: 201,
      body: { id, status: 'pending', url: `${c.base}/templates/${value}/project_constructions/${id}.json` },
    };
  }
  const construction = /^\/templates\/(\d+)\/project_constructions\/(\d+)(?:\.json)?$/.exec(c.path);
  if (construction && c.method === 'GET') {
    const found = s.constructions.get(Number(construction[2]));
    if (!found || found.templateId !== Number(construction[1])) return c.notFound;
    // Basecamp copies the template in the background: pending at the first look, then done.
    // Deterministic: it advances on request, never with time.
    found.polls += 1;
    if (found.polls === 1) return { status: 200, body: { id: Number(construction[2]), status: 'pending' } };
    const project = c.projects.find((entry) => entry.id === found.projectId);
    return {
      status: 200,
      body: {
        id: Number(construction[2]),
        status: 'completed',
        project: project ? c.projectJson(project) : null,
      },
    };
  }
  value = c.id(/^\/templates\/(\d+)(?:\.json)?$/);
  if (value !== undefined) {
    const template = s.templates.get(value);
    if (template?.status !== 'active') return c.notFound;
    if (c.method === 'GET') return { status: 200, body: templateJson(template) };
    if (c.method === 'DELETE') {
      template.status = 'trashed';
      return { status: 204 };
    }
    if (c.method === 'PUT') {
      if (typeof c.body.name !== 'string' || c.body.name.trim() === '')
        return c.invalid("Name can't be blank");
      template.name = c.body.name;
      return { status: 200, body: templateJson(template) };
    }
  }
  return undefined;
}

export const adminFamily: Family = { route };
