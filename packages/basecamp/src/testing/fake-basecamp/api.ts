import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FakeBasecamp, RecordedRequest } from '../fake-basecamp.js';
import { FAMILIES, type FamilyContext } from '../families/index.js';
import {
  ACCOUNT_ID,
  type FakePerson,
  type FakeProject,
  type FakeRecording,
  INACTIVE_ACCOUNT_ID,
  ME,
  PEOPLE,
} from '../fixtures.js';
import type { BasecampState, Reply } from './state.js';

const PAGE_SIZES = [15, 30, 50, 100];
const WRITE_TYPES = new Set(['application/json', 'application/json; charset=utf-8']);
/** Routes whose body is a file (below the account, with or without a project prefix). */
const UPLOAD_ROUTE =
  /^(?:\/buckets\/\d+)?\/(?:attachments\.json|chats\/\d+\/uploads\.json|account\/logo\.json)$/;

/**
 * The bc3 API: the checks in front of every request (a `User-Agent` with a contact, a live bearer
 * token, an active account, the request budget, JSON for writes), ETag / 304 on reads, then the
 * core routes and the families (`../families/`).
 */
export function createApi(world: BasecampState, state: FakeBasecamp) {
  const { options, accessTokens, budget, recordings, projects } = world;

  function bc3(record: RecordedRequest, url: URL, reply: Reply, response: ServerResponse): void {
    // --- the bc3 API ---
    if (!record.headers['user-agent'] || !/\(.+\)/.test(record.headers['user-agent'])) {
      reply(400, 'A User-Agent header naming your app and a contact (URL or email) is required.', {
        'content-type': 'text/plain; charset=utf-8',
      });
      return;
    }
    const match = /^\/(\d+)(\/.*)$/.exec(url.pathname);
    if (!match) {
      reply(404, { status: 404, error: 'Not Found' });
      return;
    }
    const [, account, rest = '/'] = match;
    const bearer = /^Bearer (.+)$/.exec(record.headers.authorization ?? '')?.[1];
    const token = bearer === undefined ? undefined : accessTokens.get(bearer);
    if (!token || token.expiresAt <= Date.now()) {
      reply(401, 'OAuth token expired (old age)', {
        'content-type': 'text/plain; charset=utf-8',
        'www-authenticate':
          'Bearer realm="Basecamp", error="invalid_token", error_description="expired_token"',
      });
      return;
    }
    if (account === INACTIVE_ACCOUNT_ID) {
      reply(404, '', { reason: 'Account Inactive' });
      return;
    }
    if (account !== ACCOUNT_ID) {
      reply(404, { status: 404, error: 'Not Found' });
      return;
    }
    if (options.rateLimit) {
      const now = Date.now();
      while (budget.length > 0 && (budget[0] ?? 0) <= now - options.rateLimit.windowMs) budget.shift();
      if (budget.length >= options.rateLimit.requests) {
        state.rateLimited++;
        const waitMs = (budget[0] ?? now) + options.rateLimit.windowMs - now;
        reply(
          429,
          { status: 429, error: 'Too Many Requests' },
          { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) },
        );
        return;
      }
      budget.push(now);
    }
    // File uploads take the file's own bytes and type (the families check them), not JSON.
    if (record.method !== 'GET' && record.method !== 'DELETE' && !UPLOAD_ROUTE.test(rest)) {
      const type = (record.headers['content-type'] ?? '').toLowerCase().replace(/\s+/g, ' ');
      if (!WRITE_TYPES.has(type)) {
        reply(415, { status: 415, error: 'Unsupported Media Type' });
        return;
      }
      if (record.text && !record.json) {
        reply(400, { status: 400, error: 'Bad Request: the body is not JSON' });
        return;
      }
    }
    const result = api(record.method, rest, url, (record.body ?? {}) as Record<string, unknown>, {
      headers: record.headers,
      text: record.text,
    });
    if (result.status === 200 && record.method === 'GET') {
      const text = JSON.stringify(result.body);
      const etag = `W/"${createHash('sha1').update(text).digest('hex')}"`;
      const headers: Record<string, string> = {
        etag,
        'cache-control': 'max-age=0, private, must-revalidate',
        ...result.headers,
      };
      if (record.headers['if-none-match'] === etag) {
        record.status = 304;
        response.writeHead(304, headers);
        response.end();
        return;
      }
      reply(200, result.body, headers);
      return;
    }
    reply(result.status, result.body, result.headers);
  }

  interface Result {
    status: number;
    body?: unknown;
    headers?: Record<string, string>;
  }
  const notFound: Result = { status: 404, body: { status: 404, error: 'Not Found' } };
  const base = () => `${state.url}/${ACCOUNT_ID}`;

  function api(
    method: string,
    path: string,
    url: URL,
    body: Record<string, unknown>,
    request: { headers: Record<string, string>; text: string },
  ): Result {
    // Legacy project-scoped routes answer like the flat ones, for content of that project.
    let bucket: number | undefined;
    const legacy = /^\/buckets\/(\d+)(\/.*)$/.exec(path);
    if (legacy) {
      bucket = Number(legacy[1]);
      path = legacy[2] ?? '/';
    }
    const id = (pattern: RegExp) => {
      const found = pattern.exec(path);
      return found ? Number(found[1]) : undefined;
    };
    const recording = (value: number | undefined, ...types: string[]) => {
      const found = value === undefined ? undefined : recordings.get(value);
      if (!found || found.status === 'trashed' || (types.length > 0 && !types.includes(found.type)))
        return undefined;
      if (bucket !== undefined && found.projectId !== bucket) return undefined;
      return found;
    };
    const dockOwner = (value: number | undefined, name: string) => {
      for (const project of projects) {
        const entry = project.dock.find((candidate) => candidate.id === value && candidate.name === name);
        if (entry && (bucket === undefined || bucket === project.id)) return { project, entry };
      }
      return undefined;
    };
    // A Docs & Files vault: the project's top-level one (dock) or a folder in it.
    const vaultOwner = (value: number | undefined) => {
      const docked = dockOwner(value, 'vault');
      if (docked) return { projectId: docked.project.id };
      const folder = recording(value, 'Vault');
      return folder ? { projectId: folder.projectId } : undefined;
    };
    const children = (parentId: number, types: string[]) =>
      [...recordings.values()]
        .filter(
          (record) =>
            record.parentId === parentId && types.includes(record.type) && record.status === 'active',
        )
        .sort((a, b) => b.created_at.localeCompare(a.created_at));

    const context: FamilyContext = {
      method,
      headers: request.headers,
      text: request.text,
      path,
      url,
      body,
      bucket,
      recordings,
      projects,
      base: base(),
      recording,
      dockOwner,
      dockJson,
      children,
      paginate: (all) => paginate(url, all),
      created,
      json: recordingJson,
      person: (value) => personJson(PEOPLE.find((entry) => entry.id === value) ?? ME),
      me: ME,
      projectJson,
      invalid,
      notFound,
      id,
    };
    for (const family of FAMILIES) {
      const answer = family.route(context);
      if (answer) return answer;
    }

    if (method === 'GET') {
      if (path === '/projects.json') {
        const status = url.searchParams.get('status') ?? 'active';
        return paginate(url, projects.filter((project) => project.status === status).map(projectJson));
      }
      let value = id(/^\/projects\/(\d+)\.json$/);
      if (value !== undefined) {
        const project = projects.find(
          (candidate) => candidate.id === value && candidate.status !== 'trashed',
        );
        return project ? { status: 200, body: projectJson(project) } : notFound;
      }
      value = id(/^\/projects\/(\d+)\/people\.json$/);
      if (value !== undefined) {
        const project = projects.find((candidate) => candidate.id === value);
        if (!project) return notFound;
        return paginate(url, PEOPLE.filter((entry) => project.people.includes(entry.id)).map(personJson));
      }
      if (path === '/people.json') return { status: 200, body: PEOPLE.map(personJson) };
      if (path === '/my/profile.json') return { status: 200, body: personJson(ME) };
      value = id(/^\/message_boards\/(\d+)\/messages\.json$/);
      if (value !== undefined) {
        const owner = dockOwner(value, 'message_board');
        if (!owner?.entry.enabled) return notFound;
        return paginate(url, children(value, ['Message']).map(recordingJson));
      }
      value = id(/^\/todosets\/(\d+)\/todolists\.json$/);
      if (value !== undefined) {
        if (!dockOwner(value, 'todoset')) return notFound;
        const lists = children(value, ['Todolist']).sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
        return paginate(url, lists.map(recordingJson));
      }
      value = id(/^\/todolists\/(\d+)\/todos\.json$/);
      if (value !== undefined) {
        if (!recording(value, 'Todolist')) return notFound;
        const status = url.searchParams.get('status');
        const completed = url.searchParams.get('completed') === 'true';
        const todos = [...recordings.values()]
          .filter((record) => record.parentId === value && record.type === 'Todo')
          .filter((record) =>
            status === 'archived' || status === 'trashed'
              ? record.status === status && (!completed || record.completed)
              : record.status === 'active' && Boolean(record.completed) === completed,
          )
          .sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
        return paginate(url, todos.map(recordingJson));
      }
      value = id(/^\/recordings\/(\d+)\/comments\.json$/);
      if (value !== undefined) {
        if (!recording(value)) return notFound;
        return paginate(url, children(value, ['Comment']).reverse().map(recordingJson));
      }
      value = id(/^\/vaults\/(\d+)\/documents\.json$/);
      if (value !== undefined) {
        if (!vaultOwner(value)) return notFound;
        return paginate(url, children(value, ['Document']).map(recordingJson));
      }
      value = id(/^\/vaults\/(\d+)\/uploads\.json$/);
      if (value !== undefined) {
        if (!vaultOwner(value)) return notFound;
        return paginate(url, children(value, ['Upload']).map(recordingJson));
      }
      value = id(/^\/vaults\/(\d+)\/vaults\.json$/);
      if (value !== undefined) {
        if (!vaultOwner(value)) return notFound;
        const folders = children(value, ['Vault']).sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
        return paginate(url, folders.map(recordingJson));
      }
      value = id(/^\/vaults\/(\d+)\.json$/);
      if (value !== undefined) {
        const docked = dockOwner(value, 'vault');
        if (docked) return { status: 200, body: dockVaultJson(docked.project, docked.entry) };
        const folder = recording(value, 'Vault');
        return folder ? { status: 200, body: recordingJson(folder) } : notFound;
      }
      if (path === '/searches/metadata.json') return { status: 200, body: SEARCH_METADATA };
      value = id(/^\/chats\/(\d+)\/lines\.json$/);
      if (value !== undefined) {
        const owner = dockOwner(value, 'chat');
        if (!owner?.entry.enabled) return notFound;
        return paginate(
          url,
          children(value, ['Chat::Lines::Text', 'Chat::Lines::RichText', 'Chat::Lines::Upload']).map(
            recordingJson,
          ),
        );
      }
      value = id(/^\/schedules\/(\d+)\/entries\.json$/);
      if (value !== undefined) {
        if (!dockOwner(value, 'schedule')) return notFound;
        const entries = children(value, ['Schedule::Entry']).sort((a, b) =>
          (a.entry?.starts_at ?? '').localeCompare(b.entry?.starts_at ?? ''),
        );
        return paginate(url, entries.map(recordingJson));
      }
      const single: [RegExp, string][] = [
        [/^\/messages\/(\d+)\.json$/, 'Message'],
        [/^\/todolists\/(\d+)\.json$/, 'Todolist'],
        [/^\/todos\/(\d+)\.json$/, 'Todo'],
        [/^\/comments\/(\d+)\.json$/, 'Comment'],
        [/^\/documents\/(\d+)\.json$/, 'Document'],
        [/^\/uploads\/(\d+)\.json$/, 'Upload'],
        [/^\/schedule_entries\/(\d+)\.json$/, 'Schedule::Entry'],
      ];
      for (const [pattern, type] of single) {
        const found = recording(id(pattern), type);
        if (id(pattern) !== undefined) return found ? { status: 200, body: recordingJson(found) } : notFound;
      }
      if (path === '/search.json') return search(url);
      return notFound;
    }

    if (method === 'POST') {
      let value = id(/^\/message_boards\/(\d+)\/messages\.json$/);
      if (value !== undefined) {
        const owner = dockOwner(value, 'message_board');
        if (!owner?.entry.enabled) return notFound;
        if (typeof body.subject !== 'string' || body.subject.trim() === '')
          return invalid("Subject can't be blank");
        if (body.status !== 'active' && body.status !== 'drafted')
          return invalid('Status must be active or drafted');
        return created({
          type: 'Message',
          projectId: owner.project.id,
          parentId: value,
          title: body.subject,
          html: typeof body.content === 'string' ? body.content : '',
        });
      }
      value = id(/^\/todolists\/(\d+)\/todos\.json$/);
      if (value !== undefined) {
        const list = recording(value, 'Todolist');
        if (!list) return notFound;
        if (typeof body.content !== 'string' || body.content.trim() === '')
          return invalid("Content can't be blank");
        const assignees = Array.isArray(body.assignee_ids) ? body.assignee_ids.map(Number) : [];
        const unknown = assignees.filter((person) => !PEOPLE.some((entry) => entry.id === person));
        if (unknown.length > 0) return invalid(`Assignees not found: ${unknown.join(', ')}`);
        for (const field of ['due_on', 'starts_on'] as const) {
          if (
            body[field] !== undefined &&
            body[field] !== null &&
            !/^\d{4}-\d{2}-\d{2}$/.test(String(body[field]))
          )
            return invalid(`${field} is not a date`);
        }
        return created({
          type: 'Todo',
          projectId: list.projectId,
          parentId: value,
          title: body.content,
          html: typeof body.description === 'string' ? body.description : '',
          completed: false,
          assignee_ids: assignees,
          due_on: (body.due_on as string | undefined) ?? null,
          starts_on: (body.starts_on as string | undefined) ?? null,
          position: children(value, ['Todo']).length + 1,
        });
      }
      value = id(/^\/todos\/(\d+)\/completion\.json$/);
      if (value !== undefined) {
        const todo = recording(value, 'Todo');
        if (!todo) return notFound;
        todo.completed = true;
        todo.completion = { created_at: new Date().toISOString(), creatorId: ME.id };
        todo.updated_at = new Date().toISOString();
        return { status: 204 };
      }
      value = id(/^\/recordings\/(\d+)\/comments\.json$/);
      if (value !== undefined) {
        const parent = recording(value);
        if (!parent) return notFound;
        if (typeof body.content !== 'string' || body.content.trim() === '')
          return invalid("Content can't be blank");
        return created({
          type: 'Comment',
          projectId: parent.projectId,
          parentId: value,
          title: `Re: ${parent.title}`,
          html: body.content,
        });
      }
      value = id(/^\/chats\/(\d+)\/lines\.json$/);
      if (value !== undefined) {
        const owner = dockOwner(value, 'chat');
        if (!owner?.entry.enabled) return notFound;
        if (typeof body.content !== 'string' || body.content.trim() === '')
          return invalid("Content can't be blank");
        const rich = body.content_type === 'text/html';
        return created({
          type: rich ? 'Chat::Lines::RichText' : 'Chat::Lines::Text',
          projectId: owner.project.id,
          parentId: value,
          title: body.content.slice(0, 60),
          html: '',
          lineContent: body.content,
        });
      }
      return notFound;
    }

    if (method === 'DELETE') {
      const value = id(/^\/todos\/(\d+)\/completion\.json$/);
      if (value !== undefined) {
        const todo = recording(value, 'Todo');
        if (!todo) return notFound;
        todo.completed = false;
        delete todo.completion;
        todo.updated_at = new Date().toISOString();
        return { status: 204 };
      }
    }
    return notFound;
  }

  function invalid(message: string): Result {
    return { status: 422, body: { status: 422, error: message } };
  }

  function created(
    fields: Partial<FakeRecording> &
      Pick<FakeRecording, 'type' | 'projectId' | 'parentId' | 'title' | 'html'>,
  ): Result {
    const now = new Date().toISOString();
    const record: FakeRecording = {
      id: world.nextId++,
      creatorId: ME.id,
      status: 'active',
      created_at: now,
      updated_at: now,
      ...fields,
    };
    recordings.set(record.id, record);
    return { status: 201, body: recordingJson(record) };
  }

  function search(url: URL): Result {
    const query = (url.searchParams.get('q') ?? '').trim().toLowerCase();
    if (!query) return invalid('q is required');
    const type = url.searchParams.get('type');
    const fileType = url.searchParams.get('file_type');
    const excludeChat = url.searchParams.get('exclude_chat') === '1';
    const bucketId = url.searchParams.get('bucket_id');
    const creatorId = url.searchParams.get('creator_id');
    const page = Math.max(1, Number(url.searchParams.get('page') ?? '1') || 1);
    const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? '50') || 50));
    const matches = [...recordings.values()]
      .filter((record) => record.status === 'active')
      .filter((record) => !type || (SEARCH_TYPE_RECORDINGS[type] ?? [type]).includes(record.type))
      .filter((record) => !excludeChat || !record.type.startsWith('Chat::'))
      .filter(
        (record) =>
          !fileType || (record.type === 'Upload' && fileMatches(fileType, record.upload?.content_type ?? '')),
      )
      .filter((record) => !bucketId || String(record.projectId) === bucketId)
      .filter((record) => !creatorId || String(record.creatorId) === creatorId)
      .filter((record) =>
        `${record.title} ${plain(record.html)} ${plain(record.lineContent ?? '')}`
          .toLowerCase()
          .includes(query),
      )
      .sort((a, b) => b.updated_at.localeCompare(a.updated_at));
    const slice = matches.slice((page - 1) * perPage, page * perPage).map((record) => {
      const highlight = (text: string) =>
        text.replace(
          new RegExp(query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'),
          (found) => `<em>${found}</em>`,
        );
      return {
        ...recordingJson(record),
        plain_text_content: highlight(
          plain(record.type === 'Todo' ? record.title : record.html || record.lineContent || record.title),
        ),
        plain_text_description: record.type === 'Todo' ? highlight(plain(record.html)) : null,
      };
    });
    const headers: Record<string, string> = { 'x-total-count': String(matches.length) };
    if (page * perPage < matches.length) {
      const next = new URL(url);
      next.searchParams.set('page', String(page + 1));
      headers.link = `<${state.url}${next.pathname}${next.search}>; rel="next"`;
    }
    return { status: 200, body: slice, headers };
  }

  /** Geared pages: 15, 30, 50, then 100 per page; `Link` to the next, `X-Total-Count`. */
  function paginate(url: URL, all: unknown[]): Result {
    const page = Math.max(1, Math.floor(Number(url.searchParams.get('page') ?? '1')) || 1);
    let offset = 0;
    for (let index = 1; index < page; index++)
      offset += PAGE_SIZES[Math.min(index - 1, PAGE_SIZES.length - 1)] ?? 100;
    const size = PAGE_SIZES[Math.min(page - 1, PAGE_SIZES.length - 1)] ?? 100;
    const headers: Record<string, string> = { 'x-total-count': String(all.length) };
    if (offset + size < all.length) {
      const next = new URL(url);
      next.searchParams.set('page', String(page + 1));
      headers.link = `<${state.url}${next.pathname}${next.search}>; rel="next"`;
    }
    return { status: 200, body: all.slice(offset, offset + size), headers };
  }

  // --- JSON shapes ---
  function personJson(entry: FakePerson) {
    return {
      id: entry.id,
      attachable_sgid: `BAh7--person-${entry.id}`,
      name: entry.name,
      email_address: entry.email_address,
      personable_type: 'User',
      title: entry.title,
      bio: null,
      location: null,
      created_at: '2026-02-12T06:08:56.240Z',
      updated_at: '2026-02-12T06:08:56.240Z',
      admin: entry.admin,
      owner: entry.owner,
      client: entry.client,
      employee: entry.employee,
      time_zone: 'America/Chicago',
      avatar_url: `${base()}/people/${entry.id}/avatar`,
      company: entry.company,
      can_ping: true,
      can_manage_projects: true,
      can_manage_people: entry.admin,
    };
  }

  function projectJson(project: FakeProject) {
    const pathFor: Record<string, string> = {
      message_board: 'message_boards',
      todoset: 'todosets',
      vault: 'vaults',
      chat: 'chats',
      schedule: 'schedules',
      questionnaire: 'questionnaires',
      inbox: 'inboxes',
      kanban_board: 'card_tables',
    };
    return {
      id: project.id,
      status: project.status,
      created_at: project.created_at,
      updated_at: project.updated_at,
      name: project.name,
      description: project.description,
      purpose: project.purpose,
      clients_enabled: false,
      timesheet_enabled: false,
      color: null,
      bookmark_url: `${base()}/my/bookmarks/BAh7--${project.id}.json`,
      url: `${base()}/projects/${project.id}.json`,
      app_url: `https://3.basecamp.com/${ACCOUNT_ID}/projects/${project.id}`,
      dock: project.dock.map((entry) => ({
        id: entry.id,
        title: entry.title,
        name: entry.name,
        enabled: entry.enabled,
        position: entry.position,
        url: `${base()}/buckets/${project.id}/${pathFor[entry.name]}/${entry.id}.json`,
        app_url: `https://3.basecamp.com/${ACCOUNT_ID}/buckets/${project.id}/${pathFor[entry.name]}/${entry.id}`,
      })),
      bookmarked: false,
    };
  }

  /**
   * A dock tool (a project's top-level vault, card table, questionnaire, ...) as Basecamp's JSON:
   * the fields every recording has, from the project and the dock entry; `segment` is its path
   * segment in `url` / `app_url`.
   */
  function dockJson(
    project: FakeProject,
    entry: { id: number; title: string },
    type: string,
    segment: string,
  ) {
    return {
      id: entry.id,
      status: 'active',
      visible_to_clients: false,
      created_at: project.created_at,
      updated_at: project.updated_at,
      title: entry.title,
      inherits_status: true,
      type,
      url: `${base()}/buckets/${project.id}/${segment}/${entry.id}.json`,
      app_url: `https://3.basecamp.com/${ACCOUNT_ID}/buckets/${project.id}/${segment}/${entry.id}`,
      bucket: { id: project.id, name: project.name, type: 'Project' },
      creator: personJson(ME),
    };
  }

  /** A project's top-level vault (Docs & Files), which is a dock entry rather than a recording. */
  function dockVaultJson(project: FakeProject, entry: { id: number; title: string }) {
    const inside = (kind: string) =>
      [...recordings.values()].filter(
        (record) => record.parentId === entry.id && record.type === kind && record.status === 'active',
      ).length;
    return {
      ...dockJson(project, entry, 'Vault', 'vaults'),
      documents_count: inside('Document'),
      uploads_count: inside('Upload'),
      vaults_count: inside('Vault'),
    };
  }

  function recordingJson(record: FakeRecording): Record<string, unknown> {
    const project = projects.find((candidate) => candidate.id === record.projectId);
    const parentRecord = recordings.get(record.parentId);
    const dockEntry = project?.dock.find((entry) => entry.id === record.parentId);
    const creator = PEOPLE.find((entry) => entry.id === record.creatorId) ?? ME;
    const segment: Record<string, string> = {
      Message: 'messages',
      Todolist: 'todolists',
      Todo: 'todos',
      Comment: 'comments',
      Document: 'documents',
      Upload: 'uploads',
      'Chat::Lines::Text': `chats/${record.parentId}/lines`,
      'Chat::Lines::RichText': `chats/${record.parentId}/lines`,
      'Chat::Lines::Upload': `chats/${record.parentId}/lines`,
      'Schedule::Entry': 'schedule_entries',
      Vault: 'vaults',
      ...Object.assign({}, ...FAMILIES.map((family) => family.segments ?? {})),
    };
    const bucketBase = `${base()}/buckets/${record.projectId}`;
    const appBase = `https://3.basecamp.com/${ACCOUNT_ID}/buckets/${record.projectId}`;
    const json: Record<string, unknown> = {
      id: record.id,
      status: record.status,
      visible_to_clients: record.visible_to_clients ?? false,
      created_at: record.created_at,
      updated_at: record.updated_at,
      title: record.title,
      inherits_status: true,
      type: record.type,
      url: `${bucketBase}/${segment[record.type]}/${record.id}.json`,
      app_url: `${appBase}/${segment[record.type]}/${record.id}`,
      bookmark_url: `${base()}/my/bookmarks/BAh7--${record.id}.json`,
    };
    if (!record.type.startsWith('Chat::')) {
      json.subscription_url = `${bucketBase}/recordings/${record.id}/subscription.json`;
      json.comments_count = [...recordings.values()].filter(
        (entry) => entry.parentId === record.id && entry.type === 'Comment',
      ).length;
      json.comments_url = `${bucketBase}/recordings/${record.id}/comments.json`;
    }
    if (record.position !== undefined) json.position = record.position;
    json.parent = parentRecord
      ? {
          id: parentRecord.id,
          title: parentRecord.title,
          type: parentRecord.type,
          url: `${bucketBase}/${segment[parentRecord.type]}/${parentRecord.id}.json`,
          app_url: `${appBase}/${segment[parentRecord.type]}/${parentRecord.id}`,
        }
      : {
          id: record.parentId,
          title: dockEntry?.title ?? '',
          type: parentType(dockEntry?.name),
          url: `${bucketBase}/${dockEntry?.name ?? 'recordings'}/${record.parentId}.json`,
          app_url: `${appBase}/${dockEntry?.name ?? 'recordings'}/${record.parentId}`,
        };
    json.bucket = { id: record.projectId, name: project?.name ?? '', type: 'Project' };
    json.creator = personJson(creator);
    switch (record.type) {
      case 'Message':
        json.content = record.html;
        json.subject = record.title;
        break;
      case 'Comment':
      case 'Document':
        json.content = record.html;
        break;
      case 'Todolist': {
        const todos = [...recordings.values()].filter(
          (entry) => entry.parentId === record.id && entry.type === 'Todo' && entry.status === 'active',
        );
        json.description = record.html;
        json.completed = todos.length > 0 && todos.every((entry) => entry.completed);
        json.completed_ratio = `${todos.filter((entry) => entry.completed).length}/${todos.length}`;
        json.name = record.title;
        json.todos_url = `${bucketBase}/todolists/${record.id}/todos.json`;
        json.groups_url = `${bucketBase}/todolists/${record.id}/groups.json`;
        json.app_todos_url = `${appBase}/todolists/${record.id}/todos`;
        break;
      }
      case 'Todo':
        json.description = record.html;
        json.completed = Boolean(record.completed);
        if (record.completion) {
          json.completion = {
            created_at: record.completion.created_at,
            creator: personJson(PEOPLE.find((entry) => entry.id === record.completion?.creatorId) ?? ME),
          };
        }
        json.content = record.title;
        json.starts_on = record.starts_on ?? null;
        json.due_on = record.due_on ?? null;
        json.assignees = (record.assignee_ids ?? []).map((person) =>
          personJson(PEOPLE.find((entry) => entry.id === person) ?? ME),
        );
        json.completion_subscribers = (record.completion_subscriber_ids ?? []).map((person) =>
          personJson(PEOPLE.find((entry) => entry.id === person) ?? ME),
        );
        json.completion_url = `${base()}/todos/${record.id}/completion.json`;
        break;
      case 'Upload':
        json.description = record.html;
        json.content_type = record.upload?.content_type;
        json.byte_size = record.upload?.byte_size;
        json.filename = record.upload?.filename;
        json.download_url = `${bucketBase}/uploads/${record.id}/download/${record.upload?.filename}`;
        json.app_download_url = json.download_url;
        if (record.upload?.width !== undefined) json.width = record.upload.width;
        if (record.upload?.height !== undefined) json.height = record.upload.height;
        break;
      case 'Chat::Lines::Text':
      case 'Chat::Lines::RichText':
        json.content = record.lineContent ?? '';
        break;
      case 'Chat::Lines::Upload':
        // File lines carry no content, only their files.
        json.attachments = (record.attachments ?? []).map((file, index) => ({
          title: file.filename,
          url: `${base()}/blobs/line${record.id}-${index}/previews/full`,
          filename: file.filename,
          content_type: file.content_type,
          byte_size: file.byte_size,
          download_url: `https://storage.3.basecamp.com/${ACCOUNT_ID}/blobs/line${record.id}-${index}/download/${encodeURIComponent(file.filename)}`,
        }));
        break;
      case 'Vault': {
        const inside = (kind: string) =>
          [...recordings.values()].filter(
            (entry) => entry.parentId === record.id && entry.type === kind && entry.status === 'active',
          ).length;
        json.documents_count = inside('Document');
        json.documents_url = `${base()}/vaults/${record.id}/documents.json`;
        json.uploads_count = inside('Upload');
        json.uploads_url = `${base()}/vaults/${record.id}/uploads.json`;
        json.vaults_count = inside('Vault');
        json.vaults_url = `${base()}/vaults/${record.id}/vaults.json`;
        break;
      }
      case 'Schedule::Entry':
        json.description = record.html;
        json.summary = record.title;
        json.all_day = record.entry?.all_day ?? false;
        json.starts_at = record.entry?.starts_at;
        json.ends_at = record.entry?.ends_at;
        json.participants = (record.entry?.participant_ids ?? []).map((person) =>
          personJson(PEOPLE.find((entry) => entry.id === person) ?? ME),
        );
        if (record.recurrence) json.recurrence_schedule = record.recurrence;
        break;
    }
    for (const family of FAMILIES) {
      family.json?.(record, json, {
        recordings,
        base: base(),
        json: recordingJson,
        person: (value) => personJson(PEOPLE.find((entry) => entry.id === value) ?? ME),
      });
    }
    return json;
  }

  return bc3;
}

