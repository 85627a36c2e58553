import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError, NotFoundError, toolRef, UpstreamError } from '@x/mcp-core';
import { PROJECTS_FILE } from '../paths.js';
import { type LockOptions, withLock } from './lock.js';
import {
  applyChanges,
  createProject,
  isProjectEntry,
  isRecord,
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

/**
 * A project that another program rewrote after this store last wrote it: typically the desktop
 * app, which saves the whole form of the project open in it (see the package README).
 */
export interface OutsideChange {
  projectId: string;
  name: string;
  /** `updatedAt` as we wrote it. */
  ourUpdatedAt: string;
  /** `updatedAt` as stored now. */
  updatedAt: string;
  /** The fields we wrote (`customData.recentEvents`, `slice`, ...) that no longer hold our value. */
  undone: string[];
}

/** What this store last wrote into one project: its `updatedAt` and each field's value, as JSON. */
interface OwnWrite {
  updatedAt: string;
  values: Map<string, string | undefined>;
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
  readonly #ownWrites = new Map<string, OwnWrite>();

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
    return this.#mutate(
      (entries) => {
        const project = createProject(input);
        return { entries: [...entries, project], result: project };
      },
      (project) => this.#remember(project, input),
    );
  }

  async update(id: string, changes: ProjectChanges): Promise<Project> {
    return (await this.updateReporting(id, changes)).project;
  }

  /**
   * `update`, also telling whether another program rewrote the project since this store last
   * wrote it (found in the version read under the lock, right before this write).
   */
  async updateReporting(
    id: string,
    changes: ProjectChanges,
  ): Promise<{ project: Project; outsideChange: OutsideChange | undefined }> {
    let outsideChange: OutsideChange | undefined;
    const project = await this.#mutate(
      (entries) => {
        const index = entries.findIndex((entry) => isProjectEntry(entry) && entry.id === id);
        const current = findProject(projectsOf(entries), id);
        outsideChange ??= this.#outsideChange(current);
        const updated = applyChanges(current, changes);
        const next = [...entries];
        next[index] = updated;
        return { entries: next, result: updated };
      },
      (updated) => this.#remember(updated, changes),
    );
    return { project, outsideChange };
  }

  /**
   * Whether `project` (as just read) was rewritten by another program since this store last wrote
   * it: `updatedAt` moved, or a value we wrote is gone. Each outside change is reported once.
   */
  takeOutsideChange(project: Project): OutsideChange | undefined {
    const change = this.#outsideChange(project);
    if (change) this.#ownWrites.delete(project.id);
    return change;
  }

  #outsideChange(project: Project): OutsideChange | undefined {
    const own = this.#ownWrites.get(project.id);
    if (!own) return undefined;
    const undone = [...own.values]
      .filter(([field, json]) => jsonOf(fieldValue(project, field)) !== json)
      .map(([field]) => field);
    if (project.updatedAt === own.updatedAt && undone.length === 0) return undefined;
    return {
      projectId: project.id,
      name: project.name,
      ourUpdatedAt: own.updatedAt,
      updatedAt: project.updatedAt,
      undone,
    };
  }

  /** Remembers the fields this write set, as stored, to notice later when they are undone. */
  #remember(project: Project, changes: ProjectChanges): void {
    const values = new Map<string, string | undefined>();
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      if (key === 'customData' && isRecord(value)) {
        for (const [inner, innerValue] of Object.entries(value)) {
          if (innerValue === undefined) continue;
          const field = `customData.${inner}`;
          values.set(field, jsonOf(fieldValue(project, field)));
        }
      } else {
        values.set(key, jsonOf(project[key]));
      }
    }
    this.#ownWrites.set(project.id, { updatedAt: project.updatedAt, values });
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
        await copyReplacing(`${source}.backup`, this.backupFile).catch(() => undefined);
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

  /** Applies `change` under the lock; `written` runs still under the lock, once the file holds the result. */
  async #mutate<T>(
    change: (entries: unknown[]) => { entries: unknown[]; result: T },
    written: (result: T) => void,
  ): Promise<T> {
    await mkdir(this.dataDir, { recursive: true });
    return this.#withLock(async () => {
      for (let attempt = 1; ; attempt++) {
        const before = await this.#recover();
        const { entries, result } = change(before.entries);
        checkWriteGuard(before.entries.length, entries.length);
        const text = JSON.stringify(entries, null, 2);
        // The app takes no lock: if it replaced the file since we read it, start over from its version.
        const replaced = await replaceFile(this.file, text, {
          backupFile: this.backupFile,
          expectIdentity: before.identity,
        });
        if (replaced) {
          written(result);
          return result;
        }
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

const jsonOf = (value: unknown): string | undefined => JSON.stringify(value);

/** `name` or `customData.name` of a project. */
function fieldValue(project: Project, field: string): unknown {
  if (field.startsWith('customData.')) return project.customData[field.slice('customData.'.length)];
  return project[field];
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

/** A temp file beside `path` that no other writer (or a planted symlink) can share. */
const tempPathFor = (path: string) => `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;

/**
 * Copies `source` over `destination` the way `projects.json` itself is written: into a fresh temp
 * file, fsynced, then renamed. A reader never sees `destination` empty or half written, and a
 * symlink at `destination` is replaced, never written through.
 */
async function copyReplacing(source: string, destination: string): Promise<void> {
  const temp = tempPathFor(destination);
  try {
    await copyFile(source, temp, constants.COPYFILE_EXCL);
    const handle = await open(temp, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, destination);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/**
 * Replaces `path` with `text` the app's way, made crash-safe: copy the current file to the backup
 * (itself replaced atomically), write and fsync a temp file, check that what reached the disk
 * parses, then rename it over the file. With `expectIdentity`, returns false (writing nothing) if
 * the file is no longer the one read.
 */
async function replaceFile(
  path: string,
  text: string,
  options: { backupFile?: string; expectIdentity?: string | undefined } = {},
): Promise<boolean> {
  const temp = tempPathFor(path);
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
      await copyReplacing(path, options.backupFile);
    }
    await rename(temp, path);
    return true;
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}
