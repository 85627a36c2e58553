import { DOCK, type FakeRecording, LAPTOP, PEOPLE } from '../fixtures.js';
import { type Family, type FamilyContext, isDate, nowIso, personIds, type Result } from './types.js';

/** Card table IDs tests refer to: the laptop's card table, its columns, cards and steps. */
export const CARDS = {
  table: DOCK.laptop.cardTable,
  triage: 1069479960,
  inProgress: 1069479961,
  review: 1069479962,
  done: 1069479963,
  hingeCard: 1069479970,
  specCard: 1069479971,
  stepQuote: 1069479980,
  stepSample: 1069479981,
} as const;

const COLUMN_TYPES = ['Kanban::Triage', 'Kanban::Column', 'Kanban::DoneColumn'];

function seed(): FakeRecording[] {
  const base = { projectId: LAPTOP, creatorId: PEOPLE[0]?.id ?? 0, status: 'active' as const, html: '' };
  const at = (minute: number) =>
    new Date(Date.parse('2026-01-12T09:00:00.000Z') + minute * 60_000).toISOString();
  const column = (
    id: number,
    type: FakeRecording['type'],
    title: string,
    position: number,
  ): FakeRecording => ({
    ...base,
    id,
    type,
    parentId: CARDS.table,
    title,
    position,
    created_at: at(position),
    updated_at: at(position),
  });
  return [
    column(CARDS.triage, 'Kanban::Triage', 'Triage', 1),
    column(CARDS.inProgress, 'Kanban::Column', 'In progress', 2),
    column(CARDS.review, 'Kanban::Column', 'Review', 3),
    column(CARDS.done, 'Kanban::DoneColumn', 'Done', 4),
    {
      ...base,
      id: CARDS.hingeCard,
      type: 'Kanban::Card',
      parentId: CARDS.inProgress,
      title: 'Pick the hinge supplier',
      html: '<div>Two quotes so far. <strong>Decide by Friday.</strong></div>',
      position: 1,
      due_on: '2026-02-06',
      assignee_ids: [1049715930],
      created_at: at(10),
      updated_at: at(10),
    },
    {
      ...base,
      id: CARDS.specCard,
      type: 'Kanban::Card',
      parentId: CARDS.triage,
      title: 'Draft the spec sheet',
      html: '<div>Weight, battery, ports.</div>',
      position: 1,
      created_at: at(11),
      updated_at: at(11),
    },
    {
      ...base,
      id: CARDS.stepQuote,
      type: 'Kanban::Step',
      parentId: CARDS.hingeCard,
      title: 'Get a third quote',
      position: 1,
      completed: true,
      created_at: at(12),
      updated_at: at(12),
    },
    {
      ...base,
      id: CARDS.stepSample,
      type: 'Kanban::Step',
      parentId: CARDS.hingeCard,
      title: 'Order samples',
      position: 2,
      due_on: '2026-02-04',
      assignee_ids: [1049715938],
      created_at: at(13),
      updated_at: at(13),
    },
  ];
}

/** Positions 1..n in this order. */
function renumber(records: FakeRecording[]): void {
  records.forEach((record, index) => {
    record.position = index + 1;
  });
}

const byPosition = (a: FakeRecording, b: FakeRecording) => (a.position ?? 0) - (b.position ?? 0);

/** The colours a column can have (the API docs' list). */
const COLUMN_COLORS = [
  'white',
  'red',
  'orange',
  'yellow',
  'green',
  'blue',
  'aqua',
  'purple',
  'gray',
  'pink',
  'brown',
];

