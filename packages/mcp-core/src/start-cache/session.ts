/**
 * The start cache inside the real stdio server (see front.ts for the launcher's side and
 * docs/decisions/0016-start-cache.md). Without a front (a miss) it watches the opening exchange
 * and, once the server has answered the first `tools/list` of a fresh connection, writes the
 * entry. After a front it drops the answers to the replayed `initialize` and the verifying
 * `tools/list`, compares them with what the front answered, rewrites a stale entry and tells
 * the client `notifications/tools/list_changed` when its listing was stale.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import {
  type JSONRPCMessage,
  type McpServer,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import { writePrivateFile } from '../private-file.js';
import {
  type ContentCheck,
  ENTRIES_PER_BIN,
  ENTRY_FORMAT,
  HANDOVER_KEY,
  SENTINEL_SUFFIXES,
  type StartCacheEntry,
  type StartCacheHandover,
  type StatCheck,
} from './shared.js';

/** The 2026 era has no `initialize`; the SDK negotiates `initialize` among the versions before it. */
const FIRST_MODERN_PROTOCOL_VERSION = '2026-07-28';
/** More packages than this in the dependency closure: no entry (the check would cost too much). */
const MAX_PACKAGES = 400;
const MAX_FILES = 4000;
/** Files Node may load from a package's dist directory. */
const LOADED = /\.(js|mjs|cjs|json|node|wasm)$/;
/** Messages that cannot change what `tools/list` answers. */
const READ_ONLY_METHODS = new Set([
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/roots/list_changed',
  'ping',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
]);

/** Takes the launcher's hand-over, if there is one (once: a second server in the process gets none). */
export function takeHandover(): StartCacheHandover | undefined {
  const global = globalThis as Record<symbol, unknown>;
  const handover = global[HANDOVER_KEY] as StartCacheHandover | undefined;
  delete global[HANDOVER_KEY];
  return handover;
}

export interface StartCacheOptions {
  handover: StartCacheHandover;
  /** Files the served listing depends on besides the program (config files); relative to the cwd. */
  files?: readonly string[];
  /** False: read the hand-over, but write no entry (the bin or its mode opts out). */
  write?: boolean;
  logger: Logger;
}

type Id = string | number;
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const isResponse = (message: JSONRPCMessage): message is JSONRPCMessage & { id: Id } =>
  !('method' in message) && 'id' in message;

export class StartCacheSession {
  readonly #handover: StartCacheHandover;
  readonly #files: readonly string[];
  readonly #write: boolean;
  readonly #logger: Logger;
  readonly #programStat: string | undefined;
  #server: McpServer | undefined;
  /** Miss: the opening exchange seen so far. */
  #initializeId: Id | undefined;
  #requestedVersion: string | undefined;
  #initializeResult: string | undefined;
  #toolsListId: Id | undefined;
  /** No entry from this connection (something besides the opening exchange happened first). */
  #settled = false;
  /** Hit: the answers to the sentinel requests. */
  #realInitialize: unknown;
  #realToolsList: unknown;

