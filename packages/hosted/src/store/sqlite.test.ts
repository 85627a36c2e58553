import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, open, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startProcess } from '@x/mcp-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../errors.js';
import { CachedStore } from './cached.js';
import { runKvConformance } from './conformance.js';
import { createStore } from './create.js';
import type { KvStore } from './kv.js';
import { loadSqlite, SqliteStore, type SqliteStoreOptions } from './sqlite.js';

const { DatabaseSync } = await loadSqlite();

const roots: string[] = [];
const stores: KvStore[] = [];
async function freshFile(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'x-sqlite-store-'));
  roots.push(root);
  return join(root, 'state', 'store.db');
}
async function openAt(path: string, options: SqliteStoreOptions = {}): Promise<SqliteStore> {
  const store = await SqliteStore.open(path, options);
  stores.push(store);
  return store;
}
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
});
/** The error a call rejected with (or undefined when it resolved). */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );
/** Counts rows in the file directly, expired ones included. */
function rawCount(path: string, table: 'records' | 'sets' | 'locks'): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return Number(db.prepare(`SELECT count(*) AS n FROM ${table}`).get()?.n);
  } finally {
    db.close();
  }
}

/** Writes a record that expired a minute ago, behind the store's back. */
function expireNow(path: string, key: string): void {
  const db = new DatabaseSync(path);
  try {
    db.prepare('INSERT INTO records (key, value, version, expires_at) VALUES (?, ?, ?, ?)').run(
      key,
      'expired',
      9_000_000,
      Date.now() - 60_000,
    );
  } finally {
    db.close();
  }
}

let current = '';
runKvConformance('sqlite:', {
  open: async () => {
    current = await freshFile();
    return createStore(`sqlite:${current}`);
  },
  // Another connection on the same file: what a second process (an admin command) is.
  openSecond: () => createStore(`sqlite:${current}`),
});

