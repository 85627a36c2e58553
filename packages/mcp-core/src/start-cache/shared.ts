/**
 * What the bin launcher's front (front.ts, Node built-ins only) and the core's stdio serving
 * (entry.ts) share about the start cache: the entry format and the hand-over between them.
 * Types and constants only, so the launcher stays free of the SDK and zod.
 */

/** Bumped whenever the entry layout or its meaning changes: an entry of another format is a miss. */
export const ENTRY_FORMAT = 1;

/** Entries kept per bin (the oldest beyond it are deleted after a write). */
export const ENTRIES_PER_BIN = 16;

/** Where the launcher leaves the hand-over for the core (a global: the core may be another copy). */
export const HANDOVER_KEY = Symbol.for('@x/mcp-core/start-cache');

/** A file checked by size and modification time. */
export type StatCheck = [path: string, size: number, mtimeMs: number];
/** A file checked by its content (SHA-256, hex), or `null` where the file must not exist. */
export type ContentCheck = [path: string, sha256: string | null];

/** One cache entry, `<cache dir>/<bin id>/<key>.json`. */
export interface StartCacheEntry {
  format: typeof ENTRY_FORMAT;
  /** The key the entry was written under (its file name). */
  key: string;
  /** The program: launcher, bundle chunks, the dist files of local packages. */
  files: StatCheck[];
  /** package.json of the bin and every dependency (their versions), and the config files read. */
  contents: ContentCheck[];
  /** The 2025-era protocol versions the SDK negotiates in `initialize`, preferred first. */
  protocolVersions: string[];
  /** The `initialize` result as the server writes it, without its leading `"protocolVersion":…,`. */
  initialize: string;
  /** The `tools/list` result (no cursor) as the server writes it. */
  toolsList: string;
}

/** What the launcher hands to the core's stdio serving (`globalThis[HANDOVER_KEY]`). */
export interface StartCacheHandover {
  /** The entry file for this key (written on a miss, rewritten when stale). */
  entryPath: string;
  /** The directory of this bin's entries (pruned to ENTRIES_PER_BIN). */
  dir: string;
  key: string;
  /** dist/bin.js (the launcher) and dist/bin/main.js (the program), real paths. */
  launcher: string;
  program: string;
  /**
   * The input the front read, for the real server to read first (before what is still unread on
   * stdin). With `front`: the client's `initialize` under the sentinel id,
   * `notifications/initialized` when the client sent it, a `tools/list` under the sentinel id,
   * then every line the front did not answer, in order. Without: the raw input.
   */
  prelude?: Buffer;
  /** Set when the front answered the client from an entry before the program loaded. */
  front?: FrontHandover;
}

export interface FrontHandover {
  /** The entry the front answered from. */
  entry: StartCacheEntry;
  /** The id of the replayed `initialize` and of the verifying `tools/list`; their answers are dropped. */
  sentinelId: string;
  /** The version the front negotiated; whether it also answered `tools/list` from the entry. */
  protocolVersion: string;
  answeredToolsList: boolean;
}

export const SENTINEL_SUFFIXES = { initialize: ':initialize', toolsList: ':tools/list' } as const;