function parentType(name: string | undefined): string {
  for (const family of FAMILIES) {
    const type = name === undefined ? undefined : family.dockTypes?.[name];
    if (type) return type;
  }
  switch (name) {
    case 'message_board':
      return 'Message::Board';
    case 'todoset':
      return 'Todoset';
    case 'vault':
      return 'Vault';
    case 'chat':
      return 'Chat::Transcript';
    case 'schedule':
      return 'Schedule';
    default:
      return 'Recording';
  }
}

function plain(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(div|p|li|h1|blockquote|pre|figure)>/gi, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

/** `GET /searches/metadata.json`: the filters search accepts (the shape and keys of the API docs). */
const SEARCH_METADATA = {
  recording_search_types: [
    { key: null, value: 'Search Everything' },
    { key: 'Kanban::Card', value: 'Card tables' },
    { key: 'Chat::Transcript', value: 'Chats' },
    { key: 'Question', value: 'Check-ins' },
    { key: 'Client::Correspondence', value: 'Client emails' },
    { key: 'Comment', value: 'Comments' },
    { key: 'Document', value: 'Documents' },
    { key: 'Schedule::Entry', value: 'Events' },
    { key: 'Attachment', value: 'Files' },
    { key: 'Vault', value: 'Folders' },
    { key: 'Inbox::Forward', value: 'Forwarded emails' },
    { key: 'Message', value: 'Messages' },
    { key: 'Circle', value: 'Pings' },
    { key: 'Todo', value: 'To-dos' },
  ],
  file_search_types: [
    { key: null, value: 'All files' },
    { key: 'Image', value: 'Images' },
    { key: 'Audio', value: 'Audios' },
    { key: 'Video', value: 'Videos' },
    { key: 'PDF', value: 'PDFs' },
  ],
  default_creator_label: 'by Anyone',
  default_bucket_label: 'Everywhere',
  default_circle_label: 'with Anyone',
  default_file_type_label: 'All files',
  default_type_label: 'Search Everything',
};

/** The recordings a search `type` finds, where the type names a group rather than one recording type. */
const SEARCH_TYPE_RECORDINGS: Record<string, string[]> = {
  Attachment: ['Upload'],
  'Chat::Transcript': ['Chat::Lines::Text', 'Chat::Lines::RichText', 'Chat::Lines::Upload'],
};

function fileMatches(fileType: string, contentType: string): boolean {
  switch (fileType) {
    case 'Image':
      return contentType.startsWith('image/');
    case 'Audio':
      return contentType.startsWith('audio/');
    case 'Video':
      return contentType.startsWith('video/');
    case 'PDF':
      return contentType === 'application/pdf';
    default:
      return false;
  }
}
