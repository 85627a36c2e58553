import { toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { excerpt } from './markdown/excerpt.js';
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

export const ParentSchema = z
  .object({ id: z.number(), type: z.string(), title: z.string() })
  .describe('The item this one belongs to: its type (e.g. "Message", "Todolist", "Vault"), ID and title');

export const ProjectRefSchema = z
  .object({ id: z.number(), name: z.string() })
  .describe('The project (Basecamp "bucket") the item is in');

/** Fields every item in a project carries. */
export const inProject = {
  project_id: z.number().nullable(),
  project: ProjectRefSchema.nullable(),
  parent: ParentSchema.nullable(),
  visible_to_clients: z
    .boolean()
    .optional()
    .describe("Whether the project's clients can see it (absent when Basecamp does not say)"),
};

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
  ...inProject,
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
  ...inProject,
  name: z.string(),
  description: z.string(),
  description_truncated: z.boolean(),
  creator: PersonRefSchema.nullable(),
  comments_count: z.number(),
  completed: z.boolean(),
  completed_ratio: z.string().nullable(),
  app_url: z.string().nullable(),
});

export const TodoSchema = z.object({
  id: z.number(),
  ...inProject,
  todolist: ParentSchema.nullable().describe('The to-do list (or group) it is in'),
  title: z.string(),
  description: z.string(),
  description_truncated: z.boolean(),
  completed: z.boolean(),
  completed_at: z.string().nullable(),
  completed_by: PersonRefSchema.nullable(),
  due_on: z.string().nullable(),
  starts_on: z.string().nullable(),
  assignees: z.array(PersonRefSchema),
  completion_subscribers: z
    .array(PersonRefSchema)
    .describe('People Basecamp notifies when the to-do is completed'),
  creator: PersonRefSchema.nullable(),
  comments_count: z.number(),
  created_at: z.string().nullable(),
  app_url: z.string().nullable(),
});

export const CommentSchema = z.object({
  id: z.number(),
  ...inProject,
  author: PersonRefSchema.nullable(),
  created_at: z.string().nullable(),
  app_url: z.string().nullable(),
  content: z.string(),
  content_truncated: z.boolean(),
});

export const DocumentSchema = z.object({
  id: z.number(),
  ...inProject,
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
  ...inProject,
  filename: z.string(),
  content_type: z.string().nullable(),
  byte_size: z.number().nullable(),
  download_url: z.string().nullable(),
  description: z.string(),
  description_truncated: z.boolean(),
  author: PersonRefSchema.nullable(),
  comments_count: z.number(),
  created_at: z.string().nullable(),
  app_url: z.string().nullable(),
});

export const FileSchema = z.object({
  filename: z.string(),
  content_type: z.string().nullable(),
  byte_size: z.number().nullable(),
  download_url: z.string().nullable(),
});

export const CampfireLineSchema = z.object({
  id: z.number(),
  ...inProject,
  type: z.string().describe('"Chat::Lines::Text", "Chat::Lines::RichText" or "Chat::Lines::Upload" (a file)'),
  author: PersonRefSchema.nullable(),
  created_at: z.string().nullable(),
  content: z.string().describe('The line as Markdown; a file line lists its files as links'),
  content_truncated: z.boolean(),
  attachments: z.array(FileSchema).describe('Files posted in the line'),
  app_url: z.string().nullable(),
});

export const RecurrenceSchema = z
  .object({
    frequency: z.string().nullable(),
    days: z.array(z.number()).nullable(),
    hour: z.number().nullable(),
    minute: z.number().nullable(),
    week_instance: z.number().nullable(),
    start_date: z.string().nullable(),
    end_date: z.string().nullable(),
  })
  .describe('Basecamp\'s recurrence_schedule: e.g. frequency "every_week" with days 1-7 (Monday 1)');

export const ScheduleEntrySchema = z.object({
  id: z.number(),
  ...inProject,
  summary: z.string(),
  description: z.string(),
  description_truncated: z.boolean(),
  starts_at: z.string().nullable(),
  ends_at: z.string().nullable(),
  all_day: z.boolean(),
  participants: z.array(PersonRefSchema),
  creator: PersonRefSchema.nullable(),
  comments_count: z.number(),
  recurrence: RecurrenceSchema.nullable().describe('How the event repeats; null for a one-off'),
  created_at: z.string().nullable(),
  app_url: z.string().nullable(),
});