describe('sqlite:', () => {
  it('keeps records, versions, TTLs and sets across a reopen; the version counter continues', async () => {
    const path = await freshFile();
    const store = await openAt(path);
    expect(store.driver).toBe('sqlite');
    const version = (await store.set('conn:u1:basecamp', 'kept')) as number;
    await store.set('ticket:t', 'long', { ttlMs: 60_000 });
    await store.set('pending:s', 'short', { ttlMs: 1 });
    await store.sadd('oidc:idx:account:u1', ['g1', 'g2']);
    await store.close();
    await new Promise((resolve) => setTimeout(resolve, 10)); // past the 1 ms TTL

    const again = await openAt(path);
    expect(await again.get('conn:u1:basecamp')).toEqual({ value: 'kept', version });
    expect((await again.get('ticket:t'))?.expiresAt).toEqual(expect.any(Number));
    expect(await again.get('pending:s')).toBeUndefined();
    expect((await again.smembers('oidc:idx:account:u1')).sort()).toEqual(['g1', 'g2']);
    expect(await again.set('new', 'x')).toBeGreaterThan(version + 2);
  });

  it('sweeps expired rows after writes, a bounded number at a time', async () => {
    const path = await freshFile();
    const store = await openAt(path);
    const db = new DatabaseSync(path);
    try {
      // 1,200 records, 3 sets and a lock that expired a minute ago, written behind the store's back.
      const past = Date.now() - 60_000;
      db.exec('BEGIN');
      const insert = db.prepare('INSERT INTO records (key, value, version, expires_at) VALUES (?, ?, ?, ?)');
      for (let i = 0; i < 1200; i++) insert.run(`interaction:${i}`, 'sealed', 1_000_000 + i, past);
      for (let i = 0; i < 3; i++) {
        db.prepare('INSERT INTO sets (key, expires_at) VALUES (?, ?)').run(`idx:${i}`, past);
        db.prepare('INSERT INTO set_members (key, member) VALUES (?, ?)').run(`idx:${i}`, 'm');
      }
      db.prepare('INSERT INTO locks (key, owner, expires_at) VALUES (?, ?, ?)').run('refresh:x', 'o', past);
      db.exec('COMMIT');
    } finally {
      db.close();
    }
    expect(await store.keys('interaction:')).toEqual([]);
    expect(rawCount(path, 'records')).toBe(1200);

    // A new instance sweeps on its first write; a full sweep makes the next write sweep again.
    const sweeper = await openAt(path, { sweepIntervalMs: 3_600_000 });
    await sweeper.set('live', 'x');
    expect(rawCount(path, 'records')).toBe(1201 - 500);
    expect(rawCount(path, 'sets')).toBe(0);
    expect(rawCount(path, 'locks')).toBe(0);
    await sweeper.set('live', 'y');
    expect(rawCount(path, 'records')).toBe(1201 - 1000);
    await sweeper.delete('nothing');
    expect(rawCount(path, 'records')).toBe(1);
    // That sweep was not full: within the interval the next writes do not sweep.
    expireNow(path, 'gone');
    await sweeper.set('other', 'w');
    expect(rawCount(path, 'records')).toBe(3);
    expect(await sweeper.get('gone')).toBeUndefined();
  });

  it('creates a 0700 directory and a 0600 file, -wal and -shm; tightens an existing looser file', async () => {
    const path = await freshFile();
    const store = await openAt(path);
    await store.set('k', 'v');
    expect((await stat(join(path, '..'))).mode & 0o777).toBe(0o700);
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      expect((await stat(file)).mode & 0o777, file).toBe(0o600);
    }
    await store.close();

    const loose = join(await mkdtemp(join(tmpdir(), 'x-sqlite-loose-')), 'store.db');
    roots.push(join(loose, '..'));
    await writeFile(loose, '', { mode: 0o644 });
    await chmod(loose, 0o644);
    const tightened = await openAt(loose);
    await tightened.set('k', 'v');
    for (const file of [loose, `${loose}-wal`, `${loose}-shm`]) {
      expect((await stat(file)).mode & 0o777, file).toBe(0o600);
    }
    // An existing directory keeps its mode (it may be shared, e.g. the working directory).
    expect((await stat(join(loose, '..'))).mode & 0o777).toBe(0o700);
  });

  it('a file that is not a database, or a damaged one, is a clear typed error', async () => {
    const path = await freshFile();
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, 'this is not a database\n'.repeat(200));
    await expect(SqliteStore.open(path)).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringMatching(/cannot be opened: file is not a database.*restore it from a backup/),
    });

    // Damaged pages behind a valid header: a call that meets them is unavailable and says why;
    // opening the damaged file afterwards is refused.
    await rm(path);
    const writer = await openAt(path);
    for (let i = 0; i < 400; i++) await writer.sadd('idx', [`member-${i}-${'x'.repeat(200)}`]);
    await writer.close();
    const reader = await openAt(path);
    const handle = await open(path, 'r+');
    try {
      const { size } = await handle.stat();
      expect(size).toBeGreaterThan(8 * 4096);
      await handle.write(Buffer.alloc(size - 4096, 0xa5), 0, size - 4096, 4096);
    } finally {
      await handle.close();
    }
    const error = await failure(reader.smembers('idx'));
    expect(StoreUnavailableError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/is corrupt \(restore it from a backup\)/);
    await expect(SqliteStore.open(path)).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringMatching(/malformed.*it is corrupt: restore it from a backup/),
    });
  });

  it('a path that cannot hold the file is a ConfigError saying why', async () => {
    const path = await freshFile();
    await mkdir(path, { recursive: true });
    await expect(SqliteStore.open(path)).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringContaining('it is a directory'),
    });
    const blocker = join(path, 'plain-file');
    await writeFile(blocker, 'x');
    await expect(SqliteStore.open(join(blocker, 'store.db'))).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringMatching(/directory .* cannot be created \((ENOTDIR|EEXIST)\)/),
    });
    const link = join(path, 'link.db');
    await symlink(join(path, 'target.db'), link);
    await expect(SqliteStore.open(link)).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringContaining('symbolic link'),
    });
    expect(existsSync(join(path, 'target.db'))).toBe(false);
  });

  it('while another connection holds the write lock, writes wait, then fail as unavailable; reads go on', async () => {
    const path = await freshFile();
    const store = await openAt(path, { busyTimeoutMs: 100 });
    await store.set('k', 'before');
    const other = new DatabaseSync(path);
    try {
      other.exec('BEGIN IMMEDIATE');
      const error = await failure(store.set('k', 'during'));
      expect(StoreUnavailableError.isInstance(error), String(error)).toBe(true);
      expect(error).toMatchObject({ retryable: true, message: expect.stringContaining('is unavailable') });
      expect(await failure(store.consume('k'))).toSatisfy(StoreUnavailableError.isInstance);
      expect((await store.get('k'))?.value).toBe('before');
      other.exec('ROLLBACK');
    } finally {
      other.close();
    }
    expect(await store.set('k', 'after')).toEqual(expect.any(Number));
    expect((await store.get('k'))?.value).toBe('after');
  });

  it('createStore: sqlite:<path> (relative paths resolved, sqlite:/// too), sqlite: alone and file: are ConfigErrors', async () => {
    const path = await freshFile();
    const store = await createStore(`sqlite:${relative(process.cwd(), path)}`);
    stores.push(store);
    expect(store).toBeInstanceOf(SqliteStore);
    expect((store as SqliteStore).path).toBe(path);
    const again = await createStore(`sqlite://${path}`);
    stores.push(again);
    expect((again as SqliteStore).path).toBe(path);
    const configError = (message: RegExp) =>
      expect.objectContaining({ name: 'ConfigError', message: expect.stringMatching(message) });
    await expect(createStore('sqlite:')).rejects.toEqual(
      configError(/"sqlite:" needs a file path: sqlite:<path>/),
    );
    await expect(createStore('sqlite:  ')).rejects.toEqual(configError(/sqlite:<path>/));
    await expect(createStore('sqlite://host/x.db')).rejects.toEqual(
      configError(/names a host; use sqlite:<path>/),
    );
    await expect(createStore('file:/var/lib/x-mcp')).rejects.toEqual(configError(/use sqlite:<path>/));
    await expect(createStore('file:///var/lib/x-mcp')).rejects.toEqual(configError(/use sqlite:<path>/));
  });
});