  constructor(options: StartCacheOptions) {
    this.#handover = options.handover;
    this.#files = (options.files ?? []).map((file) => resolve(file));
    this.#write = options.write ?? true;
    this.#logger = options.logger;
    this.#programStat = statKey(options.handover.program);
    if (!this.#write && !options.handover.front) this.#settled = true;
  }

  /** What the real server reads before stdin. */
  get prelude(): Buffer | undefined {
    return this.#handover.prelude;
  }

  /** The server of this connection (for `notifications/tools/list_changed`). */
  attach(server: McpServer): void {
    this.#server = server;
  }

  /** Every message read, before the server sees it. */
  inbound(message: JSONRPCMessage): void {
    if (this.#settled || this.#handover.front || this.#toolsListId !== undefined) return;
    const { id, method, params } = message as { id?: Id; method?: string; params?: Record<string, unknown> };
    if (method === 'initialize' && id !== undefined && this.#initializeId === undefined) {
      const meta = params?._meta;
      const version = params?.protocolVersion;
      // A 2026-era envelope (no initialize handshake) is not what the front serves.
      if (meta === undefined && typeof version === 'string') {
        this.#initializeId = id;
        this.#requestedVersion = version;
        return;
      }
    } else if (method !== undefined && READ_ONLY_METHODS.has(method)) {
      return;
    } else if (
      method === 'tools/list' &&
      id !== undefined &&
      this.#initializeId !== undefined &&
      (params === undefined || Object.keys(params).length === 0)
    ) {
      this.#toolsListId = id;
      return;
    }
    // Anything else before the listing may change it (enable_toolset …): no entry this time.
    this.#settled = true;
  }

  /** Every message about to be written; false drops it (the answers to the sentinel requests). */
  outbound(message: JSONRPCMessage): boolean {
    const front = this.#handover.front;
    if (
      front &&
      isResponse(message) &&
      typeof message.id === 'string' &&
      message.id.startsWith(front.sentinelId)
    ) {
      const error = 'error' in message;
      if (message.id === `${front.sentinelId}${SENTINEL_SUFFIXES.initialize}`) {
        this.#realInitialize = error ? null : (message as { result: unknown }).result;
      } else if (message.id === `${front.sentinelId}${SENTINEL_SUFFIXES.toolsList}`) {
        this.#realToolsList = error ? null : (message as { result: unknown }).result;
      }
      if (this.#realInitialize !== undefined && this.#realToolsList !== undefined) {
        void this.#verify().catch((cause: unknown) =>
          this.#logger.warn('start cache: could not check the entry', { error: cause }),
        );
      }
      return false;
    }
    if (this.#settled || front) return true;
    if (!isResponse(message)) {
      // A notification before the listing (tools changed already): not a fresh start's listing.
      if ('method' in message) this.#settled = true;
      return true;
    }
    if (message.id === this.#initializeId && this.#initializeResult === undefined) {
      if ('error' in message) this.#settled = true;
      else this.#initializeResult = JSON.stringify((message as { result: unknown }).result);
    } else if (message.id === this.#toolsListId) {
      this.#settled = true;
      const result = (message as { result?: { nextCursor?: unknown } }).result;
      if (result && result.nextCursor === undefined && this.#initializeResult !== undefined) {
        const requested = this.#requestedVersion as string;
        const tail = initializeTail(this.#initializeResult, negotiate(requested));
        if (tail === undefined) {
          this.#logger.debug('start cache: the initialize result is not in the expected form; no entry');
        } else {
          this.#schedule(tail, JSON.stringify(result), 'written');
        }
      }
    }
    return true;
  }

  async #verify(): Promise<void> {
    const front = this.#handover.front;
    if (!front) return;
    if (this.#realInitialize === null || this.#realToolsList === null) {
      // The server refused what the front accepted: never again from this entry.
      this.#logger.warn('start cache: the server refused the replayed opening; the entry is deleted');
      try {
        unlinkSync(this.#handover.entryPath);
      } catch {}
      return;
    }
    const initialize = JSON.stringify(this.#realInitialize);
    const toolsList = JSON.stringify(this.#realToolsList);
    const tail = initializeTail(initialize, front.protocolVersion);
    const { entry } = front;
    const staleList = toolsList !== entry.toolsList;
    const staleInitialize = tail !== entry.initialize;
    const staleVersions = JSON.stringify(legacyVersions()) !== JSON.stringify(entry.protocolVersions);
    if (!staleList && !staleInitialize && !staleVersions) {
      this.#logger.debug('start cache: the entry matches the server');
      return;
    }
    this.#logger.warn(
      `start cache: the entry was stale (${[staleInitialize && 'initialize', staleList && 'tools/list', staleVersions && 'protocol versions'].filter(Boolean).join(', ')}); rewriting it`,
    );
    if (staleList && front.answeredToolsList) {
      const capabilities = (this.#realInitialize as { capabilities?: { tools?: { listChanged?: boolean } } })
        .capabilities;
      if (capabilities?.tools?.listChanged) await this.#server?.sendToolListChanged();
    }
    if (tail !== undefined && this.#write) this.#schedule(tail, toolsList, 'rewritten');
  }

  #schedule(initialize: string, toolsList: string, what: string): void {
    // After the answer is on its way: the entry is for the next start, not this one.
    setImmediate(() => {
      this.#writeEntry(initialize, toolsList).then(
        (written) => {
          if (written) this.#logger.debug(`start cache: entry ${what} (${this.#handover.entryPath})`);
        },
        (error: unknown) => this.#logger.debug('start cache: no entry written', { error }),
      );
    });
  }

  async #writeEntry(initialize: string, toolsList: string): Promise<boolean> {
    const handover = this.#handover;
    // Rebuilt while serving: what was served is not what the files now hold.
    if (statKey(handover.program) !== this.#programStat) return false;
    const identity = programIdentity(handover);
    if (!identity) return false;
    const contents: ContentCheck[] = [...identity.contents, ...this.#files.map((file) => contentCheck(file))];
    const entry: StartCacheEntry = {
      format: ENTRY_FORMAT,
      key: handover.key,
      files: identity.files,
      contents,
      protocolVersions: legacyVersions(),
      initialize,
      toolsList,
    };
    await writePrivateFile(handover.entryPath, JSON.stringify(entry));
    prune(handover.dir);
    return true;
  }
}

/** The SDK's versions for `initialize`, preferred first. */
export function legacyVersions(): string[] {
  return SUPPORTED_PROTOCOL_VERSIONS.filter((version) => version < FIRST_MODERN_PROTOCOL_VERSION);
}

function negotiate(requested: string): string {
  const versions = legacyVersions();
  return versions.includes(requested) ? requested : (versions[0] as string);
}

/** The result text after `{"protocolVersion":"<version>",`, or undefined when it does not start so. */
function initializeTail(text: string, version: string): string | undefined {
  const prefix = `{"protocolVersion":${JSON.stringify(version)},`;
  return text.startsWith(prefix) && text.length > prefix.length + 1 ? text.slice(prefix.length) : undefined;
}

function statKey(path: string): string | undefined {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats ? `${stats.size}:${stats.mtimeMs}` : undefined;
}

function contentCheck(path: string): ContentCheck {
  try {
    return [path, sha256(readFileSync(path))];
  } catch {
    return [path, null];
  }
}

/**
 * What the program is made of: the launcher, every file of the bundle's directory, and for each
 * package in the dependency closure of the bin's package its package.json (so its version) and,
 * for a package outside node_modules (a workspace build), every file of its dist directory.
 * Undefined when the closure is too large to check at each start.
 */
export function programIdentity(
  handover: Pick<StartCacheHandover, 'launcher' | 'program'>,
): { files: StatCheck[]; contents: ContentCheck[] } | undefined {
  const files: StatCheck[] = [];
  const stat = (path: string) => {
    const stats = statSync(path);
    files.push([path, stats.size, stats.mtimeMs]);
    return stats;
  };
  // Only what Node loads: type declarations and source maps do not change what the server answers.
  const walk = (dir: string, all = false) => {
    stat(dir);
    for (const item of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, item.name);
      if (item.isDirectory()) walk(path, all);
      else if (item.isFile() && (all || LOADED.test(item.name))) stat(path);
    }
  };
  stat(handover.launcher);
  walk(dirname(handover.program), true);
  const root = packageRoot(dirname(handover.launcher));
  if (!root) return undefined;
  const contents: ContentCheck[] = [];
  const checked = new Set<string>();
  const seen = new Set<string>();
  // Each package by the path Node finds it under (a symlink in pnpm's layout: an upgrade
  // re-points it, so the check reads the new package.json), then on from its real directory.
  const queue: { link: string; dir: string }[] = [{ link: root, dir: root }];
  while (queue.length > 0) {
    const { link, dir } = queue.shift() as { link: string; dir: string };
    const manifestPath = join(link, 'package.json');
    const text = readFileSync(manifestPath);
    if (!checked.has(manifestPath)) {
      checked.add(manifestPath);
      contents.push([manifestPath, sha256(text)]);
    }
    if (seen.has(dir)) continue;
    seen.add(dir);
    if (seen.size > MAX_PACKAGES) return undefined;
    const manifest = JSON.parse(text.toString('utf8')) as Record<string, Record<string, unknown> | undefined>;
    if (!dir.includes(`${sep}node_modules${sep}`)) {
      const dist = join(dir, 'dist');
      if (statSync(dist, { throwIfNoEntry: false })?.isDirectory()) walk(dist);
    }
    const optionalPeers = manifest.peerDependenciesMeta ?? {};
    const names = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.optionalDependencies ?? {}),
      // Optional peers (test kits, tracing) are what the package may use, not what it needs.
      ...Object.keys(manifest.peerDependencies ?? {}).filter(
        (name) => (optionalPeers[name] as { optional?: boolean } | undefined)?.optional !== true,
      ),
    ]);
    for (const name of names) {
      const found = findPackage(name, dir);
      if (found) queue.push(found);
    }
  }
  if (files.length > MAX_FILES) return undefined;
  return { files, contents };
}

function packageRoot(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (statSync(join(dir, 'package.json'), { throwIfNoEntry: false })?.isFile()) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Where Node would find package `name` from `dir` (node_modules up the tree), and its real path. */
function findPackage(name: string, dir: string): { link: string; dir: string } | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const candidate = join(at, 'node_modules', name);
    if (statSync(join(candidate, 'package.json'), { throwIfNoEntry: false })?.isFile()) {
      return { link: candidate, dir: realpathSync(candidate) };
    }
    if (dirname(at) === at) return undefined;
  }
}

/** Keeps the newest ENTRIES_PER_BIN entries of a bin. */
function prune(dir: string): void {
  const entries = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => {
      const path = join(dir, name);
      return { path, mtime: statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0 };
    })
    .sort((a, b) => b.mtime - a.mtime);
  for (const { path } of entries.slice(ENTRIES_PER_BIN)) {
    try {
      unlinkSync(path);
    } catch {}
  }
}
