import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError, NotFoundError, toolRef, UpstreamError } from '@x/mcp-core';
import { PROJECTS_FILE } from '../paths.js';
import { type LockOptions, withLock } from './lock.js';
import {
  applyChanges,
  createProject,
  isProjectEntry,
  type NewProject,
  type Project,
  type ProjectChanges,
  withReadDefaults,
} from './project.js';

export interface ProjectStoreOptions {
  /** The directory holding `projects.json` (see `resolveDataDir`). */
  dataDir: string;
  /**
   * Where an older app version kept the file (macOS). When `dataDir` has no `projects.json` yet,
   * the first write copies it from there, as the app does.
   */
  legacyDir?: string;
  lock?: LockOptions;
}

/** The file as read: its entries (projects and anything else, kept verbatim) and its identity. */
interface Snapshot {
  entries: unknown[];
  /** `undefined` when there is no file yet. */
  identity: string | undefined;
}

/** How often a write starts over because another writer without our lock (the app) changed the file. */
const MAX_WRITE_ATTEMPTS = 5;

/**
 * `projects.json` shared with the desktop app. Reads never write except to restore the main
 * file from its backup. Writes take the store lock, re-read, and replace the file the way the
 * app does (backup, temp file, parse check, rename), with the app's write guard.
 */
export class ProjectStore {
  readonly dataDir: string;
  readonly file: string;
  readonly backupFile: string;
  readonly #lockFile: string;
  readonly #legacyDir: string | undefined;
  readonly #lockOptions: LockOptions;

  constructor({ dataDir, legacyDir, lock = {} }: ProjectStoreOptions) {
    this.dataDir = dataDir;
    this.file = join(dataDir, PROJECTS_FILE);
    this.backupFile = `${this.file}.backup`;
    this.#lockFile = `${this.file}.lock`;
    this.#legacyDir = legacyDir;
    this.#lockOptions = lock;
  }

  async list(): Promise<Project[]> {
    return projectsOf((await this.#read()).entries);
  }

  async get(id: string): Promise<Project> {
    const projects = await this.list();
    return findProject(projects, id);
  }

  async create(input: NewProject): Promise<Project> {
    return this.#mutate((entries) => {
      const project = createProject(input);
      return { entries: [...entries, project], result: project };
    });
  }

  async update(id: string, changes: ProjectChanges): Promise<Project> {
    return this.#mutate((entries) => {
      const index = entries.findIndex((entry) => isProjectEntry(entry) && entry.id === id);
      const updated = applyChanges(findProject(projectsOf(entries), id), changes);
      const next = [...entries];
      next[index] = updated;
      return { entries: next, result: updated };
    });
  }

  /** Reads the file; a missing or corrupt main file is restored from the backup, under the lock. */
  async #read(): Promise<Snapshot> {
    const main = await readEntries(this.file);
    if (main.ok) return main.snapshot;
    const nothingToRecover =
      main.problem === MISSING && !(await exists(this.backupFile)) && !(await this.#legacyFile());
    if (nothingToRecover) return { entries: [], identity: undefined };
    await mkdir(this.dataDir, { recursive: true });
    return this.#withLock(() => this.#recover());
  }

  async #recover(): Promise<Snapshot> {
    const main = await readEntries(this.file); // another process may have repaired it meanwhile
    if (main.ok) return main.snapshot;
    const backup = await readEntries(this.backupFile);
    const source = backup.ok
      ? this.backupFile
      : main.problem === MISSING
        ? await this.#legacyFile()
        : undefined;
    if (source === undefined && main.problem === MISSING) return { entries: [], identity: undefined };
    if (source !== undefined) {
      await replaceFile(this.file, await readFile(source, 'utf8'));
      if (source !== this.backupFile)
        await copyFile(`${source}.backup`, this.backupFile).catch(() => undefined);
      const restored = await readEntries(this.file);
      if (restored.ok) return restored.snapshot;
    }
    throw new UpstreamError(
      `${this.file} ${main.problem}, and ${this.backupFile} ${backup.ok ? 'could not be restored' : backup.problem}. Nothing was changed. ` +
        'Repair the file or restore it from a copy; the Context Forge app cannot read it either.',
      { retryable: false, details: { file: this.file } },
    );
  }

  /** The legacy file to migrate from, when there is a readable one (macOS, older app versions). */
  async #legacyFile(): Promise<string | undefined> {
    if (!this.#legacyDir) return undefined;
    const legacy = join(this.#legacyDir, PROJECTS_FILE);
    return (await readEntries(legacy)).ok ? legacy : undefined;
  }

  async #mutate<T>(change: (entries: unknown[]) => { entries: unknown[]; result: T }): Promise<T> {
    await mkdir(this.dataDir, { recursive: true });
    return this.#withLock(async () => {
      for (let attempt = 1; ; attempt++) {
        const before = await this.#recover();
        const { entries, result } = change(before.entries);
        checkWriteGuard(before.entries.length, entries.length);
        const text = JSON.stringify(entries, null, 2);
        // The app takes no lock: if it replaced the file since we read it, start over from its version.
        const written = await replaceFile(this.file, text, {
          backupFile: this.backupFile,
          expectIdentity: before.identity,
        });
        if (written) return result;
        if (attempt >= MAX_WRITE_ATTEMPTS) {
          throw new ConflictError(
            `${this.file} kept changing while we wrote it (another program writes it without a lock). Try again.`,
            { retryable: true },
          );
        }
      }
    });
  }

  #withLock<T>(fn: () => Promise<T>): Promise<T> {
    return withLock(this.#lockFile, fn, this.#lockOptions);
  }
}