function route(c: FamilyContext): Result | undefined {
  if (!c.path.startsWith('/card_tables/')) return undefined;
  const watched = c.id(/^\/card_tables\/lists\/(\d+)\/subscription\.json$/);
  if (watched !== undefined && (c.method === 'POST' || c.method === 'DELETE')) {
    const column = c.recording(watched, ...COLUMN_TYPES);
    if (!column) return c.notFound;
    column.extra = { ...column.extra, watched: c.method === 'POST' };
    return { status: 204 };
  }
  const table = (id: number | undefined) => {
    const owner = c.dockOwner(id, 'kanban_board');
    return owner?.entry.enabled ? owner : undefined;
  };
  const columns = (tableId: number) => c.children(tableId, COLUMN_TYPES).sort(byPosition);
  const cards = (columnId: number) => c.children(columnId, ['Kanban::Card']).sort(byPosition);
  const steps = (cardId: number) => c.children(cardId, ['Kanban::Step']).sort(byPosition);
  const assignees = (value: unknown) => personIds(value, PEOPLE);
  const touch = (record: FakeRecording) => {
    record.updated_at = nowIso();
    return { status: 200, body: c.json(record) };
  };

  if (c.method === 'GET') {
    let value = c.id(/^\/card_tables\/(\d+)\.json$/);
    if (value !== undefined) {
      const owner = table(value);
      if (!owner) return c.notFound;
      return {
        status: 200,
        body: {
          ...c.dockJson(owner.project, owner.entry, 'Kanban::Board', 'card_tables'),
          subscribers: [],
          lists: columns(value).map((column) => c.json(column)),
        },
      };
    }
    value = c.id(/^\/card_tables\/lists\/(\d+)\/cards\.json$/);
    if (value !== undefined) {
      if (!c.recording(value, ...COLUMN_TYPES)) return c.notFound;
      return c.paginate(cards(value).map((card) => c.json(card)));
    }
    for (const [pattern, types] of [
      [/^\/card_tables\/columns\/(\d+)\.json$/, COLUMN_TYPES],
      [/^\/card_tables\/cards\/(\d+)\.json$/, ['Kanban::Card']],
      [/^\/card_tables\/steps\/(\d+)\.json$/, ['Kanban::Step']],
    ] as const) {
      value = c.id(pattern);
      if (value !== undefined) {
        const found = c.recording(value, ...types);
        return found ? { status: 200, body: c.json(found) } : c.notFound;
      }
    }
    return undefined;
  }

  if (c.method === 'POST') {
    let value = c.id(/^\/card_tables\/lists\/(\d+)\/cards\.json$/);
    if (value !== undefined) {
      const column = c.recording(value, ...COLUMN_TYPES);
      if (!column) return c.notFound;
      if (typeof c.body.title !== 'string' || c.body.title.trim() === '')
        return c.invalid("Title can't be blank");
      if (c.body.due_on !== undefined && !isDate(c.body.due_on)) return c.invalid('due_on is not a date');
      return c.created({
        type: 'Kanban::Card',
        projectId: column.projectId,
        parentId: value,
        title: c.body.title,
        html: typeof c.body.content === 'string' ? c.body.content : '',
        due_on: (c.body.due_on as string | undefined) ?? null,
        position: cards(value).length + 1,
      });
    }
    value = c.id(/^\/card_tables\/cards\/(\d+)\/moves\.json$/);
    if (value !== undefined) {
      const card = c.recording(value, 'Kanban::Card');
      if (!card) return c.notFound;
      const from = c.recordings.get(card.parentId);
      const target = c.recording(Number(c.body.column_id), ...COLUMN_TYPES);
      if (!target || target.parentId !== from?.parentId)
        return c.invalid('Column not found in this card table');
      const position = c.body.position === undefined ? 1 : Number(c.body.position);
      if (!Number.isInteger(position) || position < 1) return c.invalid('position must be 1 or more');
      const source = cards(card.parentId).filter((entry) => entry.id !== card.id);
      renumber(source);
      const destination = cards(target.id).filter((entry) => entry.id !== card.id);
      destination.splice(Math.min(position - 1, destination.length), 0, card);
      card.parentId = target.id;
      card.completed = target.type === 'Kanban::DoneColumn';
      renumber(destination);
      card.updated_at = nowIso();
      return { status: 204 };
    }
    value = c.id(/^\/card_tables\/cards\/(\d+)\/steps\.json$/);
    if (value !== undefined) {
      const card = c.recording(value, 'Kanban::Card');
      if (!card) return c.notFound;
      if (typeof c.body.title !== 'string' || c.body.title.trim() === '')
        return c.invalid("Title can't be blank");
      const people = assignees(c.body.assignee_ids);
      if (typeof people === 'string') return c.invalid(people);
      if (c.body.due_on !== undefined && !isDate(c.body.due_on)) return c.invalid('due_on is not a date');
      return c.created({
        type: 'Kanban::Step',
        projectId: card.projectId,
        parentId: card.id,
        title: c.body.title,
        html: '',
        completed: false,
        assignee_ids: people,
        due_on: (c.body.due_on as string | undefined) ?? null,
        position: steps(card.id).length + 1,
      });
    }
    value = c.id(/^\/card_tables\/cards\/(\d+)\/positions\.json$/);
    if (value !== undefined) {
      const card = c.recording(value, 'Kanban::Card');
      if (!card) return c.notFound;
      const list = steps(card.id);
      const step = list.find((entry) => entry.id === Number(c.body.source_id));
      const position = Number(c.body.position);
      if (!step) return c.invalid('Step not found on this card');
      if (!Number.isInteger(position) || position < 0) return c.invalid('position must be 0 or more');
      const rest = list.filter((entry) => entry !== step);
      rest.splice(Math.min(position, rest.length), 0, step);
      renumber(rest);
      return { status: 204 };
    }
    value = c.id(/^\/card_tables\/(\d+)\/columns\.json$/);
    if (value !== undefined) {
      const owner = table(value);
      if (!owner) return c.notFound;
      if (typeof c.body.title !== 'string' || c.body.title.trim() === '')
        return c.invalid("Title can't be blank");
      const existing = columns(value);
      const done = existing.find((entry) => entry.type === 'Kanban::DoneColumn');
      // New columns go before Done, as in Basecamp.
      const result = c.created({
        type: 'Kanban::Column',
        projectId: owner.project.id,
        parentId: value,
        title: c.body.title,
        html: typeof c.body.description === 'string' ? c.body.description : '',
        position: done ? (done.position ?? existing.length) : existing.length + 1,
      });
      if (done) done.position = (done.position ?? 0) + 1;
      return result;
    }
    value = c.id(/^\/card_tables\/(\d+)\/moves\.json$/);
    if (value !== undefined) {
      const owner = table(value);
      if (!owner) return c.notFound;
      const list = columns(value);
      const column = list.find((entry) => entry.id === Number(c.body.source_id));
      if (!column || Number(c.body.target_id) !== value)
        return c.invalid('Column not found in this card table');
      const position = c.body.position === undefined ? 1 : Number(c.body.position);
      if (!Number.isInteger(position) || position < 1) return c.invalid('position must be 1 or more');
      const rest = list.filter((entry) => entry !== column);
      rest.splice(Math.min(position - 1, rest.length), 0, column);
      renumber(rest);
      return { status: 204 };
    }
    value = c.id(/^\/card_tables\/columns\/(\d+)\/on_hold\.json$/);
    if (value !== undefined) {
      const column = c.recording(value, 'Kanban::Column');
      if (!column) return c.notFound;
      column.extra = { ...column.extra, on_hold: true };
      return touch(column);
    }
    return undefined;
  }

  if (c.method === 'PUT') {
    let value = c.id(/^\/card_tables\/cards\/(\d+)\.json$/);
    if (value !== undefined) {
      const card = c.recording(value, 'Kanban::Card');
      if (!card) return c.notFound;
      if (c.body.title !== undefined) {
        if (typeof c.body.title !== 'string' || c.body.title.trim() === '')
          return c.invalid("Title can't be blank");
        card.title = c.body.title;
      }
      if (typeof c.body.content === 'string') card.html = c.body.content;
      if (c.body.due_on !== undefined) {
        if (c.body.due_on !== null && c.body.due_on !== '' && !isDate(c.body.due_on))
          return c.invalid('due_on is not a date');
        card.due_on = (c.body.due_on as string | null) || null;
      }
      if (c.body.assignee_ids !== undefined) {
        const people = assignees(c.body.assignee_ids);
        if (typeof people === 'string') return c.invalid(people);
        card.assignee_ids = people;
      }
      return touch(card);
    }
    value = c.id(/^\/card_tables\/columns\/(\d+)\/color\.json$/);
    if (value !== undefined) {
      const column = c.recording(value, ...COLUMN_TYPES);
      if (!column) return c.notFound;
      if (typeof c.body.color !== 'string' || !COLUMN_COLORS.includes(c.body.color))
        return c.invalid(`color must be one of ${COLUMN_COLORS.join(', ')}`);
      column.extra = { ...column.extra, color: c.body.color };
      return touch(column);
    }
    value = c.id(/^\/card_tables\/steps\/(\d+)\/completions\.json$/);
    if (value !== undefined) {
      const step = c.recording(value, 'Kanban::Step');
      if (!step) return c.notFound;
      if (c.body.completion !== 'on' && c.body.completion !== '')
        return c.invalid('completion must be "on" or ""');
      step.completed = c.body.completion === 'on';
      return touch(step);
    }
    value = c.id(/^\/card_tables\/steps\/(\d+)\.json$/);
    if (value !== undefined) {
      const step = c.recording(value, 'Kanban::Step');
      if (!step) return c.notFound;
      if (c.body.title !== undefined) {
        if (typeof c.body.title !== 'string' || c.body.title.trim() === '')
          return c.invalid("Title can't be blank");
        step.title = c.body.title;
      }
      if (c.body.due_on !== undefined) {
        if (c.body.due_on !== null && c.body.due_on !== '' && !isDate(c.body.due_on))
          return c.invalid('due_on is not a date');
        step.due_on = (c.body.due_on as string | null) || null;
      }
      if (c.body.assignee_ids !== undefined) {
        const people = assignees(c.body.assignee_ids);
        if (typeof people === 'string') return c.invalid(people);
        step.assignee_ids = people;
      }
      return touch(step);
    }
    value = c.id(/^\/card_tables\/columns\/(\d+)\.json$/);
    if (value !== undefined) {
      const column = c.recording(value, ...COLUMN_TYPES);
      if (!column) return c.notFound;
      if (c.body.title !== undefined) {
        if (typeof c.body.title !== 'string' || c.body.title.trim() === '')
          return c.invalid("Title can't be blank");
        column.title = c.body.title;
      }
      if (typeof c.body.description === 'string') column.html = c.body.description;
      return touch(column);
    }
    return undefined;
  }

  if (c.method === 'DELETE') {
    const value = c.id(/^\/card_tables\/columns\/(\d+)\/on_hold\.json$/);
    if (value !== undefined) {
      const column = c.recording(value, 'Kanban::Column');
      if (!column) return c.notFound;
      column.extra = { ...column.extra, on_hold: false };
      return touch(column);
    }
  }
  return undefined;
}

