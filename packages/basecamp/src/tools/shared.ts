import { InvalidInputError, McpToolError, NotFoundError, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import type { DockResolver } from '../dock.js';
import { type HtmlToMarkdown, loadHtmlToMarkdown } from '../markdown/html-to-markdown.js';
import { loadMarkdownToHtml, type MarkdownToHtml } from '../markdown/markdown-to-html.js';
import type { BasecampClient } from '../runtime.js';
import { SearchMetadataCache } from '../search-metadata.js';

/** What every tool gets: the client, the dock resolver, the converters and the search filters. */
export interface ToolDeps {
  client: BasecampClient;
  docks: DockResolver;
  /** Basecamp HTML → Markdown (loaded on first use). */
  markdown(): Promise<HtmlToMarkdown>;
  /** Agent Markdown → Basecamp HTML (loaded on first use). */
  html(): Promise<MarkdownToHtml>;
  searchMetadata: SearchMetadataCache;
}

export function createDeps(client: BasecampClient, docks: DockResolver): ToolDeps {
  return {
    client,
    docks,
    markdown: loadHtmlToMarkdown,
    html: loadMarkdownToHtml,
    searchMetadata: new SearchMetadataCache(client),
  };
}

/** A tool that only reads from Basecamp. */
export const READS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
} as const;

/** A tool that adds something new to Basecamp; calling it twice adds it twice. */
export const CREATES = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
} as const;

/** A tool that sets a state; calling it twice leaves the same state. */
export const SETS_STATE = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
} as const;

/** Longest rich-text body in a single-item answer, and per item in a list (characters of Markdown). */
export const ITEM_BODY_CHARS = 20_000;
export const LIST_BODY_CHARS = 1_500;

/** An ID with no description of its own (an item of a described list). */
export const positiveId = () => z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const id = (description: string) => positiveId().describe(description);

export const projectId = () => id(`Project ID, from ${toolRef('list_projects')}`);

/** `project_id` on a tool whose item has a route of its own: optional, and checked when given. */
export const itemProjectId = () => id('Optional: when given, the item must be in it').optional();

/**
 * Where an item lives, for a tool that takes an item ID and an optional `project_id`. With a
 * project the request goes to Basecamp's project route (`/buckets/{project}/...`), so an item of
 * another project is never read or changed; a 404 there is explained by reading the item's own
 * route (`probe`): "not in that project" when it exists elsewhere.
 */
export interface ItemScope {
  projectId: number | undefined;
  /** The message of a 404 without a project, e.g. "To-do 1 was not found, or ... Use list_todos ...". */
  notFound: string;
  /** "To-do 1", for the message when the item is in another project. */
  what: string;
  /** The item's flat route (e.g. `/todos/1.json`), read only to explain a 404 inside the project. */
  probe: string;
}

/**
 * The path and 404 message for a request about an item, inside its project when one is given.
 * On a server limited to some projects (`projects`) the project is required: the item's own
 * route does not say which project it is in, so it is never sent there.
 */
export function scoped(
  scope: ItemScope,
  path: string,
  deps: Pick<ToolDeps, 'client'>,
): { path: string; notFound: string } {
  if (scope.projectId === undefined) {
    const allowlist = deps.client.settings.projects;
    if (allowlist && !/^\/(?:buckets|projects)\/\d+/.test(path)) {
      throw new InvalidInputError(
        `project_id is required: this server is limited to Basecamp projects ${allowlist.named}. Call again with the project ${scope.what} is in.`,
        { details: { fields: ['project_id'], allowed_projects: [...allowlist.ids] } },
      );
    }
    return { path, notFound: scope.notFound };
  }
  return {
    path: `/buckets/${scope.projectId}${path}`,
    notFound: scope.notFound.replace(' was not found,', ` was not found in project ${scope.projectId},`),
  };
}