const projectsOf = (entries: unknown[]): Project[] => entries.filter(isProjectEntry).map(withReadDefaults);

function findProject(projects: Project[], id: string): Project {
  const project = projects.find((candidate) => candidate.id === id);
  if (project) return project;
  throw new NotFoundError(
    `Project not found: '${id}'. Use the ${toolRef('project_list')} tool to see available projects and their IDs.`,
    { details: { candidates: projects.slice(0, 10).map((p) => `${p.id} (${p.name})`) } },
  );
}

/** The app's guard against catastrophic loss: never replace more than 2 projects by 1 or none. */
export function checkWriteGuard(before: number, after: number): void {
  if (before > 2 && after <= 1) {
    throw new ConflictError(
      `Refusing to replace ${before} projects with ${after}: that looks like data loss. Nothing was written.`,
    );
  }
}

const MISSING = 'does not exist';

type ReadResult =
  | { ok: true; snapshot: Snapshot }
  | { ok: false; problem: typeof MISSING | 'is not valid JSON' | 'does not hold a JSON array' };

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

async function readEntries(path: string): Promise<ReadResult> {
  let text: string;
  let identity: string;
  try {
    const handle = await open(path, 'r');
    try {
      identity = identityOf(await handle.stat({ bigint: true }));
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, problem: MISSING };
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'is not valid JSON' };
  }
  if (!Array.isArray(parsed)) return { ok: false, problem: 'does not hold a JSON array' };
  return { ok: true, snapshot: { entries: parsed, identity } };
}

/** Inode, size and modification time in ns: any replacement or in-place edit changes one of them. */
const identityOf = (info: { ino: bigint; size: bigint; mtimeNs: bigint }) =>
  `${info.ino}:${info.size}:${info.mtimeNs}`;

async function currentIdentity(path: string): Promise<string | undefined> {
  try {
    return identityOf(await stat(path, { bigint: true }));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Replaces `path` with `text` the app's way, made crash-safe: copy the current file to the backup,
 * write and fsync a temp file, check that what reached the disk parses, then rename it over the
 * file. With `expectIdentity`, returns false (writing nothing) if the file is no longer the one read.
 */
async function replaceFile(
  path: string,
  text: string,
  options: { backupFile?: string; expectIdentity?: string | undefined } = {},
): Promise<boolean> {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o644);
  try {
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    JSON.parse(await readFile(temp, 'utf8'));
    if ('expectIdentity' in options && (await currentIdentity(path)) !== options.expectIdentity) {
      await unlink(temp);
      return false;
    }
    if (options.backupFile && options.expectIdentity !== undefined) {
      await copyFile(path, options.backupFile);
    }
    await rename(temp, path);
    return true;
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}