export const cardsFamily: Family = {
  route,
  seed,
  segments: {
    'Kanban::Triage': 'card_tables/columns',
    'Kanban::Column': 'card_tables/columns',
    'Kanban::DoneColumn': 'card_tables/columns',
    'Kanban::Card': 'card_tables/cards',
    'Kanban::Step': 'card_tables/steps',
  },
  dockTypes: { kanban_board: 'Kanban::Board' },
  json(record, json, context) {
    const live = (parentId: number, type: string) =>
      [...context.recordings.values()]
        .filter((entry) => entry.parentId === parentId && entry.type === type && entry.status === 'active')
        .sort(byPosition);
    const people = (ids: number[] | undefined) => (ids ?? []).map((id) => context.person(id));
    if (COLUMN_TYPES.includes(record.type)) {
      json.description = record.html;
      json.color = (record.extra?.color as string | undefined) ?? null;
      json.cards_count = live(record.id, 'Kanban::Card').length;
      json.cards_url = `${context.base}/buckets/${record.projectId}/card_tables/lists/${record.id}/cards.json`;
      if (record.type === 'Kanban::Column')
        json.on_hold = record.extra?.on_hold === true ? { enabled: true } : null;
      json.subscribers = record.extra?.watched === true ? [context.person(1049715913)] : [];
    } else if (record.type === 'Kanban::Card') {
      json.content = record.html;
      json.description = record.html;
      json.completed = Boolean(record.completed);
      json.due_on = record.due_on ?? null;
      json.assignees = people(record.assignee_ids);
      json.completion_subscribers = [];
      json.steps = live(record.id, 'Kanban::Step').map((step) => context.json(step));
    } else if (record.type === 'Kanban::Step') {
      json.completed = Boolean(record.completed);
      json.due_on = record.due_on ?? null;
      json.assignees = people(record.assignee_ids);
      json.completion_url = `${context.base}/buckets/${record.projectId}/card_tables/steps/${record.id}/completions.json`;
    }
  },
};
