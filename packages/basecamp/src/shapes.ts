import { z } from 'zod';
import type { HtmlToMarkdown } from './markdown/html-to-markdown.js';

/**
 * What the tools return: Basecamp's JSON reduced to what an agent uses, rich text as Markdown.
 * Each `*Schema` is the tool's `outputSchema`; each `to*` builds it from Basecamp's JSON.
 */

type Raw = Record<string, unknown>;

export const PersonRefSchema = z.object({
  id: z.number(),
  name: z.string(),
  email: z.string().nullable(),
});
export type PersonRef = z.infer<typeof PersonRefSchema>;

export const PersonSchema = PersonRefSchema.extend({
  title: z.string().nullable(),
  company: z.string().nullable(),
  admin: z.boolean(),
  owner: z.boolean(),
  client: z.boolean(),
});

export const ParentSchema = z.object({ id: z.number(), type: z.string(), title: z.string() });

export const DockEntrySchema = z.object({
  id: z.number(),
  name: z.string(),
  title: z.string(),
  enabled: z.boolean(),
  position: z.number().nullable(),
});

export const ProjectSchema = z.object({
  id: z.number(),
  name: z.string(),
  description: z.string(),
  status: z.string(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  app_url: z.string().nullable(),
  enabled_tools: z.array(z.string()),
});

export const MessageSchema = z.object({
  id: z.number(),
  project_id: z.number().nullable(),
  subject: z.string(),
  author: PersonRefSchema.nullable(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  comments_count: z.number(),
  app_url: z.string().nullable(),
  content: z.string().describe('The body as Markdown'),
  content_truncated: z.boolean(),
});

export const TodolistSchema = z.object({
  id: z.number(),
  project_id: z.number().nullable(),
  name: z.string(),
  description: z.string(),
  completed: z.boolean(),
  completed_ratio: z.string().nullable(),
  app_url: z.string().nullable(),
});

export const TodoSchema = z.object({
  id: z.number(),
  project_id: z.number().nullable(),
  todolist: ParentSchema.nullable(),
  title: z.string(),
  description: z.string(),
  completed: z.boolean(),
  completed_at: z.string().nullable(),
  completed_by: PersonRefSchema.nullable(),
  due_on: z.string().nullable(),
  starts_on: z.string().nullable(),
  assignees: z.array(PersonRefSchema),
  creator: PersonRefSchema.nullable(),
  comments_count: z.number(),
  created_at: z.string().nullable(),
  app_url: z.string().nullable(),
});

export const CommentSchema = z.object({
  id: z.number(),
  parent: ParentSchema.nullable(),
  author: PersonRefSchema.nullable(),
  created_at: z.string().nullable(),
  app_url: z.string().nullable(),
  content: z.string(),
  content_truncated: z.boolean(),
});

export const DocumentSchema = z.object({
  id: z.number(),
  project_id: z.number().nullable(),
  title: z.string(),
  author: PersonRefSchema.nullable(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  comments_count: z.number(),
  app_url: z.string().nullable(),
  content: z.string(),
  content_truncated: z.boolean(),
});

export const UploadSchema = z.object({
  id: z.number(),
  project_id: z.number().nullable(),
  filename: z.string(),
  content_type: z.string().nullable(),
  byte_size: z.number().nullable(),
  download_url: z.string().nullable(),
  description: z.string(),
  author: PersonRefSchema.nullable(),
  created_at: z.string().nullable(),
  app_url: z.string().nullable(),
});

export const CampfireLineSchema = z.object({
  id: z.number(),
  author: PersonRefSchema.nullable(),
  created_at: z.string().nullable(),
  content: z.string(),
  app_url: z.string().nullable(),
});

export const ScheduleEntrySchema = z.object({
  id: z.number(),
  summary: z.string(),
  description: z.string(),
  starts_at: z.string().nullable(),
  ends_at: z.string().nullable(),
  all_day: z.boolean(),
  participants: z.array(PersonRefSchema),
  app_url: z.string().nullable(),
});

export const SearchResultSchema = z.object({
  id: z.number(),
  type: z.string(),
  title: z.string(),
  project: z.object({ id: z.number(), name: z.string() }).nullable(),
  excerpt: z.string(),
  created_at: z.string().nullable(),
  app_url: z.string().nullable(),
});

/** `{ items, has_more, next_page, total? }` plus whether the response had to be cut. */
export function listSchema<Item extends z.ZodType>(item: Item) {
  return z.object({
    items: z.array(item),
    has_more: z.boolean().describe('More items exist after this page'),
    next_page: z
      .number()
      .int()
      .nullable()
      .describe('Pass as page to get the next items; null on the last page'),
    total: z.number().int().optional().describe('Total items, when Basecamp reports it'),
    truncated: z
      .boolean()
      .describe('Items were left out to keep the response small: call again with a smaller limit'),
  });
}

// --- converters ---

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const number = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
const record = (value: unknown): Raw | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Raw) : undefined;

export function toPersonRef(value: unknown): PersonRef | null {
  const raw = record(value);
  if (!raw || number(raw.id) === null) return null;
  return { id: number(raw.id) as number, name: text(raw.name) ?? '', email: text(raw.email_address) };
}

export function toPerson(value: unknown): z.infer<typeof PersonSchema> | null {
  const ref = toPersonRef(value);
  const raw = record(value);
  if (!ref || !raw) return null;
  return {
    ...ref,
    title: text(raw.title),
    company: text(record(raw.company)?.name),
    admin: raw.admin === true,
    owner: raw.owner === true,
    client: raw.client === true,
  };
}

function parent(value: unknown): z.infer<typeof ParentSchema> | null {
  const raw = record(value);
  if (!raw || number(raw.id) === null) return null;
  return { id: number(raw.id) as number, type: text(raw.type) ?? '', title: text(raw.title) ?? '' };
}

const projectId = (raw: Raw) => number(record(raw.bucket)?.id);

export function toDock(raw: Raw): z.infer<typeof DockEntrySchema>[] {
  const dock = Array.isArray(raw.dock) ? raw.dock : [];
  return dock
    .map(record)
    .filter((entry): entry is Raw => entry !== undefined && number(entry.id) !== null)
    .map((entry) => ({
      id: number(entry.id) as number,
      name: text(entry.name) ?? '',
      title: text(entry.title) ?? '',
      enabled: entry.enabled === true,
      position: number(entry.position),
    }));
}

export function toProject(raw: Raw): z.infer<typeof ProjectSchema> {
  return {
    id: number(raw.id) ?? 0,
    name: text(raw.name) ?? '',
    description: text(raw.description) ?? '',
    status: text(raw.status) ?? 'active',
    created_at: text(raw.created_at),
    updated_at: text(raw.updated_at),
    app_url: text(raw.app_url),
    enabled_tools: toDock(raw)
      .filter((entry) => entry.enabled)
      .map((entry) => entry.name),
  };
}

/** Markdown of a rich-text field, cut at `max` characters (at a line break when possible). */
export function body(
  markdown: HtmlToMarkdown,
  html: unknown,
  max: number,
): { text: string; truncated: boolean } {
  const full = markdown(text(html) ?? '');
  if (full.length <= max) return { text: full, truncated: false };
  const cut = full.slice(0, max);
  const lineBreak = cut.lastIndexOf('\n');
  return { text: `${lineBreak > max * 0.8 ? cut.slice(0, lineBreak) : cut}…`, truncated: true };
}

export function toMessage(raw: Raw, markdown: HtmlToMarkdown, max: number): z.infer<typeof MessageSchema> {
  const content = body(markdown, raw.content, max);
  return {
    id: number(raw.id) ?? 0,
    project_id: projectId(raw),
    subject: text(raw.subject) ?? text(raw.title) ?? '',
    author: toPersonRef(raw.creator),
    created_at: text(raw.created_at),
    updated_at: text(raw.updated_at),
    comments_count: number(raw.comments_count) ?? 0,
    app_url: text(raw.app_url),
    content: content.text,
    content_truncated: content.truncated,
  };
}

export function toTodolist(raw: Raw, markdown: HtmlToMarkdown, max: number): z.infer<typeof TodolistSchema> {
  return {
    id: number(raw.id) ?? 0,
    project_id: projectId(raw),
    name: text(raw.name) ?? text(raw.title) ?? '',
    description: body(markdown, raw.description, max).text,
    completed: raw.completed === true,
    completed_ratio: text(raw.completed_ratio),
    app_url: text(raw.app_url),
  };
}

export function toTodo(raw: Raw, markdown: HtmlToMarkdown, max: number): z.infer<typeof TodoSchema> {
  const completion = record(raw.completion);
  return {
    id: number(raw.id) ?? 0,
    project_id: projectId(raw),
    todolist: parent(raw.parent),
    title: text(raw.content) ?? text(raw.title) ?? '',
    description: body(markdown, raw.description, max).text,
    completed: raw.completed === true,
    completed_at: text(completion?.created_at),
    completed_by: toPersonRef(completion?.creator),
    due_on: text(raw.due_on),
    starts_on: text(raw.starts_on),
    assignees: (Array.isArray(raw.assignees) ? raw.assignees : [])
      .map(toPersonRef)
      .filter((entry): entry is PersonRef => entry !== null),
    creator: toPersonRef(raw.creator),
    comments_count: number(raw.comments_count) ?? 0,
    created_at: text(raw.created_at),
    app_url: text(raw.app_url),
  };
}

export function toComment(raw: Raw, markdown: HtmlToMarkdown, max: number): z.infer<typeof CommentSchema> {
  const content = body(markdown, raw.content, max);
  return {
    id: number(raw.id) ?? 0,
    parent: parent(raw.parent),
    author: toPersonRef(raw.creator),
    created_at: text(raw.created_at),
    app_url: text(raw.app_url),
    content: content.text,
    content_truncated: content.truncated,
  };
}

export function toDocument(raw: Raw, markdown: HtmlToMarkdown, max: number): z.infer<typeof DocumentSchema> {
  const content = body(markdown, raw.content, max);
  return {
    id: number(raw.id) ?? 0,
    project_id: projectId(raw),
    title: text(raw.title) ?? '',
    author: toPersonRef(raw.creator),
    created_at: text(raw.created_at),
    updated_at: text(raw.updated_at),
    comments_count: number(raw.comments_count) ?? 0,
    app_url: text(raw.app_url),
    content: content.text,
    content_truncated: content.truncated,
  };
}

export function toUpload(raw: Raw, markdown: HtmlToMarkdown, max: number): z.infer<typeof UploadSchema> {
  return {
    id: number(raw.id) ?? 0,
    project_id: projectId(raw),
    filename: text(raw.filename) ?? text(raw.title) ?? '',
    content_type: text(raw.content_type),
    byte_size: number(raw.byte_size),
    download_url: text(raw.download_url),
    description: body(markdown, raw.description, max).text,
    author: toPersonRef(raw.creator),
    created_at: text(raw.created_at),
    app_url: text(raw.app_url),
  };
}

export function toCampfireLine(
  raw: Raw,
  markdown: HtmlToMarkdown,
  max: number,
): z.infer<typeof CampfireLineSchema> {
  const content = text(raw.content) ?? '';
  // Plain-text lines are text; rich-text lines are HTML.
  const rich = text(raw.type) === 'Chat::Lines::RichText' || /<[a-z][\s\S]*>/i.test(content);
  return {
    id: number(raw.id) ?? 0,
    author: toPersonRef(raw.creator),
    created_at: text(raw.created_at),
    content: rich ? body(markdown, content, max).text : content.slice(0, max),
    app_url: text(raw.app_url),
  };
}

export function toScheduleEntry(
  raw: Raw,
  markdown: HtmlToMarkdown,
  max: number,
): z.infer<typeof ScheduleEntrySchema> {
  return {
    id: number(raw.id) ?? 0,
    summary: text(raw.summary) ?? text(raw.title) ?? '',
    description: body(markdown, raw.description, max).text,
    starts_at: text(raw.starts_at),
    ends_at: text(raw.ends_at),
    all_day: raw.all_day === true,
    participants: (Array.isArray(raw.participants) ? raw.participants : [])
      .map(toPersonRef)
      .filter((entry): entry is PersonRef => entry !== null),
    app_url: text(raw.app_url),
  };
}

export function toSearchResult(
  raw: Raw,
  markdown: HtmlToMarkdown,
  max: number,
): z.infer<typeof SearchResultSchema> {
  const bucket = record(raw.bucket);
  const excerpt = text(raw.plain_text_content) ?? text(raw.plain_text_description) ?? '';
  return {
    id: number(raw.id) ?? 0,
    type: text(raw.type) ?? '',
    title: text(raw.title) ?? text(raw.subject) ?? '',
    project:
      bucket && number(bucket.id) !== null
        ? { id: number(bucket.id) as number, name: text(bucket.name) ?? '' }
        : null,
    // Search highlights matches with <em>; as Markdown they read as _emphasis_.
    excerpt: body(markdown, excerpt, max).text,
    created_at: text(raw.created_at),
    app_url: text(raw.app_url),
  };
}