// Two processes on one file (a server and an admin command): the child runs the built package
// (`pnpm build` first, as for the other tests that spawn a bin).
const dist = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const CHILD = `
import { createInterface } from 'node:readline';
const { SqliteStore } = await import(process.env.STORE_MODULE);
const store = await SqliteStore.open(process.env.STORE_FILE);
process.emitWarning('a warning that is not about SQLite', 'ExperimentalWarning');
process.stdout.write('ready\\n');
for await (const line of createInterface({ input: process.stdin })) if (line === 'go') break;
const { contend } = await import('data:text/javascript,' + encodeURIComponent(process.env.CONTEND));
process.stdout.write(JSON.stringify(await contend(store, 'child', 'parent')) + '\\n');
await store.close();
`;
const ROUNDS = 40;
/**
 * What each process runs at once, the same code in both. Each round, both read the counter and
 * meet at a barrier (a record each writes, then waits for the other's) before either writes, so
 * both compare-and-set from the same version, then both consume the same code and take the same
 * lock: every round is a real race between the two processes, with exactly one winner each.
 */
const CONTEND = `export async function contend(store, who, other) {
  const meet = async (step) => {
    await store.set(step + ':' + who, '1');
    while ((await store.get(step + ':' + other)) === undefined) await new Promise((go) => setImmediate(go));
  };
  const won = [], consumed = [], locked = [];
  for (let i = 0; i < ${ROUNDS}; i++) {
    const entry = await store.get('counter');
    await meet('read:' + i);
    const next = String(Number(entry.value) + 1);
    if ((await store.set('counter', next, { ifVersion: entry.version })) !== undefined) won.push(i);
    if ((await store.consume('code:' + i)) !== undefined) consumed.push(i);
    if ((await store.lock('refresh:' + i, 60000)) !== undefined) locked.push(i);
    await meet('done:' + i);
  }
  return { won, consumed, locked };
}`;

