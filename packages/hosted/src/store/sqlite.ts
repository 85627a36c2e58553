import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, mkdir, open } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ConfigError, InternalError, McpToolError } from '@x/mcp-core';
import { StoreUnavailableError } from '../errors.js';
import type { KvEntry, KvLock, KvSetOptions, KvStore, KvWatcher } from './kv.js';
import { checkKey, checkMembers, checkSet, checkTtl } from './validate.js';

export interface SqliteStoreOptions {
  /**
   * Milliseconds a write waits for another connection's write to finish (SQLite's
   * `busy_timeout`) before it fails as unavailable. Default 5000.
   */
  busyTimeoutMs?: number;
  /**
   * A write is followed by a sweep of expired rows at most this often (milliseconds), and
   * again at once while the last sweep found more than it may delete. Default 1000.
   */
  sweepIntervalMs?: number;
  /**
   * How often a watched store looks whether another process (an admin command, a second
   * server) changed the file (`PRAGMA data_version`), milliseconds. Default 25.
   */
  watchIntervalMs?: number;
}

/** The schema this code writes (`PRAGMA user_version`); a newer file is refused. */
const SCHEMA_VERSION = 1;
const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
INSERT OR IGNORE INTO meta (name, value) VALUES ('seq', 0);
CREATE TABLE IF NOT EXISTS records (
  key TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL,
  version INTEGER NOT NULL,
  expires_at INTEGER
);
CREATE INDEX IF NOT EXISTS records_expiry ON records (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS sets (key TEXT PRIMARY KEY NOT NULL, expires_at INTEGER) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sets_expiry ON sets (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS set_members (
  key TEXT NOT NULL,
  member TEXT NOT NULL,
  PRIMARY KEY (key, member)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS locks (
  key TEXT PRIMARY KEY NOT NULL,
  owner TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** At most this many expired rows of each kind are swept in one go. */
const SWEEP_LIMIT = 500;

/** SQLite result codes (the low byte of `errcode`) that mean a bug here, not an unusable store. */
const PROGRAMMING_ERRORS = new Set([
  1, // SQLITE_ERROR: SQL error
  19, // SQLITE_CONSTRAINT
  20, // SQLITE_MISMATCH
  21, // SQLITE_MISUSE
  25, // SQLITE_RANGE: a bad parameter index
]);
const SQLITE_NOTADB = 26;
const SQLITE_CORRUPT = 11;

interface SqliteError extends Error {
  code: 'ERR_SQLITE_ERROR';
  errcode: number;
  errstr: string;
}

function isSqliteError(error: unknown): error is SqliteError {
  return error instanceof Error && (error as Partial<SqliteError>).code === 'ERR_SQLITE_ERROR';
}

let sqliteModule: Promise<typeof import('node:sqlite')> | undefined;

/**
 * Loads `node:sqlite`. On Node 22 it prints "ExperimentalWarning: SQLite is an experimental
 * feature" once, when it loads: that one warning is dropped here (the module is what this
 * store is built on, the operator cannot act on it); every other warning passes through.
 */
export function loadSqlite(): Promise<typeof import('node:sqlite')> {
  sqliteModule ??= (async () => {
    const emitWarning = process.emitWarning;
    process.emitWarning = function filtered(this: NodeJS.Process, warning: string | Error, ...rest: never[]) {
      const options = rest[0] as unknown;
      const type = typeof options === 'string' ? options : (options as { type?: string } | undefined)?.type;
      const message = typeof warning === 'string' ? warning : warning.message;
      const name = typeof warning === 'string' ? type : warning.name;
      if (name === 'ExperimentalWarning' && message.startsWith('SQLite is an experimental feature')) return;
      return emitWarning.call(process, warning, ...rest);
    } as typeof process.emitWarning;
    try {
      return await import('node:sqlite');
    } catch (error) {
      sqliteModule = undefined;
      throw new ConfigError(
        `The sqlite store needs node:sqlite (Node.js 22.13 or newer); this is Node.js ${process.versions.node}.`,
        { cause: error },
      );
    } finally {
      process.emitWarning = emitWarning;
    }
  })();
  return sqliteModule;
}

type Row = Record<string, unknown>;

/**
 * The `sqlite:<path>` driver: one SQLite database file through Node's built-in `node:sqlite`,
 * one row per record, for one server (and the admin commands next to it). WAL mode and a busy
 * timeout let several processes share the file; every read-modify-write is one statement or
 * one `BEGIN IMMEDIATE` transaction, so they see exactly one winner. A write resolves once it
 * is in the write-ahead log (`synchronous = NORMAL`: it survives the process, not necessarily
 * a power loss; docs/decisions/0018-sqlite-store.md). Values are stored as the
 * callers give them (`SealedRecords` seals secrets before they get here). The file and its
 * `-wal` / `-shm` companions are 0600; a directory this creates is 0700.
 */
export class SqliteStore implements KvStore {
  readonly driver = 'sqlite' as const;
  /** The absolute path of the database file. */
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #sql: ReturnType<typeof prepare>;
  readonly #sweepIntervalMs: number;
  readonly #watchIntervalMs: number;
  readonly #watchers = new Set<KvWatcher>();
  #watchTimer: NodeJS.Timeout | undefined;
  #closed = false;
  #lastSweep = 0;
  #sweepAgain = false;

  private constructor(path: string, db: DatabaseSync, sweepIntervalMs: number, watchIntervalMs: number) {
    this.path = path;
    this.#db = db;
    this.#sql = prepare(db);
    this.#sweepIntervalMs = sweepIntervalMs;
    this.#watchIntervalMs = watchIntervalMs;
  }

  /** Opens (creating when absent) the database at `path`; a path that cannot be used is a `ConfigError`. */
  static async open(path: string, options: SqliteStoreOptions = {}): Promise<SqliteStore> {
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    checkTtl(busyTimeoutMs, 'busyTimeoutMs');
    const sweepIntervalMs = options.sweepIntervalMs ?? 1000;
    checkTtl(sweepIntervalMs, 'sweepIntervalMs');
    const file = resolve(path);
    await preparePrivateFile(file);
    const { DatabaseSync } = await loadSqlite();
    let db: DatabaseSync | undefined;
    try {
      db = new DatabaseSync(file);
      // The pragma rather than the constructor's `timeout` option, which Node 22.13 does not have.
      db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
      const mode = db.prepare('PRAGMA journal_mode = WAL').get()?.journal_mode;
      if (mode !== 'wal')
        throw new ConfigError(`The sqlite store ${file} cannot use WAL mode (got ${mode}).`);
      // WAL + NORMAL: a commit survives a crash of this process; only a power loss or an OS
      // crash may undo the last commits (never corrupts). FULL would fsync on every write, and
      // node:sqlite is synchronous: ~5 ms of a blocked event loop per write on a virtual disk.
      db.exec('PRAGMA synchronous = NORMAL');
      db.exec('BEGIN IMMEDIATE');
      const version = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
      if (version > SCHEMA_VERSION) {
        throw new ConfigError(
          `The sqlite store ${file} was written by a newer version (schema ${version}); this one reads schema ${SCHEMA_VERSION}.`,
        );
      }
      db.exec(SCHEMA);
      if (version < SCHEMA_VERSION) db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
      db.exec('COMMIT');
      // SQLite gives -wal and -shm the database file's mode; an older pair is tightened too.
      await Promise.all(
        ['-wal', '-shm'].map((suffix) =>
          chmod(file + suffix, 0o600).catch((error: NodeJS.ErrnoException) => {
            if (error.code !== 'ENOENT') throw error;
          }),
        ),
      );
      return new SqliteStore(file, db, sweepIntervalMs, options.watchIntervalMs ?? 25);
    } catch (error) {
      try {
        if (db?.isTransaction) db.exec('ROLLBACK');
        db?.close();
      } catch {
        // The open failed already; that error is the one to report.
      }
      if (McpToolError.isInstance(error)) throw error;
      const corrupt = isSqliteError(error) && [SQLITE_CORRUPT, SQLITE_NOTADB].includes(error.errcode & 0xff);
      throw new ConfigError(
        `The sqlite store ${file} cannot be opened: ${describe(error)}${corrupt ? ' (it is not a SQLite database, or it is corrupt: restore it from a backup)' : ''}.`,
        { cause: error },
      );
    }
  }

  async get(key: string): Promise<KvEntry | undefined> {
    checkKey(key);
    return this.#run(() => toEntry(this.#sql.get.get(key, Date.now())));
  }

  async getMany(keys: readonly string[]): Promise<Array<KvEntry | undefined>> {
    for (const key of keys) checkKey(key);
    if (keys.length === 0) return [];
    return this.#run(() =>
      this.#transaction('BEGIN', () => {
        const now = Date.now();
        return keys.map((key) => toEntry(this.#sql.get.get(key, now)));
      }),
    );
  }

  async set(key: string, value: string, options: KvSetOptions = {}): Promise<number | undefined> {
    checkSet(key, value, options);
    const { ifVersion, ttlMs } = options;
    return this.#write(
      () =>
        this.#transaction('BEGIN IMMEDIATE', () => {
          const now = Date.now();
          if (ifVersion !== undefined) {
            const current = this.#sql.version.get(key, now)?.version ?? 0;
            if (current !== ifVersion) return undefined;
          }
          const version = this.#nextVersion();
          this.#sql.upsert.run(key, value, version, ttlMs === undefined ? null : now + ttlMs);
          return version;
        }),
      (version) => version !== undefined && this.#notify(key),
    );
  }

  async delete(key: string): Promise<boolean> {
    checkKey(key);
    return this.#write(
      () => live(this.#sql.delete.get(key), Date.now()) !== undefined,
      (existed) => existed && this.#notify(key),
    );
  }

  async consume(key: string): Promise<string | undefined> {
    checkKey(key);
    return this.#write(
      () => live(this.#sql.delete.get(key), Date.now())?.value as string | undefined,
      (value) => value !== undefined && this.#notify(key),
    );
  }

  async lock(key: string, ttlMs: number): Promise<KvLock | undefined> {
    checkKey(key);
    checkTtl(ttlMs);
    const owner = randomUUID();
    const taken = await this.#write(() => {
      const now = Date.now();
      return this.#sql.lock.get(key, owner, now + ttlMs, now) !== undefined;
    });
    if (!taken) return undefined;
    return {
      key,
      owner,
      release: () => this.#run(() => Number(this.#sql.unlock.run(key, owner, Date.now()).changes) === 1),
    };
  }

  async sadd(key: string, members: readonly string[], options: { ttlMs?: number } = {}): Promise<void> {
    checkKey(key);
    checkMembers(members);
    if (options.ttlMs !== undefined) checkTtl(options.ttlMs);
    this.#assertOpen();
    if (members.length === 0) return;
    const { ttlMs } = options;
    await this.#write(() =>
      this.#transaction('BEGIN IMMEDIATE', () => {
        const now = Date.now();
        const until = ttlMs === undefined ? null : now + ttlMs;
        const set = this.#liveSet(key, now);
        if (!set) this.#sql.setCreate.run(key, until);
        else if (until === null) {
          if (set.expires_at !== null) this.#sql.setExpiry.run(null, key);
        } else if (set.expires_at !== null && (set.expires_at as number) < until) {
          this.#sql.setExpiry.run(until, key);
        }
        for (const member of members) this.#sql.memberAdd.run(key, member);
      }),
    );
  }

  async srem(key: string, members: readonly string[]): Promise<void> {
    checkKey(key);
    checkMembers(members);
    this.#assertOpen();
    if (members.length === 0) return;
    await this.#write(() =>
      this.#transaction('BEGIN IMMEDIATE', () => {
        if (!this.#liveSet(key, Date.now())) return;
        for (const member of members) this.#sql.memberRemove.run(key, member);
        if (this.#sql.memberAny.get(key) === undefined) this.#sql.setDelete.run(key);
      }),
    );
  }

  async smembers(key: string): Promise<string[]> {
    checkKey(key);
    return this.#run(() => this.#sql.members.all(key, Date.now()).map((row) => row.member as string));
  }

  async keys(prefix: string): Promise<string[]> {
    return this.#run(() => this.#sql.keys.all(prefix, Date.now()).map((row) => row.key as string));
  }

  /**
   * Writes through this store are reported in the writer's call. Another connection's writes
   * (an admin command, another server on the same file) cannot be told key by key: SQLite's
   * `data_version`, looked at every `watchIntervalMs`, says the file changed, and that is
   * reported as `lost()` then `live()` (everything read before is dropped).
   */
  async watch(watcher: KvWatcher): Promise<() => Promise<void>> {
    this.#assertOpen();
    this.#watchers.add(watcher);
    if (!this.#watchTimer) {
      const version = this.#db.prepare('PRAGMA data_version');
      let seen = version.get()?.data_version;
      this.#watchTimer = setInterval(() => {
        let now: typeof seen;
        try {
          now = version.get()?.data_version;
        } catch {
          return;
        }
        if (now === seen) return;
        seen = now;
        for (const each of this.#watchers) {
          each.lost();
          each.live();
        }
      }, this.#watchIntervalMs);
      this.#watchTimer.unref();
    }
    watcher.live();
    return async () => {
      this.#watchers.delete(watcher);
      if (this.#watchers.size === 0 && this.#watchTimer) {
        clearInterval(this.#watchTimer);
        this.#watchTimer = undefined;
      }
    };
  }

  #notify(key: string): void {
    for (const watcher of this.#watchers) watcher.changed(key);
  }

  async ping(): Promise<void> {
    await this.#run(() => this.#sql.ping.get());
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#watchTimer) clearInterval(this.#watchTimer);
    this.#watchTimer = undefined;
    this.#watchers.clear();
    try {
      this.#db.close();
    } catch {
      // Closing releases the file either way; nothing to report to a caller that is done with it.
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreUnavailableError(`The sqlite store ${this.path} is closed.`);
  }

  /** Runs one operation, mapping SQLite failures to the store's errors. */
  #run<T>(operation: () => T): Promise<T> {
    this.#assertOpen();
    try {
      return Promise.resolve(operation());
    } catch (error) {
      return Promise.reject(this.#failure(error));
    }
  }

  /** A write, reported to watchers (`written`), then (now and then) a bounded sweep of expired rows. */
  async #write<T>(operation: () => T, written?: (result: T) => unknown): Promise<T> {
    const result = await this.#run(operation);
    written?.(result);
    const now = Date.now();
    if (this.#sweepAgain || now - this.#lastSweep >= this.#sweepIntervalMs) {
      this.#lastSweep = now;
      try {
        this.#sweepAgain = this.#transaction('BEGIN IMMEDIATE', () => this.#sweep(now));
      } catch {
        // The write itself succeeded; a sweep that could not run now runs after a later write.
        this.#sweepAgain = false;
      }
    }
    return result;
  }

  /** Deletes up to SWEEP_LIMIT expired rows of each kind; true when there may be more. */
  #sweep(now: number): boolean {
    const records = Number(this.#sql.sweepRecords.run(now, SWEEP_LIMIT).changes);
    const locks = Number(this.#sql.sweepLocks.run(now, SWEEP_LIMIT).changes);
    const sets = this.#sql.expiredSets.all(now, SWEEP_LIMIT);
    for (const { key } of sets) {
      this.#sql.membersDelete.run(key as string);
      this.#sql.setDelete.run(key as string);
    }
    return records === SWEEP_LIMIT || locks === SWEEP_LIMIT || sets.length === SWEEP_LIMIT;
  }

  #transaction<T>(begin: 'BEGIN' | 'BEGIN IMMEDIATE', body: () => T): T {
    this.#db.exec(begin);
    try {
      const result = body();
      this.#db.exec('COMMIT');
      return result;
    } catch (error) {
      if (this.#db.isTransaction) {
        try {
          this.#db.exec('ROLLBACK');
        } catch {
          // SQLite rolls back by itself after some errors; the original error is what matters.
        }
      }
      throw error;
    }
  }

  #nextVersion(): number {
    return this.#sql.nextVersion.get()?.value as number;
  }

  /** The set's row when it is live; an expired one is removed (inside the caller's transaction). */
  #liveSet(key: string, now: number): Row | undefined {
    const set = this.#sql.set.get(key);
    if (!set) return undefined;
    if (set.expires_at !== null && (set.expires_at as number) <= now) {
      this.#sql.membersDelete.run(key);
      this.#sql.setDelete.run(key);
      return undefined;
    }
    return set;
  }

  #failure(error: unknown): unknown {
    if (!isSqliteError(error)) return error;
    const code = error.errcode & 0xff;
    if (PROGRAMMING_ERRORS.has(code)) {
      return new InternalError(`SQLite refused a store command: ${error.message}`, { cause: error });
    }
    const what =
      code === SQLITE_CORRUPT || code === SQLITE_NOTADB
        ? 'is corrupt (restore it from a backup)'
        : 'is unavailable';
    return new StoreUnavailableError(`The sqlite store ${this.path} ${what} (${describe(error)}).`, {
      cause: error,
    });
  }
}

