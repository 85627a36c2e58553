import type { ToolDescriptor } from '../descriptor.js';
import { type Bm25Hit, Bm25Index, stem, tokenize, words } from './bm25.js';

/** How much a word counts in each part of a tool's definition. */
const WEIGHTS = { name: 3, title: 2, description: 1, parameters: 1 } as const;
/** How much the description after its first sentence counts, against the first. */
const REST_WEIGHT = 0.5;
/** How much a synonym of a word asked counts, against the word itself. */
const SYNONYM_WEIGHT = 0.5;

/**
 * Everyday words for what tools do and what they act on, each group interchangeable in a
 * request ("delete" a to-do that the tool "trashes"). Deliberately small and general: the
 * tools' own words come from their definitions.
 */
const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['create', 'add', 'new', 'start', 'write', 'setup'],
  ['delete', 'remove', 'trash', 'discard', 'drop', 'erase'],
  ['update', 'change', 'edit', 'modify', 'rename', 'fix', 'adjust', 'reschedule', 'switch', 'turn'],
  ['complete', 'done', 'finish', 'tick', 'close'],
  ['reopen', 'undo', 'undone'],
  ['read', 'open', 'view', 'see', 'look'],
  ['list', 'browse', 'overview'],
  ['search', 'find', 'look', 'lookup'],
  ['reply', 'respond', 'answer', 'comment'],
  ['move', 'reorder', 'put'],
  ['assign', 'assignee'],
  ['chat', 'campfire', 'talk', 'say', 'saying', 'discuss'],
  ['react', 'reaction', 'emoji', 'boost'],
  ['progress', 'percent', 'along', 'gauge'],
  ['schedule', 'calendar', 'event', 'meeting'],
  ['document', 'doc', 'note', 'page'],
  ['file', 'upload', 'attachment', 'pdf', 'image', 'screenshot'],
  ['todo', 'task', 'checklist'],
  ['ticket', 'issue', 'story'],
  ['people', 'person', 'member', 'user', 'team', 'who'],
  ['message', 'post', 'announcement', 'thread'],
  ['time', 'hour', 'timesheet'],
  ['check', 'validate', 'verify', 'compile'],
  ['spec', 'specification', 'requirement'],
  ['summary', 'summarize', 'recap'],
  ['decision', 'decide', 'chose', 'choose', 'choice'],
  ['status', 'state', 'health'],
];

const SYNONYMS: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, Set<string>>();
  for (const group of SYNONYM_GROUPS) {
    const stems = group.map(stem);
    for (const word of stems) {
      const others = map.get(word) ?? new Set<string>();
      for (const other of stems) if (other !== word) others.add(other);
      map.set(word, others);
    }
  }
  return new Map([...map].map(([word, others]) => [word, [...others]]));
})();

/**
 * The tools of one registry, indexed for `search_tools`: BM25F over each tool's name, title,
 * description (its first sentence, what the tool does, counting more than the rest; without the
 * names of other tools it mentions, which say nothing about what it does) and parameter names. A query also matches the identifiers tools are named with when
 * people write them as two words ("to-do lists" → todolist), and everyday synonyms at half weight.
 */
export class ToolIndex {
  readonly #index: Bm25Index;
  /** Each tool's own name words (stemmed), without the ones most names share (a provider prefix). */
  readonly #nameWords = new Map<string, readonly string[]>();