/** Runs a request made with `scoped()`; a 404 inside a project says where the item really is. */
export async function withinProject<T>(
  deps: ToolDeps,
  scope: ItemScope,
  signal: AbortSignal,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (scope.projectId === undefined || !McpToolError.isInstance(error) || error.code !== 'NOT_FOUND')
      throw error;
    // A limited server never reads an item by its own route: it could be in any project.
    if (deps.client.settings.projects) throw error;
    let owner: { id: unknown; name: unknown } | undefined;
    let exists = false;
    try {
      // The probe is the item itself or, for a collection, its first entry.
      const found = (await deps.client.get<unknown>(scope.probe, { signal })).data;
      const item = Array.isArray(found) ? found[0] : found;
      exists = true;
      owner = ((item as Raw | undefined)?.bucket ?? undefined) as typeof owner;
    } catch {
      throw error;
    }
    if (owner && typeof owner.id === 'number' && owner.id !== scope.projectId) {
      const name = typeof owner.name === 'string' ? ` ("${owner.name}")` : '';
      throw new NotFoundError(
        `${scope.what} is not in project ${scope.projectId}: it is in project ${owner.id}${name}. Call again with project_id ${owner.id}, or without project_id.`,
      );
    }
    if (exists && !owner) {
      throw new NotFoundError(
        `${scope.what} is not in project ${scope.projectId}. Call again without project_id, or with the project it is in.`,
      );
    }
    throw error;
  }
}

/**
 * A route of a project's own tool (board, vault, chat, ...): sent as `/buckets/{project}/...` on
 * a server limited to some projects, so Basecamp answers only for that project.
 */
export function projectRoute(deps: Pick<ToolDeps, 'client'>, projectId: number, path: string): string {
  return deps.client.settings.projects ? `/buckets/${projectId}${path}` : path;
}

/** The `projectId` of such a route's `ItemScope`: the project on a limited server, else none. */
export function toolProject(deps: Pick<ToolDeps, 'client'>, projectId: number): number | undefined {
  return deps.client.settings.projects ? projectId : undefined;
}

/**
 * The route of an item tool with no 404 explanation of its own: inside `project_id`'s project when
 * given (required on a limited server), else the item's own route.
 */
export function itemRoute(
  deps: Pick<ToolDeps, 'client'>,
  projectId: number | undefined,
  what: string,
  path: string,
): string {
  return scoped({ projectId, what, probe: path, notFound: '' }, path, deps).path;
}

/** An optional override for a project's tool ID, needed only when the project has two of that tool. */
export const dockOverride = () => id('Only if the project has several').optional();

/** Paging is explained once, in the server instructions (page, limit, has_more, next_page). */
export const page = () => z.number().int().min(1).max(1000).default(1).describe('From next_page');

export const limit = (fallback: number) =>
  z.number().int().min(1).max(100).default(fallback).describe('Items per page');

/** Markdown an agent writes; sent to Basecamp as its rich-text HTML (what is kept: see the instructions). */
export const richText = (description: string, max = 50_000) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .describe(`${description.replace(/\.$/, '')} (Markdown)`);

/**
 * Keeps a list answer under `maxChars` of JSON by leaving items out from the end; says so with
 * `truncated: true`, so the agent can ask again with a smaller limit.
 */
export function capList<Item, Result extends { items: Item[]; truncated: boolean; has_more: boolean }>(
  result: Result,
  maxChars: number,
): Result {
  if (JSON.stringify(result).length <= maxChars) return result;
  const items = [...result.items];
  const capped = { ...result, items, truncated: true, has_more: true };
  while (items.length > 0 && JSON.stringify(capped).length > maxChars) items.pop();
  return capped;
}

type Raw = Record<string, unknown>;

/** One page of a Basecamp collection, converted and capped. */
export async function listPage<Item>(
  deps: ToolDeps,
  path: string,
  options: {
    query?: Record<string, string | number | boolean | undefined>;
    page: number;
    limit: number;
    signal: AbortSignal;
    notFound: string;
    /** For an item's collection (comments, to-dos): checked against the project when one is given. */
    scope?: ItemScope;
    convert: (raw: Raw, markdown: HtmlToMarkdown, maxBodyChars: number) => Item;
  },
) {
  const target = options.scope ? scoped(options.scope, path, deps) : { path, notFound: options.notFound };
  const read = () =>
    deps.client.list<Raw>(target.path, {
      ...(options.query ? { query: options.query } : {}),
      page: options.page,
      limit: options.limit,
      signal: options.signal,
      notFound: target.notFound,
    });
  const [markdown, result] = await Promise.all([
    deps.markdown(),
    options.scope ? withinProject(deps, options.scope, options.signal, read) : read(),
  ]);
  return capList(
    {
      items: result.items.map((raw) => options.convert(raw, markdown, LIST_BODY_CHARS)),
      has_more: result.has_more,
      next_page: result.next_page,
      ...(result.total === undefined ? {} : { total: result.total }),
      truncated: false,
    },
    deps.client.settings.maxResponseChars,
  );
}