function prepare(db: DatabaseSync) {
  const statement = (sql: string): StatementSync => db.prepare(sql);
  const isLive = '(expires_at IS NULL OR expires_at > ?2)';
  return {
    get: statement(`SELECT value, version, expires_at FROM records WHERE key = ?1 AND ${isLive}`),
    version: statement(`SELECT version FROM records WHERE key = ?1 AND ${isLive}`),
    nextVersion: statement(`UPDATE meta SET value = value + 1 WHERE name = 'seq' RETURNING value`),
    upsert: statement(
      `INSERT INTO records (key, value, version, expires_at) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, version = excluded.version, expires_at = excluded.expires_at`,
    ),
    // The row (if any) is deleted either way; whether it was live is decided from expires_at.
    delete: statement('DELETE FROM records WHERE key = ?1 RETURNING value, expires_at'),
    // Inserted, or taken over from a lapsed holder; no row back when a live holder has it.
    lock: statement(
      `INSERT INTO locks (key, owner, expires_at) VALUES (?1, ?2, ?3)
       ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
       WHERE locks.expires_at <= ?4
       RETURNING owner`,
    ),
    unlock: statement('DELETE FROM locks WHERE key = ?1 AND owner = ?2 AND expires_at > ?3'),
    set: statement('SELECT expires_at FROM sets WHERE key = ?1'),
    setCreate: statement('INSERT INTO sets (key, expires_at) VALUES (?1, ?2)'),
    setExpiry: statement('UPDATE sets SET expires_at = ?1 WHERE key = ?2'),
    setDelete: statement('DELETE FROM sets WHERE key = ?1'),
    memberAdd: statement('INSERT OR IGNORE INTO set_members (key, member) VALUES (?1, ?2)'),
    memberRemove: statement('DELETE FROM set_members WHERE key = ?1 AND member = ?2'),
    memberAny: statement('SELECT 1 FROM set_members WHERE key = ?1 LIMIT 1'),
    membersDelete: statement('DELETE FROM set_members WHERE key = ?1'),
    members: statement(
      `SELECT m.member FROM set_members m JOIN sets s ON s.key = m.key
       WHERE m.key = ?1 AND (s.expires_at IS NULL OR s.expires_at > ?2)`,
    ),
    // `key >= prefix` lets the primary key index skip what sorts before the prefix.
    keys: statement(
      `SELECT key FROM records
       WHERE key >= ?1 AND substr(key, 1, length(?1)) = ?1 AND ${isLive}`,
    ),
    ping: statement(`SELECT value FROM meta WHERE name = 'seq'`),
    sweepRecords: statement(
      `DELETE FROM records WHERE key IN
       (SELECT key FROM records WHERE expires_at IS NOT NULL AND expires_at <= ?1 LIMIT ?2)`,
    ),
    sweepLocks: statement(
      'DELETE FROM locks WHERE key IN (SELECT key FROM locks WHERE expires_at <= ?1 LIMIT ?2)',
    ),
    expiredSets: statement('SELECT key FROM sets WHERE expires_at IS NOT NULL AND expires_at <= ?1 LIMIT ?2'),
  };
}

