import type { FakeDockEntry, FakePerson, FakeProject, FakeRecording } from '../fixtures.js';

/** An answer of the fake API. */
export interface Result {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** What a family's routes see of one request and of the fake's state. */
export interface FamilyContext {
  method: string;
  /** Below the account, with a `/buckets/{id}` prefix taken off (see `bucket`). */
  path: string;
  url: URL;
  body: Record<string, unknown>;
  /** The request headers, lower-case names (a file upload's Content-Type and Content-Length). */
  headers: Record<string, string>;
  /** The body as text (a file upload's bytes, decoded as UTF-8: use Content-Length for its size). */
  text: string;
  /** The project of a `/buckets/{id}/...` request: content of other projects is then 404. */
  bucket: number | undefined;
  recordings: Map<number, FakeRecording>;
  projects: FakeProject[];
  /** The API base with the account, for `url` fields. */
  base: string;
  /** A live recording by ID (of one of `types` when given), respecting `bucket`. */
  recording(id: number | undefined, ...types: string[]): FakeRecording | undefined;
  /** The project and dock entry of a dock ID of that kind, respecting `bucket`. */
  dockOwner(id: number | undefined, name: string): { project: FakeProject; entry: FakeDockEntry } | undefined;
  /** A dock tool as Basecamp's JSON: the fields of every recording; `segment` is its path segment. */
  dockJson(
    project: FakeProject,
    entry: FakeDockEntry,
    type: string,
    segment: string,
  ): Record<string, unknown>;
  /** Live recordings under a parent, of these types, newest first. */
  children(parentId: number, types: string[]): FakeRecording[];
  /** Geared pages with `Link` and `X-Total-Count`, as Basecamp pages collections. */
  paginate(all: unknown[]): Result;
  /** Stores a new recording and answers 201 with its JSON. */
  created(
    fields: Partial<FakeRecording> &
      Pick<FakeRecording, 'type' | 'projectId' | 'parentId' | 'title' | 'html'>,
  ): Result;
  /** A recording as Basecamp's JSON (the family's own fields included). */
  json(record: FakeRecording): Record<string, unknown>;
  person(id: number): Record<string, unknown>;
  /** A project as Basecamp's JSON, with its dock. */
  projectJson(project: FakeProject): Record<string, unknown>;
  me: FakePerson;
  invalid(message: string): Result;
  notFound: Result;
  /** The ID the path matches with `pattern` (one capture group), if it does. */
  id(pattern: RegExp): number | undefined;
}

/** One family of the API (card tables, check-ins, ...): its routes, seed data and JSON fields. */
export interface Family {
  /** Answers a request of this family, or `undefined` to let the next one try. */
  route(context: FamilyContext): Result | undefined;
  /** Recordings the fake starts with. */
  seed?(): FakeRecording[];
  /** The path segment of a recording type in `url` / `app_url` (e.g. `card_tables/cards`). */
  segments?: Record<string, string>;
  /** Adds the family's fields to a recording's JSON. */
  json?(
    record: FakeRecording,
    json: Record<string, unknown>,
    context: Pick<FamilyContext, 'recordings' | 'person' | 'base' | 'json'>,
  ): void;
  /** The `type` a dock-level parent of this family has (e.g. `Kanban::Board`). */
  dockTypes?: Record<string, string>;
}

export const nowIso = () => new Date().toISOString();

/** Person IDs from a body field, or an error message naming the unknown ones. */
export function personIds(value: unknown, people: readonly FakePerson[]): number[] | string {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return 'assignee_ids must be a list of person IDs';
  const ids = value.map(Number);
  const unknown = ids.filter((person) => !people.some((entry) => entry.id === person));
  return unknown.length > 0 ? `Assignees not found: ${unknown.join(', ')}` : ids;
}

export const isDate = (value: unknown) => typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