/** One record by its route (inside its project when the scope names one), converted. */
export async function getOne<Item>(
  deps: ToolDeps,
  path: string,
  options: {
    signal: AbortSignal;
    scope: ItemScope;
    convert: (raw: Raw, markdown: HtmlToMarkdown, maxBodyChars: number) => Item;
  },
): Promise<Item> {
  const target = scoped(options.scope, path, deps);
  const [markdown, response] = await Promise.all([
    deps.markdown(),
    withinProject(deps, options.scope, options.signal, () =>
      deps.client.get<Raw>(target.path, { signal: options.signal, notFound: target.notFound }),
    ),
  ]);
  const maxBody = Math.min(ITEM_BODY_CHARS, deps.client.settings.maxResponseChars - 2_000);
  return options.convert(response.data ?? {}, markdown, Math.max(1_000, maxBody));
}

/**
 * The scope of an item tool: `project_id` checked when given, and a 404 that names the list
 * tool (a bare tool name is rendered as served; other text, e.g. one holding a `toolRef`, as is).
 */
export function itemScope(
  projectId: number | undefined,
  what: string,
  probe: string,
  listTool: string,
): ItemScope {
  const source = /^[a-z0-9_]+$/.test(listTool) ? toolRef(listTool) : listTool;
  return {
    projectId,
    what,
    probe,
    notFound: `${what} was not found, or you have no access to it. Use ${source} to see valid IDs.`,
  };
}

/**
 * Sends one write about an item (inside its project when the scope names one) and returns
 * Basecamp's answer, or `undefined` for a 204.
 */
export async function send(
  deps: ToolDeps,
  method: 'POST' | 'PUT' | 'DELETE',
  path: string,
  options: { signal: AbortSignal; scope: ItemScope; body?: unknown },
): Promise<Raw | undefined> {
  const target = scoped(options.scope, path, deps);
  const response = await withinProject(deps, options.scope, options.signal, () =>
    deps.client.request<Raw>(method, target.path, {
      ...(options.body === undefined ? {} : { body: options.body }),
      signal: options.signal,
      notFound: target.notFound,
    }),
  );
  return typeof response.data === 'object' && response.data !== null ? response.data : undefined;
}

/** A write whose answer is the item: sent, then converted like a single-item read. */
export async function sendOne<Item>(
  deps: ToolDeps,
  method: 'POST' | 'PUT',
  path: string,
  options: {
    signal: AbortSignal;
    scope: ItemScope;
    body?: unknown;
    convert: (raw: Raw, markdown: HtmlToMarkdown, maxBodyChars: number) => Item;
  },
): Promise<Item> {
  const [markdown, data] = await Promise.all([deps.markdown(), send(deps, method, path, options)]);
  return options.convert(data ?? {}, markdown, ITEM_BODY_CHARS);
}

const ISO_DATE = z.iso.date();
const ISO_DATE_TIME = z.iso.datetime({ offset: true });

/**
 * A day, YYYY-MM-DD, that exists (no 2026-02-30): validated by `z.iso.date()` with its message,
 * but listed as `format: "date"` without its 250-character leap-year pattern.
 */
export const isoDate = () =>
  z
    .string()
    .refine((value) => ISO_DATE.safeParse(value).success, { message: 'Invalid ISO date' })
    .meta({ format: 'date' });

/** A time with its zone (ISO 8601), validated by `z.iso.datetime({ offset: true })`, listed as `format: "date-time"`. */
export const isoDateTime = () =>
  z
    .string()
    .refine((value) => ISO_DATE_TIME.safeParse(value).success, { message: 'Invalid ISO datetime' })
    .meta({ format: 'date-time' });

/** A date field: YYYY-MM-DD. */
export const date = (description: string) => isoDate().describe(description);

/** People to assign, by ID from list_people. */
export const assigneeIds = (description = `People to assign, by ID from ${toolRef('list_people')}`) =>
  z.array(positiveId()).max(50).describe(description);

/** A tool that removes or hides something (trash, archive, revoke); repeating it changes nothing more. */
export const DESTROYS = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: true,
} as const;

/** A date an update may set, or clear with null. */
export const clearableDate = (description: string) =>
  isoDate().nullable().optional().describe(`${description}, or null to clear it`);
