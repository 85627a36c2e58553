/**
 * References to tools inside text a model reads: descriptions, error messages, hints, success
 * results. A provider does not know the name its tools are served under (a composed server may
 * add `forge_`), so it writes `toolRef('list_tickets')` instead of the bare name, and the
 * registry renders every reference with the served name: in descriptors and instructions when
 * the provider is added, and in every result a call returns, errors included, wherever in the
 * code the message was built. Plain words are never rewritten, so a tool called `search` cannot
 * corrupt prose.
 *
 * A reference is the name between invisible delimiters, so text that escapes rendering (a log
 * line, a handler called directly) still reads as the bare name.
 */

const OPEN = '\u2060\u2063';
const CLOSE = '\u2063\u2060';
const REFERENCE = /\u2060\u2063([a-zA-Z0-9_-]{1,64})\u2063\u2060/g;

/** Maps a provider's own tool name to the name it is served under. */
export type ToolNamer = (name: string) => string;

const bareName: ToolNamer = (name) => name;

/**
 * A reference to one of the provider's own tools, by its own (unprefixed) name, for use in any
 * text a model reads: `` `Use ${toolRef('list_tickets')} to see ticket ids.` ``. Served through a
 * registry, it reads `forge_list_tickets` when the provider was added with prefix `forge_`.
 */
export function toolRef(name: string): string {
  return `${OPEN}${name}${CLOSE}`;
}

/** Replaces every tool reference in `text` with the served name (default: the bare name). */
export function renderToolRefs(text: string, served: ToolNamer = bareName): string {
  return text.includes(OPEN) ? text.replace(REFERENCE, (_match, name: string) => served(name)) : text;
}

/** The tool names referenced in `text`, in order. */
export function toolRefsIn(text: string): string[] {
  return text.includes(OPEN) ? [...text.matchAll(REFERENCE)].map((match) => match[1] as string) : [];
}

/**
 * Renders the references in every string of a JSON-like value (objects, arrays, strings).
 * Returns the value itself when it holds no reference, so results without any cost nothing
 * but the walk.
 */
export function renderToolRefsDeep<T>(value: T, served: ToolNamer = bareName, depth = 0): T {
  if (typeof value === 'string') return renderToolRefs(value, served) as T;
  if (typeof value !== 'object' || value === null || depth > 64) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const rendered = renderToolRefsDeep(item, served, depth + 1);
      if (rendered !== item) {
        copy ??= [...value];
        copy[index] = rendered;
      }
    }
    return (copy ?? value) as T;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const rendered = renderToolRefsDeep(item, served, depth + 1);
    if (rendered !== item) {
      copy ??= { ...(value as Record<string, unknown>) };
      copy[key] = rendered;
    }
  }
  // The spread keeps enumerable symbol keys too, such as the brand of a built result.
  return (copy ?? value) as T;
}