export const FolderSchema = z.object({
  id: z.number(),
  ...inProject,
  title: z.string(),
  documents_count: z.number(),
  uploads_count: z.number(),
  folders_count: z.number(),
  creator: PersonRefSchema.nullable(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  app_url: z.string().nullable(),
});

export const SearchResultSchema = z.object({
  id: z.number(),
  type: z.string(),
  title: z.string(),
  project: ProjectRefSchema.nullable(),
  parent: ParentSchema.nullable().describe(
    `What the hit belongs to: for a Comment, the item commented on (open it with its get_ tool, or ${toolRef('list_comments')})`,
  ),
  visible_to_clients: inProject.visible_to_clients,
  excerpt: z.string(),
  excerpt_truncated: z.boolean(),
  created_at: z.string().nullable(),
  app_url: z.string().nullable(),
});

/** `{ items, has_more, next_page, total? }` plus whether the response had to be cut. */
/**
 * A value built on its first use and kept: tool shapes (name, description, schemas) and output
 * schemas. The tools of toolsets that are not served are never built (a faster start), and every
 * provider instance shares one (each instance adds only its handlers, bound to its own client).
 */
export function lazy<Value>(build: () => Value): () => Value {
  let value: Value | undefined;
  return () => {
    value ??= build();
    return value;
  };
}

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

export const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
export const number = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
export const record = (value: unknown): Raw | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Raw) : undefined;

/** The objects of a JSON array (anything else, and non-object entries, give nothing). */
export const records = (value: unknown): Raw[] =>
  (Array.isArray(value) ? value : []).map(record).filter((entry): entry is Raw => entry !== undefined);

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

export function parent(value: unknown): z.infer<typeof ParentSchema> | null {
  const raw = record(value);
  if (!raw || number(raw.id) === null) return null;
  return { id: number(raw.id) as number, type: text(raw.type) ?? '', title: text(raw.title) ?? '' };
}

function projectRef(raw: Raw): z.infer<typeof ProjectRefSchema> | null {
  const bucket = record(raw.bucket);
  const id = number(bucket?.id);
  return id === null ? null : { id, name: text(bucket?.name) ?? '' };
}

export function people(value: unknown): PersonRef[] {
  return (Array.isArray(value) ? value : [])
    .map(toPersonRef)
    .filter((entry): entry is PersonRef => entry !== null);
}

/** project_id, project, parent and visible_to_clients, from any recording. */
export function placement(raw: Raw) {
  const project = projectRef(raw);
  return {
    project_id: project?.id ?? null,
    project,
    parent: parent(raw.parent),
    ...(typeof raw.visible_to_clients === 'boolean' ? { visible_to_clients: raw.visible_to_clients } : {}),
  };
}

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

/**
 * Markdown of a rich-text field, at most `max` characters, cut at a Markdown boundary. The HTML
 * converted is bounded too (20 characters of HTML per character of Markdown kept, at least
 * 20,000), so a huge body costs no more than the part that is shown.
 */
export function body(
  markdown: HtmlToMarkdown,
  html: unknown,
  max: number,
): { text: string; truncated: boolean } {
  const source = text(html) ?? '';
  const maxInputChars = Math.max(20_000, max * 20);
  const result = excerpt(markdown(source, { maxInputChars }), max);
  return { text: result.text, truncated: result.truncated || source.length > maxInputChars };
}

/** A `description` field as Markdown, with whether it was cut. */
function description(markdown: HtmlToMarkdown, html: unknown, max: number) {
  const result = body(markdown, html, max);
  return { description: result.text, description_truncated: result.truncated };
}

export function toMessage(raw: Raw, markdown: HtmlToMarkdown, max: number): z.infer<typeof MessageSchema> {
  const content = body(markdown, raw.content, max);
  return {
    id: number(raw.id) ?? 0,
    ...placement(raw),
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
    ...placement(raw),
    name: text(raw.name) ?? text(raw.title) ?? '',
    ...description(markdown, raw.description, max),
    creator: toPersonRef(raw.creator),
    comments_count: number(raw.comments_count) ?? 0,
    completed: raw.completed === true,
    completed_ratio: text(raw.completed_ratio),
    app_url: text(raw.app_url),
  };
}

export function toTodo(raw: Raw, markdown: HtmlToMarkdown, max: number): z.infer<typeof TodoSchema> {
  const completion = record(raw.completion);
  return {
    id: number(raw.id) ?? 0,
    ...placement(raw),
    todolist: parent(raw.parent),
    title: text(raw.content) ?? text(raw.title) ?? '',
    ...description(markdown, raw.description, max),
    completed: raw.completed === true,
    completed_at: text(completion?.created_at),
    completed_by: toPersonRef(completion?.creator),
    due_on: text(raw.due_on),
    starts_on: text(raw.starts_on),
    assignees: people(raw.assignees),
    completion_subscribers: people(raw.completion_subscribers),
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
    ...placement(raw),
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
    ...placement(raw),
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
    ...placement(raw),
    filename: text(raw.filename) ?? text(raw.title) ?? '',
    content_type: text(raw.content_type),
    byte_size: number(raw.byte_size),
    download_url: text(raw.download_url),
    ...description(markdown, raw.description, max),
    author: toPersonRef(raw.creator),
    comments_count: number(raw.comments_count) ?? 0,
    created_at: text(raw.created_at),
    app_url: text(raw.app_url),
  };
}

