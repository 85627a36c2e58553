import type { ToolAccess } from './access.js';
import { InvalidInputError } from './errors.js';
import type { ToolRegistry } from './registry.js';

/**
 * Narrowing per connection: the URL path and headers a client connects with narrow what the
 * operator serves, never widen it.
 *
 * - `<endpoint>/readonly`: only read-only tools;
 * - `<endpoint>/x/<toolset>[,<toolset>…]` and `<endpoint>/x/<toolsets>/readonly`: only tools of
 *   these toolsets (`basecamp`, `basecamp.todos`: a provider's id, or its id, a dot and one of
 *   its toolsets);
 * - `X-MCP-Toolsets: a,b`, `X-MCP-Tools: name,name`, `X-MCP-Readonly: true`;
 * - `/search` after any of these paths (`<endpoint>/search`, `<endpoint>/readonly/search`,
 *   `<endpoint>/x/<toolsets>[/readonly]/search`): the search surface (`search_tools`,
 *   `describe_tool`, `call_tool`) over what the rest of the path leaves. It changes how the
 *   tools are offered, not which.
 *
 * Each narrowing is one `ToolAccess`; with several, a tool is served only when every one allows
 * it (a header can narrow a narrowed URL further, never widen it).
 */

export const TOOLSETS_HEADER = 'x-mcp-toolsets';
export const TOOLS_HEADER = 'x-mcp-tools';
export const READONLY_HEADER = 'x-mcp-readonly';

/** At most this many names in one list; a longer one is refused. */
const MAX_NAMES = 64;
/** Longer than any toolset or tool name can be (tool names have at most 64 characters). */
const MAX_NAME_LENGTH = 130;
/** Where a list came from, for the errors and the refusals. */
const URL_SOURCE = "this connection's URL";

/** What a connection asks for, read from its path and headers; the names are not checked yet. */
export interface RequestedNarrowing {
  /** From the path: `/x/<toolsets>`, `/readonly` and `/search`. */
  path?: NarrowedPath;
  toolsets?: readonly string[];
  tools?: readonly string[];
  readOnly?: boolean;
}

/** What a path under the endpoint asks for. */
export interface NarrowedPath {
  toolsets?: readonly string[];
  readOnly: boolean;
  /** `/search` ends the path: serve the search surface. */
  search?: true;
}

/** A path or header that cannot be read: the 400 answer's message. */
export class NarrowingSyntaxError extends Error {
  override readonly name = 'NarrowingSyntaxError';
}

/**
 * The narrowing a path under `endpoint` asks for: `undefined` when the path is not one of the
 * endpoint's (`/mcp/other`, or not under `/mcp` at all); `{ readOnly: false }` for the endpoint
 * itself. Throws `NarrowingSyntaxError` for a malformed narrowed path (`/mcp/x/`, `/mcp/x/a,,b`,
 * a name given twice, a list too long). `pathname` is as the URL parser leaves it (dot segments
 * resolved, percent-escapes kept).
 */
export function parseNarrowedPath(endpoint: string, pathname: string): NarrowedPath | undefined {
  if (pathname === endpoint) return { readOnly: false };
  if (!pathname.startsWith(`${endpoint}/`)) return undefined;
  let rest = pathname.slice(endpoint.length + 1).split('/');
  // `/x/search` names a toolset called search; `/search` after anything else is the surface.
  const search = rest.at(-1) === 'search' && !(rest.length === 2 && rest[0] === 'x');
  if (search) {
    rest = rest.slice(0, -1);
    if (rest.length === 0) return { readOnly: false, search };
  }
  const surface = search ? { search } : {};
  if (rest.length === 1 && rest[0] === 'readonly') return { readOnly: true, ...surface };
  if (rest[0] !== 'x') return undefined;
  const form = `${endpoint}/x/<toolset>[,<toolset>...][/readonly][/search]`;
  if (rest.length > 3 || (rest.length === 3 && rest[2] !== 'readonly') || rest.length < 2) {
    throw new NarrowingSyntaxError(
      `A narrowed endpoint is ${form}, ${endpoint}/readonly[/search] or ${endpoint}/search.`,
    );
  }
  let list: string;
  try {
    list = decodeURIComponent(rest[1] ?? '');
  } catch {
    throw new NarrowingSyntaxError(`The toolsets in this URL are not valid percent-encoding. Use ${form}.`);
  }
  return { toolsets: parseList(list, 'toolset', URL_SOURCE, form), readOnly: rest.length === 3, ...surface };
}

