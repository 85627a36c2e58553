import { z } from 'zod';
import type { HtmlToMarkdown } from '../../markdown/html-to-markdown.js';
import {
  body,
  inProject,
  lazy,
  number,
  PersonRefSchema,
  people,
  placement,
  record,
  records,
  text,
  toPersonRef,
} from '../../shapes.js';
import { itemScope } from '../shared.js';

type Raw = Record<string, unknown>;

const KINDS: Record<string, 'triage' | 'column' | 'done' | 'not_now'> = {
  'Kanban::Triage': 'triage',
  'Kanban::Column': 'column',
  'Kanban::DoneColumn': 'done',
  'Kanban::NotNowColumn': 'not_now',
};

export const CardColumnSchema = lazy(() =>
  z.object({
    id: z.number(),
    title: z.string(),
    kind: z.string().describe('"triage" (new cards land here), "column", "done" or "not_now"'),
    description: z.string(),
    cards_count: z.number(),
    on_hold: z.boolean().describe('The column has an "on hold" section'),
    position: z.number().nullable(),
    color: z.string().nullable().describe('The column colour (white, red, ... brown); null: the default'),
  }),
);

export const CardTableSchema = lazy(() =>
  z.object({
    id: z.number(),
    title: z.string(),
    project_id: z.number().nullable(),
    project: z.object({ id: z.number(), name: z.string() }).nullable(),
    columns: z.array(CardColumnSchema()).describe('Left to right'),
    app_url: z.string().nullable(),
  }),
);

export const CardStepSchema = lazy(() =>
  z.object({
    id: z.number(),
    title: z.string(),
    completed: z.boolean(),
    due_on: z.string().nullable(),
    assignees: z.array(PersonRefSchema),
  }),
);

export const CardSchema = lazy(() =>
  z.object({
    id: z.number(),
    ...inProject,
    title: z.string(),
    content: z.string(),
    content_truncated: z.boolean(),
    completed: z.boolean(),
    due_on: z.string().nullable(),
    position: z.number().nullable().describe('Place in its column, from 1 (top)'),
    assignees: z.array(PersonRefSchema),
    steps: z.array(CardStepSchema()),
    creator: PersonRefSchema.nullable(),
    comments_count: z.number(),
    created_at: z.string().nullable(),
    app_url: z.string().nullable(),
  }),
);

export function toCardColumn(
  raw: Raw,
  markdown: HtmlToMarkdown,
  max: number,
): z.infer<ReturnType<typeof CardColumnSchema>> {
  return {
    id: number(raw.id) ?? 0,
    title: text(raw.title) ?? '',
    kind: KINDS[text(raw.type) ?? ''] ?? 'column',
    description: body(markdown, raw.description, max).text,
    cards_count: number(raw.cards_count) ?? 0,
    on_hold: record(raw.on_hold) !== undefined,
    position: number(raw.position),
    color: text(raw.color),
  };
}

export function toCardTable(
  raw: Raw,
  markdown: HtmlToMarkdown,
  max: number,
): z.infer<ReturnType<typeof CardTableSchema>> {
  const bucket = record(raw.bucket);
  const project =
    number(bucket?.id) === null ? null : { id: number(bucket?.id) as number, name: text(bucket?.name) ?? '' };
  return {
    id: number(raw.id) ?? 0,
    title: text(raw.title) ?? '',
    project_id: project?.id ?? null,
    project,
    columns: records(raw.lists).map((entry) => toCardColumn(entry, markdown, Math.min(max, 1_000))),
    app_url: text(raw.app_url),
  };
}

export function toCardStep(raw: Raw): z.infer<ReturnType<typeof CardStepSchema>> {
  return {
    id: number(raw.id) ?? 0,
    title: text(raw.title) ?? '',
    completed: raw.completed === true,
    due_on: text(raw.due_on),
    assignees: people(raw.assignees),
  };
}

export function toCard(
  raw: Raw,
  markdown: HtmlToMarkdown,
  max: number,
): z.infer<ReturnType<typeof CardSchema>> {
  const content = body(markdown, raw.content, max);
  return {
    id: number(raw.id) ?? 0,
    ...placement(raw),
    title: text(raw.title) ?? '',
    content: content.text,
    content_truncated: content.truncated,
    completed: raw.completed === true,
    due_on: text(raw.due_on),
    position: number(raw.position),
    assignees: people(raw.assignees),
    steps: records(raw.steps).map(toCardStep),
    creator: toPersonRef(raw.creator),
    comments_count: number(raw.comments_count) ?? 0,
    created_at: text(raw.created_at),
    app_url: text(raw.app_url),
  };
}

export const cardScope = (projectId: number | undefined, cardId: number) =>
  itemScope(projectId, `Card ${cardId}`, `/card_tables/cards/${cardId}.json`, 'list_cards');
export const columnScope = (projectId: number | undefined, columnId: number) =>
  itemScope(projectId, `Column ${columnId}`, `/card_tables/columns/${columnId}.json`, 'get_card_table');
export const stepScope = (projectId: number | undefined, stepId: number) =>
  itemScope(projectId, `Step ${stepId}`, `/card_tables/steps/${stepId}.json`, 'get_card');
