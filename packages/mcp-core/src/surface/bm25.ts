/**
 * A small BM25F index for finding tools by what a person asks: local, deterministic (the same
 * documents and query always give the same ranking; ties go to the earlier document), no model
 * and no network. Fields carry weights (a tool's name counts more than a word deep in its
 * description), and each field is normalized by its own average length, so a long description
 * does not drown a match in a short title.
 */

/** One field of a document (its text, or tokens made already) and how much a word in it counts. */
export interface WeightedText {
  text: string;
  /** Used instead of tokenizing `text`. */
  tokens?: readonly string[];
  weight: number;
}

export interface Bm25Document {
  id: string;
  fields: readonly WeightedText[];
}

export interface Bm25Hit {
  id: string;
  score: number;
}

/** How term frequency saturates (k1) and how much long documents are discounted (b). */
const K1 = 1.2;
const B = 0.75;

/** Words that say nothing about which tool is meant. */
const STOPWORDS = new Set(
  (
    'a an the and or but of to in on at by for from with into onto as is are was were be been being it its ' +
    'this that these those there here i me my we our us you your he she they them their his her what which ' +
    'whom when where how why can could would should will shall may might must do does did have has ' +
    'had please just some any all each every so than then too very not no yes up out off about over also ' +
    'one let get got give show tell want need find use using used make'
  ).split(' '),
);

/**
 * The words of a text, as the index compares them: lower case, accents dropped, split at
 * anything that is not a letter or digit and at camelCase humps (`projectId` → project, id),
 * stop words dropped, and plural / -ing / -ed endings trimmed. A pair joined by a hyphen or
 * underscore whose one half is a particle also counts as one word (`to-do` → todo, `check-in` → checkin).
 */
export function tokenize(text: string): string[] {
  return words(text).map(stem);
}

/** The words of a text as `tokenize` finds them, before their endings are trimmed. */
export function words(text: string): string[] {
  const spaced = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase();
  const found: string[] = [];
  for (const word of spaced.match(/[a-z0-9]+(?:[-_][a-z0-9]+)*/g) ?? []) {
    const parts = word.split(/[-_]/);
    for (const part of parts) {
      if (!STOPWORDS.has(part)) found.push(part);
    }
    for (let index = 0; index + 1 < parts.length; index += 1) {
      const left = parts[index] ?? '';
      const right = parts[index + 1] ?? '';
      // Only where one half is a particle (`to-do`, `check-in`, `e-mail`), not every compound
      // of an identifier such as `list_todos`.
      if (left.length <= 2 || right.length <= 2) found.push(`${left}${right}`);
    }
  }
  return found;
}

/** A light, deterministic suffix trim so `todos`, `listing` and `listed` meet `todo` and `list`. */
export function stem(word: string): string {
  if (word.length <= 3 || /^\d+$/.test(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ches|shes|sses|xes|zes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  if (word.endsWith('ing') && word.length > 5) return undouble(word.slice(0, -3));
  if (word.endsWith('ed') && word.length > 4) return undouble(word.slice(0, -2));
  return word;
}

function undouble(word: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(word) && !/(?:ll|ss)$/.test(word) ? word.slice(0, -1) : word;
}

interface Indexed {
  id: string;
  /** Term frequency per field, by field position. */
  fields: Array<Map<string, number>>;
  /** Token count per field, by field position. */
  lengths: number[];
}

export class Bm25Index {
  readonly #documents: Indexed[] = [];
  /** How many documents hold each term. */
  readonly #frequency = new Map<string, number>();
  /** Weight and average token count of each field, by position. */
  readonly #fields: Array<{ weight: number; average: number }> = [];

  constructor(documents: readonly Bm25Document[]) {
    const totals: number[] = [];
    for (const document of documents) {
      const indexed: Indexed = { id: document.id, fields: [], lengths: [] };
      const seen = new Set<string>();
      document.fields.forEach((field, position) => {
        const terms = new Map<string, number>();
        const tokens = field.tokens ?? tokenize(field.text);
        for (const token of tokens) {
          terms.set(token, (terms.get(token) ?? 0) + 1);
          seen.add(token);
        }
        indexed.fields.push(terms);
        indexed.lengths.push(tokens.length);
        totals[position] = (totals[position] ?? 0) + tokens.length;
        this.#fields[position] ??= { weight: field.weight, average: 0 };
      });
      for (const term of seen) this.#frequency.set(term, (this.#frequency.get(term) ?? 0) + 1);
      this.#documents.push(indexed);
    }
    this.#fields.forEach((field, position) => {
      field.average = documents.length > 0 ? (totals[position] ?? 0) / documents.length : 0;
    });
  }

  get size(): number {
    return this.#documents.length;
  }

  /** Whether any document has the term (a token as `tokenize` makes it). */
  has(term: string): boolean {
    return this.#frequency.has(term);
  }

  /**
   * The documents that match the query, best first (`accept` filters them before `limit`
   * applies). A query of stop words only, or of words no document has, matches nothing.
   */
  search(query: string, limit: number, accept: (id: string) => boolean = () => true): Bm25Hit[] {
    return this.searchTerms(new Map(tokenize(query).map((term) => [term, 1])), limit, accept);
  }

  /**
   * As `search`, for terms that count differently (a synonym less than the word asked). With
   * `groups` (each term's group: the word asked it stands for), a document's score is scaled by
   * the share of groups it matches, so one that matches every word asked beats one that matches
   * a single word strongly.
   */
  searchTerms(
    query: ReadonlyMap<string, number>,
    limit: number,
    accept: (id: string) => boolean = () => true,
    groups?: ReadonlyMap<string, number>,
  ): Bm25Hit[] {
    const terms = [...query.entries()];
    const groupCount = groups ? new Set(groups.values()).size : 0;
    const count = this.#documents.length;
    const weights = terms.map(([term, boost]) => {
      const holding = this.#frequency.get(term) ?? 0;
      return holding === 0 ? 0 : boost * Math.log(1 + (count - holding + 0.5) / (holding + 0.5));
    });
    const hits: Array<Bm25Hit & { order: number }> = [];
    this.#documents.forEach((document, order) => {
      let score = 0;
      const matched = new Set<number>();
      terms.forEach(([term], index) => {
        // BM25F: the field-weighted, field-normalized frequency, saturated once.
        let frequency = 0;
        document.fields.forEach((field, position) => {
          const count = field.get(term);
          const info = this.#fields[position];
          if (count === undefined || !info) return;
          const norm = 1 - B + (B * (document.lengths[position] ?? 0)) / (info.average || 1);
          frequency += (info.weight * count) / norm;
        });
        if (frequency > 0) {
          score += ((weights[index] ?? 0) * frequency * (K1 + 1)) / (frequency + K1);
          const group = groups?.get(term);
          if (group !== undefined) matched.add(group);
        }
      });
      if (groupCount > 0) score *= matched.size / groupCount;
      if (score > 0 && accept(document.id)) hits.push({ id: document.id, score, order });
    });
    hits.sort((left, right) => right.score - left.score || left.order - right.order);
    return hits.slice(0, limit).map(({ id, score }) => ({ id, score }));
  }
}
