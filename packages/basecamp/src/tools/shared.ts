import { z } from 'zod';
import type { BasecampClient } from '../client/client.js';
import type { DockResolver } from '../dock.js';
import { type HtmlToMarkdown, loadHtmlToMarkdown } from '../markdown/html-to-markdown.js';

/** What every tool gets: the client, the dock resolver and the Markdown converter. */
export interface ToolDeps {
  client: BasecampClient;
  docks: DockResolver;
  markdown(): Promise<HtmlToMarkdown>;
}

export function createDeps(client: BasecampClient, docks: DockResolver): ToolDeps {
  return { client, docks, markdown: loadHtmlToMarkdown };
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

export const id = (description: string) =>
  z.number().int().positive().max(Number.MAX_SAFE_INTEGER).describe(description);

export const projectId = () =>
  id('Project ID, from list_projects (the number in https://3.basecamp.com/<account>/projects/<id>)');

/** An optional override for a project's tool ID, needed only when the project has two of that tool. */
export const dockOverride = (tool: string) =>
  id(
    `Only when the project has more than one ${tool} (the error lists them): the ID of the one to use, from get_project_tools`,
  ).optional();

export const page = () =>
  z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(1)
    .describe('Page of results, starting at 1 (use next_page from the last answer)');

export const limit = (fallback: number) =>
  z.number().int().min(1).max(100).default(fallback).describe(`Items per page, 1-100 (default ${fallback})`);

/** Markdown an agent writes; sent to Basecamp as its rich-text HTML. */
export const richText = (description: string, max = 50_000) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .describe(
      `${description} Markdown or plain text: **bold**, _italic_, ~~strike~~, [links](https://...), lists, > quotes, # headings and \`\`\` code blocks are kept.`,
    );

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
    convert: (raw: Raw, markdown: HtmlToMarkdown, maxBodyChars: number) => Item;
  },
) {
  const [markdown, result] = await Promise.all([
    deps.markdown(),
    deps.client.list<Raw>(path, {
      ...(options.query ? { query: options.query } : {}),
      page: options.page,
      limit: options.limit,
      signal: options.signal,
      notFound: options.notFound,
    }),
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

/** One record by its flat route, converted. */
export async function getOne<Item>(
  deps: ToolDeps,
  path: string,
  options: {
    signal: AbortSignal;
    notFound: string;
    convert: (raw: Raw, markdown: HtmlToMarkdown, maxBodyChars: number) => Item;
  },
): Promise<Item> {
  const [markdown, response] = await Promise.all([
    deps.markdown(),
    deps.client.get<Raw>(path, { signal: options.signal, notFound: options.notFound }),
  ]);
  const maxBody = Math.min(ITEM_BODY_CHARS, deps.client.settings.maxResponseChars - 2_000);
  return options.convert(response.data ?? {}, markdown, Math.max(1_000, maxBody));
}