export function toFolder(raw: Raw): z.infer<typeof FolderSchema> {
  return {
    id: number(raw.id) ?? 0,
    ...placement(raw),
    title: text(raw.title) ?? '',
    documents_count: number(raw.documents_count) ?? 0,
    uploads_count: number(raw.uploads_count) ?? 0,
    folders_count: number(raw.vaults_count) ?? 0,
    creator: toPersonRef(raw.creator),
    created_at: text(raw.created_at),
    updated_at: text(raw.updated_at),
    app_url: text(raw.app_url),
  };
}

function toFile(value: unknown): z.infer<typeof FileSchema> | null {
  const raw = record(value);
  if (!raw) return null;
  return {
    filename: text(raw.filename) ?? text(raw.title) ?? 'file',
    content_type: text(raw.content_type),
    byte_size: number(raw.byte_size),
    download_url: text(raw.download_url) ?? text(raw.url),
  };
}

/** A file as a Markdown line: the name linked to its download, then size and type. */
function fileLine(file: z.infer<typeof FileSchema>): string {
  const label = file.filename.replace(/([[\]])/g, '\\$1');
  const url = file.download_url
    ? file.download_url.replace(
        /[\s()<>]/g,
        (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
      )
    : '';
  const details = [file.byte_size === null ? '' : formatBytes(file.byte_size), file.content_type ?? '']
    .filter(Boolean)
    .join(', ');
  return `${url ? `[${label}](${url})` : label}${details ? ` (${details})` : ''}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function toCampfireLine(
  raw: Raw,
  markdown: HtmlToMarkdown,
  max: number,
): z.infer<typeof CampfireLineSchema> {
  const content = text(raw.content) ?? '';
  const type = text(raw.type) ?? '';
  // Plain-text lines are text; rich-text lines are HTML; upload lines have files and no content.
  const rich = type === 'Chat::Lines::RichText' || (/<[a-z]/i.test(content) && content.includes('>'));
  const attachments = (Array.isArray(raw.attachments) ? raw.attachments : [])
    .map(toFile)
    .filter((file): file is z.infer<typeof FileSchema> => file !== null);
  // A plain-text line is not Markdown: cut it as text.
  const plain =
    content.length > max
      ? { text: `${content.slice(0, max - 1)}…`, truncated: true }
      : { text: content, truncated: false };
  const written = content ? (rich ? body(markdown, content, max) : plain) : { text: '', truncated: false };
  const files = attachments.map(fileLine).join('\n');
  return {
    id: number(raw.id) ?? 0,
    ...placement(raw),
    type,
    author: toPersonRef(raw.creator),
    created_at: text(raw.created_at),
    content: [written.text, files].filter(Boolean).join('\n\n') || (text(raw.title) ?? ''),
    content_truncated: written.truncated,
    attachments,
    app_url: text(raw.app_url),
  };
}

function toRecurrence(value: unknown): z.infer<typeof RecurrenceSchema> | null {
  const raw = record(value);
  if (!raw) return null;
  return {
    frequency: text(raw.frequency),
    days: Array.isArray(raw.days) ? raw.days.filter((day): day is number => typeof day === 'number') : null,
    hour: number(raw.hour),
    minute: number(raw.minute),
    week_instance: number(raw.week_instance),
    start_date: text(raw.start_date),
    end_date: text(raw.end_date),
  };
}

export function toScheduleEntry(
  raw: Raw,
  markdown: HtmlToMarkdown,
  max: number,
): z.infer<typeof ScheduleEntrySchema> {
  return {
    id: number(raw.id) ?? 0,
    ...placement(raw),
    summary: text(raw.summary) ?? text(raw.title) ?? '',
    ...description(markdown, raw.description, max),
    starts_at: text(raw.starts_at),
    ends_at: text(raw.ends_at),
    all_day: raw.all_day === true,
    participants: people(raw.participants),
    creator: toPersonRef(raw.creator),
    comments_count: number(raw.comments_count) ?? 0,
    recurrence: toRecurrence(raw.recurrence_schedule),
    created_at: text(raw.created_at),
    app_url: text(raw.app_url),
  };
}

export function toSearchResult(
  raw: Raw,
  markdown: HtmlToMarkdown,
  max: number,
): z.infer<typeof SearchResultSchema> {
  const source = text(raw.plain_text_content) ?? text(raw.plain_text_description) ?? '';
  // Search highlights matches with <em>; as Markdown they read as _emphasis_.
  const excerptText = body(markdown, source, max);
  return {
    id: number(raw.id) ?? 0,
    type: text(raw.type) ?? '',
    title: text(raw.title) ?? text(raw.subject) ?? '',
    project: projectRef(raw),
    parent: parent(raw.parent),
    ...(typeof raw.visible_to_clients === 'boolean' ? { visible_to_clients: raw.visible_to_clients } : {}),
    excerpt: excerptText.text,
    excerpt_truncated: excerptText.truncated,
    created_at: text(raw.created_at),
    app_url: text(raw.app_url),
  };
}