describe('sqlite: two processes on one file', () => {
  it('CAS, consume and lock have exactly one winner across processes; only the SQLite warning is hidden', async () => {
    const path = await freshFile();
    const store = await openAt(path);
    await store.set('counter', '0');
    for (let i = 0; i < ROUNDS; i++) await store.set(`code:${i}`, `payload-${i}`, { ttlMs: 60_000 });
    const child = startProcess({
      command: process.execPath,
      args: ['--input-type=module', '-e', CHILD],
      env: { STORE_MODULE: pathToFileURL(dist).href, STORE_FILE: path, CONTEND },
    });
    try {
      // Both start together: the child says it is ready, then gets "go".
      await new Promise<void>((resolve, reject) => {
        child.child.stdout.on('data', () => {
          if (child.stdout().includes('ready\n')) resolve();
        });
        child.exited.then(() => reject(new Error(`child exited early: ${child.stderr()}`)));
      });
      const { contend } = (await import(`data:text/javascript,${encodeURIComponent(CONTEND)}`)) as {
        contend: (
          store: KvStore,
          who: string,
          other: string,
        ) => Promise<{ won: number[]; consumed: number[]; locked: number[] }>;
      };
      child.child.stdin.end('go\n');
      const mine = await contend(store, 'parent', 'child');
      expect(await child.exited, child.stderr()).toBe(0);
      const theirs = JSON.parse(child.stdout().split('\n')[1] as string) as typeof mine;

      // One increment per round: the loser's compare-and-set wrote nothing.
      expect((await store.get('counter'))?.value).toBe(String(ROUNDS));
      const all = Array.from({ length: ROUNDS }, (_, i) => i);
      expect([...mine.won, ...theirs.won].sort((a, b) => a - b)).toEqual(all);
      expect([...mine.consumed, ...theirs.consumed].sort((a, b) => a - b)).toEqual(all);
      expect([...mine.locked, ...theirs.locked].sort((a, b) => a - b)).toEqual(all);
      expect(child.stderr()).toContain('a warning that is not about SQLite');
      expect(child.stderr()).not.toContain('SQLite is an experimental feature');
    } finally {
      await child.stop();
    }
    // The file is a valid database after both closed (no -wal left to replay by hand).
    await store.close();
    expect(await readFile(path)).toSatisfy(
      (bytes: Buffer) => bytes.subarray(0, 15).toString() === 'SQLite format 3',
    );
  });
});

describe('sqlite: watch (the replica cache on one file)', () => {
  it('reports its own writes by key, and another connection’s as everything changed', async () => {
    const path = await freshFile();
    const [server, admin] = [await openAt(path), await openAt(path)];
    try {
      const cached = await CachedStore.over(server, { prefixes: ['grant:'] });
      await server.set('grant:1', 'g1');
      expect((await cached.get('grant:1'))?.value).toBe('g1');
      expect((cached as CachedStore).size).toBe(1);
      // `users revoke` from an admin process: another connection deletes the grant.
      await admin.delete('grant:1');
      const deadline = Date.now() + 5_000;
      while ((await cached.get('grant:1')) !== undefined && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(await cached.get('grant:1')).toBeUndefined();
      // A write through this store drops the copy in the writer's own call.
      await server.set('grant:2', 'a');
      expect((await cached.get('grant:2'))?.value).toBe('a');
      await server.set('grant:2', 'b');
      expect((await cached.get('grant:2'))?.value).toBe('b');
      await cached.close();
    } finally {
      await Promise.all([server.close(), admin.close()]);
    }
  });
});