/** The narrowing the `X-MCP-*` headers ask for; throws `NarrowingSyntaxError` for a malformed one. */
export function parseNarrowingHeaders(
  header: (name: string) => string | undefined,
): Omit<RequestedNarrowing, 'path'> {
  const requested: Omit<RequestedNarrowing, 'path'> = {};
  const toolsets = header(TOOLSETS_HEADER);
  if (toolsets !== undefined) {
    requested.toolsets = parseList(toolsets, 'toolset', 'the X-MCP-Toolsets header', 'X-MCP-Toolsets: a,b');
  }
  const tools = header(TOOLS_HEADER);
  if (tools !== undefined) {
    requested.tools = parseList(tools, 'tool', 'the X-MCP-Tools header', 'X-MCP-Tools: name,name');
  }
  const readOnly = header(READONLY_HEADER);
  if (readOnly !== undefined) {
    const value = readOnly.trim().toLowerCase();
    if (value !== 'true' && value !== 'false') {
      throw new NarrowingSyntaxError('X-MCP-Readonly must be true or false.');
    }
    if (value === 'true') requested.readOnly = true;
  }
  return requested;
}

function parseList(value: string, kind: 'toolset' | 'tool', source: string, form: string): string[] {
  // Headers sent twice arrive joined with ", ": spaces around the commas are allowed there.
  const names = value.split(',').map((name) => (source === URL_SOURCE ? name : name.trim()));
  if (names.length > MAX_NAMES) {
    throw new NarrowingSyntaxError(`${capitalize(source)} names more than ${MAX_NAMES} ${kind}s.`);
  }
  const seen = new Set<string>();
  for (const name of names) {
    if (name === '') {
      throw new NarrowingSyntaxError(`${capitalize(source)} has an empty ${kind} name. Use ${form}.`);
    }
    if (name.length > MAX_NAME_LENGTH) {
      throw new NarrowingSyntaxError(`${capitalize(source)} has a ${kind} name longer than any ${kind}'s.`);
    }
    if (seen.has(name)) {
      throw new NarrowingSyntaxError(`${capitalize(source)} names the ${kind} ${quoted(name)} twice.`);
    }
    seen.add(name);
  }
  return names;
}

/**
 * The accesses of a connection's narrowing, its names checked against the registry that serves
 * the caller. An unknown toolset or tool is an `InvalidInputError` naming the valid ones
 * (`details.valid_toolsets` / `valid_tools`).
 */
export function narrowingAccesses(registry: ToolRegistry, requested: RequestedNarrowing): ToolAccess[] {
  const accesses: ToolAccess[] = [];
  const { path } = requested;
  if (path && (path.toolsets || path.readOnly)) {
    if (path.toolsets) checkToolsets(registry, path.toolsets, URL_SOURCE);
    accesses.push({
      source: URL_SOURCE,
      ...(path.toolsets ? { toolsets: path.toolsets } : {}),
      ...(path.readOnly ? { readOnly: true } : {}),
    });
  }
  if (requested.toolsets) {
    checkToolsets(registry, requested.toolsets, 'the X-MCP-Toolsets header');
    accesses.push({ source: 'the X-MCP-Toolsets header', toolsets: requested.toolsets });
  }
  if (requested.tools) {
    const known = new Set(registry.knownToolNames());
    const unknown = requested.tools.filter((name) => !known.has(name));
    if (unknown.length > 0) {
      const valid = [...known].sort();
      throw new InvalidInputError(
        `Unknown ${plural(unknown, 'tool')} ${unknown.slice(0, 5).map(quoted).join(', ')} in the X-MCP-Tools header. The tools are: ${valid.join(', ')}.`,
        { details: { valid_tools: valid } },
      );
    }
    accesses.push({ source: 'the X-MCP-Tools header', tools: requested.tools });
  }
  if (requested.readOnly) accesses.push({ source: 'the X-MCP-Readonly header', readOnly: true });
  return accesses;
}

function checkToolsets(registry: ToolRegistry, toolsets: readonly string[], source: string): void {
  const valid = registry.toolsetNames();
  const unknown = toolsets.filter((name) => !valid.includes(name));
  if (unknown.length === 0) return;
  throw new InvalidInputError(
    `Unknown ${plural(unknown, 'toolset')} ${unknown.slice(0, 5).map(quoted).join(', ')} in ${source}. The toolsets are: ${valid.join(', ')} (a provider, or a provider, a dot and one of its toolsets).`,
    { details: { valid_toolsets: valid } },
  );
}

function quoted(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
}

function plural(names: readonly string[], kind: string): string {
  return names.length === 1 ? kind : `${kind}s`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
