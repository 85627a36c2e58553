import { DOCK, type FakeRecording, LAPTOP } from '../fixtures.js';
import { type Family, type FamilyContext, nowIso, type Result } from './types.js';

/** Client and email-forward IDs tests refer to (all in the laptop project). */
export const CLIENTS = {
  approval: 1069481000,
  correspondence: 1069481010,
  reply: 1069481020,
  inbox: DOCK.laptop.inbox,
  forward: 1069481030,
  forwardReply: 1069481040,
} as const;

function seed(): FakeRecording[] {
  const base = { projectId: LAPTOP, status: 'active' as const, creatorId: 1049715913 };
  const at = (minute: number) =>
    new Date(Date.parse('2026-01-20T10:00:00.000Z') + minute * 60_000).toISOString();
  return [
    {
      ...base,
      id: CLIENTS.approval,
      type: 'Client::Approval',
      parentId: LAPTOP,
      title: 'Approve the packaging',
      html: '<div>Please approve the <strong>final box</strong> design.</div>',
      due_on: '2026-02-01',
      created_at: at(0),
      updated_at: at(0),
      visible_to_clients: true,
      extra: { approval_status: 'pending', approverId: 1049715944 },
    },
    {
      ...base,
      id: CLIENTS.correspondence,
      type: 'Client::Correspondence',
      parentId: LAPTOP,
      title: 'Shipping dates',
      html: '<div>The first batch ships on <em>March 10</em>.</div>',
      created_at: at(1),
      updated_at: at(1),
      visible_to_clients: true,
    },
    {
      ...base,
      id: CLIENTS.reply,
      type: 'Client::Reply',
      parentId: CLIENTS.correspondence,
      creatorId: 1049715944,
      title: 'Re: Shipping dates',
      html: '<div>Thanks, noted.</div>',
      created_at: at(2),
      updated_at: at(2),
      visible_to_clients: true,
    },
    {
      ...base,
      id: CLIENTS.forward,
      type: 'Inbox::Forward',
      parentId: CLIENTS.inbox,
      title: 'Fwd: Quote for hinges',
      html: '<div>Here is the quote: <strong>$4.20</strong> per unit.</div>',
      created_at: at(3),
      updated_at: at(3),
      extra: { from: 'supplier@example.com' },
    },
    {
      ...base,
      id: CLIENTS.forwardReply,
      type: 'Inbox::Forward::Reply',
      parentId: CLIENTS.forward,
      title: 'Re: Fwd: Quote for hinges',
      html: '<div>Too high, ask again.</div>',
      created_at: at(4),
      updated_at: at(4),
    },
  ];
}

function route(c: FamilyContext): Result | undefined {
  if (!/^\/(client|inboxes|inbox_forwards|recordings\/\d+\/client_visibility)/.test(c.path)) return undefined;
  const inProject = (types: string[]) =>
    [...c.recordings.values()]
      .filter((record) => types.includes(record.type) && record.status === 'active')
      .filter((record) => c.bucket === undefined || record.projectId === c.bucket)
      .sort((a, b) => b.created_at.localeCompare(a.created_at));
  if (c.method === 'GET') {
    if (c.path === '/client/approvals.json')
      return c.paginate(inProject(['Client::Approval']).map((record) => c.json(record)));
    if (c.path === '/client/correspondences.json')
      return c.paginate(inProject(['Client::Correspondence']).map((record) => c.json(record)));
    for (const [pattern, type] of [
      [/^\/client\/approvals\/(\d+)\.json$/, 'Client::Approval'],
      [/^\/client\/correspondences\/(\d+)\.json$/, 'Client::Correspondence'],
      [/^\/inbox_forwards\/(\d+)\.json$/, 'Inbox::Forward'],
    ] as const) {
      const value = c.id(pattern);
      if (value !== undefined) {
        const found = c.recording(value, type);
        return found ? { status: 200, body: c.json(found) } : c.notFound;
      }
    }
    let value = c.id(/^\/client\/recordings\/(\d+)\/replies\.json$/);
    if (value !== undefined) {
      if (!c.recording(value, 'Client::Approval', 'Client::Correspondence')) return c.notFound;
      return c.paginate(
        c
          .children(value, ['Client::Reply'])
          .reverse()
          .map((record) => c.json(record)),
      );
    }
    value = c.id(/^\/inboxes\/(\d+)\/forwards\.json$/);
    if (value !== undefined) {
      const owner = c.dockOwner(value, 'inbox');
      if (!owner?.entry.enabled) return c.notFound;
      return c.paginate(c.children(value, ['Inbox::Forward']).map((record) => c.json(record)));
    }
    value = c.id(/^\/inbox_forwards\/(\d+)\/replies\.json$/);
    if (value !== undefined) {
      if (!c.recording(value, 'Inbox::Forward')) return c.notFound;
      return c.paginate(
        c
          .children(value, ['Inbox::Forward::Reply'])
          .reverse()
          .map((record) => c.json(record)),
      );
    }
    return undefined;
  }
  if (c.method === 'POST') {
    const value = c.id(/^\/inbox_forwards\/(\d+)\/replies\.json$/);
    if (value !== undefined) {
      const forward = c.recording(value, 'Inbox::Forward');
      if (!forward) return c.notFound;
      if (typeof c.body.content !== 'string' || c.body.content.trim() === '')
        return c.invalid("Content can't be blank");
      return c.created({
        type: 'Inbox::Forward::Reply',
        projectId: forward.projectId,
        parentId: value,
        title: `Re: ${forward.title}`,
        html: c.body.content,
      });
    }
    return undefined;
  }
  if (c.method === 'PUT') {
    const value = c.id(/^\/recordings\/(\d+)\/client_visibility\.json$/);
    if (value !== undefined) {
      const record = c.recording(value);
      if (!record) return c.notFound;
      if (typeof c.body.visible_to_clients !== 'boolean')
        return c.invalid('visible_to_clients must be true or false');
      record.visible_to_clients = c.body.visible_to_clients;
      record.updated_at = nowIso();
      return { status: 200, body: c.json(record) };
    }
  }
  return undefined;
}

export const clientsFamily: Family = {
  route,
  seed,
  segments: {
    'Client::Approval': 'client/approvals',
    'Client::Correspondence': 'client/correspondences',
    'Client::Reply': 'client/replies',
    'Inbox::Forward': 'inbox_forwards',
    'Inbox::Forward::Reply': 'inbox_forwards/replies',
  },
  dockTypes: { inbox: 'Inbox' },
  json(record, json, context) {
    if (!(record.type.startsWith('Client::') || record.type.startsWith('Inbox::'))) return;
    json.content = record.html;
    if (
      record.type === 'Client::Approval' ||
      record.type === 'Client::Correspondence' ||
      record.type === 'Inbox::Forward'
    ) {
      json.subject = record.title;
      json.replies_count = [...context.recordings.values()].filter(
        (entry) => entry.parentId === record.id && entry.status === 'active',
      ).length;
    }
    if (record.type === 'Client::Approval') {
      json.due_on = record.due_on ?? null;
      json.approval_status = record.extra?.approval_status ?? 'pending';
      json.approver = context.person(Number(record.extra?.approverId));
    }
    if (record.type === 'Inbox::Forward') json.from = record.extra?.from ?? null;
  },
};