function toEntry(row: Row | undefined): KvEntry | undefined {
  if (!row) return undefined;
  const entry = { value: row.value as string, version: row.version as number };
  return row.expires_at === null ? entry : { ...entry, expiresAt: row.expires_at as number };
}

function live(row: Row | undefined, now: number): Row | undefined {
  return row && (row.expires_at === null || (row.expires_at as number) > now) ? row : undefined;
}

function describe(error: unknown): string {
  if (isSqliteError(error))
    return error.message === error.errstr ? error.errstr : `${error.errstr}: ${error.message}`;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code ? `${code}` : String((error as Error | undefined)?.message ?? error);
}

/**
 * Makes sure the database file exists as a regular 0600 file before SQLite opens it (SQLite
 * would create it 0644 minus the umask, and gives -wal and -shm the same mode), in a directory
 * created 0700 when it is missing. An existing directory keeps its mode.
 */
async function preparePrivateFile(file: string): Promise<void> {
  const directory = dirname(file);
  try {
    const created = await mkdir(directory, { recursive: true, mode: 0o700 });
    if (created !== undefined) await chmod(directory, 0o700);
  } catch (error) {
    throw new ConfigError(`The sqlite store directory ${directory} cannot be created (${describe(error)}).`, {
      cause: error,
    });
  }
  try {
    const handle = await open(
      file,
      constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      0o600,
    );
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTFILE' });
      if ((stats.mode & 0o777) !== 0o600) await handle.chmod(0o600);
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'EISDIR'
        ? 'it is a directory; name a file, e.g. sqlite:/var/lib/x-mcp/store.db'
        : code === 'ELOOP'
          ? 'it is a symbolic link'
          : code === 'ENOTFILE'
            ? 'it is not a regular file'
            : `it cannot be opened for writing (${code ?? describe(error)})`;
    throw new ConfigError(`The sqlite store ${file} cannot be used: ${reason}.`, { cause: error });
  }
}