  constructor(descriptors: readonly ToolDescriptor[]) {
    const perName = descriptors.map(
      (descriptor) => [descriptor.name, [...new Set(tokenize(descriptor.name))]] as const,
    );
    const shared = new Map<string, number>();
    for (const [, own] of perName) for (const word of own) shared.set(word, (shared.get(word) ?? 0) + 1);
    for (const [name, own] of perName) {
      this.#nameWords.set(
        name,
        own.filter((word) => (shared.get(word) ?? 0) <= Math.max(1, descriptors.length * SHARED_NAME_WORD)),
      );
    }
    const names = descriptors.map((descriptor) => descriptor.name).sort((a, b) => b.length - a.length);
    const mentions =
      names.length > 0 ? new RegExp(`\\b(?:${names.map(escapeRegExp).join('|')})\\b`, 'g') : undefined;
    this.#index = new Bm25Index(
      descriptors.map((descriptor) => ({
        id: descriptor.name,
        fields: [
          { text: descriptor.name, tokens: nameTokens(descriptor.name), weight: WEIGHTS.name },
          { text: descriptor.title ?? '', weight: WEIGHTS.title },
          ...describeFields(
            mentions ? descriptor.description.replace(mentions, ' ') : descriptor.description,
          ),
          { text: Object.keys(descriptor.inputSchema.properties).join(' '), weight: WEIGHTS.parameters },
        ],
      })),
    );
  }

  get size(): number {
    return this.#index.size;
  }

  search(query: string, limit: number, accept?: (name: string) => boolean): Bm25Hit[] {
    const asked = words(query);
    const terms = new Map<string, number>();
    const groups = new Map<string, number>();
    let group = 0;
    const add = (term: string, weight: number) => {
      terms.set(term, Math.max(terms.get(term) ?? 0, weight));
      if (!groups.has(term)) groups.set(term, group);
    };
    asked.forEach((word, index) => {
      group = index;
      const stemmed = stem(word);
      add(stemmed, 1);
      if (stemmed !== word) add(surface(word), 1);
      const next = asked[index + 1];
      if (next !== undefined) {
        const joined = `${word}${next}`;
        if (this.#index.has(stem(joined))) add(stem(joined), 1);
        if (this.#index.has(surface(joined))) add(surface(joined), 1);
      }
      for (const synonym of SYNONYMS.get(stemmed) ?? []) add(synonym, SYNONYM_WEIGHT);
    });
    // "which…", "show me…", "the latest…": asking for several things, which list tools answer.
    // A hint, not a word asked: it joins no group, so a tool that does not list is not penalized.
    if (LISTING.test(query)) terms.set('list', Math.max(terms.get('list') ?? 0, LISTING_WEIGHT));
    // A tool whose own name is all asked for ("add a to-do" and create_todo) is the precise
    // answer; one whose name says more (create_todolist) ranks after it.
    const hits = this.#index.searchTerms(terms, Number.MAX_SAFE_INTEGER, accept, groups);
    const ranked = hits.map((hit, order) => {
      const own = this.#nameWords.get(hit.id) ?? [];
      const covered = own.length === 0 ? 0 : own.filter((word) => terms.has(word)).length / own.length;
      return { id: hit.id, score: hit.score * (1 + NAME_COVERAGE * covered), order };
    });
    ranked.sort((left, right) => right.score - left.score || left.order - right.order);
    return ranked.slice(0, limit).map(({ id, score }) => ({ id, score }));
  }
}

const LISTING = /\b(?:which|show|any|latest)\b/i;
const LISTING_WEIGHT = 0.3;

/** A name word in more than this share of the names is a prefix, not a description. */
const SHARED_NAME_WORD = 0.25;
/** How much a name entirely asked for counts (see `search`). */
const NAME_COVERAGE = 0.5;

/** A word as written, where its ending tells something (`todolists`, not `todolist`): names only. */
function surface(word: string): string {
  return `~${word}`;
}

/** A tool name's words, and the ones whose endings were trimmed as written: plural names answer plural requests. */
function nameTokens(name: string): string[] {
  const found = words(name);
  return [...found.map(stem), ...found.filter((word) => stem(word) !== word).map(surface)];
}

/** The first sentence says what the tool does; the rest (when to use another, details) counts less. */
function describeFields(description: string) {
  const end = description.search(/[.;:](?:\s|$)/);
  const first = end < 0 ? description : description.slice(0, end + 1);
  return [
    { text: first, weight: WEIGHTS.description },
    { text: description.slice(first.length), weight: REST_WEIGHT },
  ];
}
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
