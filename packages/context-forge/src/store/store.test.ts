import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { McpToolError, toolRef } from '@x/mcp-core';
import { describe, expect, it } from 'vitest';
import { legacyDataDir, resolveDataDir } from '../paths.js';
import { fingerprint, pollJson, readJson, tempDir } from '../test-helpers.js';
import { withLock } from './lock.js';
import { checkWriteGuard, ProjectStore } from './project-store.js';

const appProject = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: `name of ${id}`,
  template: 'default',
  slice: '100-slice.core',
  taskFile: '',
  instruction: 'implementation',
  isMonorepo: false,
  customData: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});

async function storeWith(content: unknown | string, backup?: unknown | string) {
  const dataDir = await tempDir();
  const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  if (content !== undefined) await writeFile(join(dataDir, 'projects.json'), text(content));
  if (backup !== undefined) await writeFile(join(dataDir, 'projects.json.backup'), text(backup));
  return { dataDir, store: new ProjectStore({ dataDir }), file: join(dataDir, 'projects.json') };
}

const errorOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!McpToolError.isInstance(error)) throw new Error(`expected an McpToolError, got ${String(error)}`);
  return error;
};

describe('the data directory', () => {
  it('follows CONTEXT_FORGE_DATA_DIR, else the per-OS config directory of the app', () => {
    const home = '/home/ada';
    expect(resolveDataDir({ env: { CONTEXT_FORGE_DATA_DIR: '/srv/cf' }, platform: 'linux', home })).toBe(
      '/srv/cf',
    );
    expect(resolveDataDir({ env: {}, platform: 'linux', home })).toBe('/home/ada/.config/context-forge');
    expect(resolveDataDir({ env: { XDG_CONFIG_HOME: '/xdg' }, platform: 'linux', home })).toBe(
      '/xdg/context-forge',
    );
    expect(resolveDataDir({ env: {}, platform: 'darwin', home })).toBe(
      '/home/ada/Library/Preferences/context-forge',
    );
    expect(
      resolveDataDir({ env: { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, platform: 'win32', home }),
    ).toBe('C:\\Users\\ada\\AppData\\Roaming\\context-forge\\Config');
    expect(legacyDataDir({ platform: 'darwin', home })).toBe(
      '/home/ada/Library/Application Support/context-forge/context-forge',
    );
    expect(legacyDataDir({ platform: 'linux', home })).toBeUndefined();
  });
});

describe('reading projects.json', () => {
  it('is an empty store when there is no file, and creates nothing', async () => {
    const dataDir = join(await tempDir(), 'not-yet');
    const store = new ProjectStore({ dataDir });
    expect(await store.list()).toEqual([]);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('applies the app’s read defaults to fields older files lack', async () => {
    const { store } = await storeWith([
      { id: 'p1', name: 'old', template: 't', slice: 's', customData: 'junk' },
    ]);
    expect(await store.get('p1')).toEqual({
      id: 'p1',
      name: 'old',
      template: 't',
      slice: 's',
      taskFile: '',
      instruction: 'implementation',
      isMonorepo: false,
      customData: {},
    });
  });

  it('restores a corrupt main file from the backup', async () => {
    const backup = [appProject('p1'), appProject('p2')];
    const { store, file } = await storeWith('{"truncated": [', backup);
    expect((await store.list()).map((project) => project.id)).toEqual(['p1', 'p2']);
    expect(await readJson(file)).toEqual(backup);
  });

  it('restores a missing main file from the backup', async () => {
    const { store, file } = await storeWith(undefined, [appProject('p1')]);
    expect((await store.list()).map((project) => project.id)).toEqual(['p1']);
    expect(await readJson(file)).toEqual([appProject('p1')]);
  });

  it('reports a corrupt file without a valid backup clearly and leaves both untouched', async () => {
    const { store, file, dataDir } = await storeWith('[{"id": "p1", ', 'also broken');
    const before = await fingerprint(file);
    const backupBefore = await fingerprint(`${file}.backup`);
    const error = await errorOf(store.list());
    expect(error.code).toBe('UPSTREAM_ERROR');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain(`${file} is not valid JSON`);
    expect(error.message).toContain('projects.json.backup is not valid JSON');
    expect(error.message).toContain('Nothing was changed');
    expect((await errorOf(store.update('p1', { name: 'x' }))).code).toBe('UPSTREAM_ERROR');
    expect((await errorOf(store.create({ name: 'n', template: 't', slice: 's' }))).code).toBe(
      'UPSTREAM_ERROR',
    );
    expect(await fingerprint(file)).toBe(before);
    expect(await fingerprint(`${file}.backup`)).toBe(backupBefore);
    expect((await readdir(dataDir)).sort()).toEqual(['projects.json', 'projects.json.backup']);
  });

  it('refuses a file that is JSON but not an array instead of writing over it', async () => {
    const { store, file } = await storeWith({ projects: [appProject('p1')] });
    const before = await fingerprint(file);
    const error = await errorOf(store.create({ name: 'n', template: 't', slice: 's' }));
    expect(error.message).toContain('does not hold a JSON array');
    expect(await fingerprint(file)).toBe(before);
  });

  it('copies the file from the legacy macOS location once, as the app does', async () => {
    const legacyDir = await tempDir();
    await writeFile(join(legacyDir, 'projects.json'), JSON.stringify([appProject('old')]));
    await writeFile(join(legacyDir, 'projects.json.backup'), '[]');
    const dataDir = join(await tempDir(), 'new');
    const store = new ProjectStore({ dataDir, legacyDir });
    expect((await store.list()).map((project) => project.id)).toEqual(['old']);
    expect(await readJson(join(dataDir, 'projects.json'))).toEqual([appProject('old')]);
    expect(await readFile(join(dataDir, 'projects.json.backup'), 'utf8')).toBe('[]');
  });
});

describe('writing projects.json', () => {
  it('creates projects in the app’s format: id, defaults, ISO timestamps, a pretty-printed bare array', async () => {
    const { store, file } = await storeWith(undefined);
    const created = await store.create({ name: 'alpha', template: 'default', slice: '' });
    expect(created.id).toMatch(/^project_\d{13}_[0-9a-z]{9}$/);
    expect(created).toMatchObject({
      taskFile: '',
      instruction: 'implementation',
      isMonorepo: false,
      customData: {},
    });
    expect(created.createdAt).toBe(created.updatedAt);
    expect(new Date(created.createdAt).toISOString()).toBe(created.createdAt);
    expect(await readFile(file, 'utf8')).toBe(JSON.stringify([created], null, 2));
  });

  it('keeps fields it does not know, untouched projects and non-project entries', async () => {
    const future = appProject('p1', { pinned: true, customData: { recentEvents: 'r', colour: 'teal' } });
    const other = appProject('p2', { archived: { at: '2026-02-02' } });
    const { store, file } = await storeWith([future, other, 'a stray string']);
    const updated = await store.update('p1', {
      slice: '110-slice.next',
      customData: { additionalNotes: 'n' },
    });
    expect(updated).toMatchObject({
      pinned: true,
      slice: '110-slice.next',
      customData: { recentEvents: 'r', colour: 'teal', additionalNotes: 'n' },
    });
    const stored = (await readJson(file)) as unknown[];
    expect(stored[0]).toEqual(updated);
    expect(stored[1]).toEqual(other);
    expect(stored[2]).toBe('a stray string');
    expect(updated.updatedAt > future.updatedAt).toBe(true);
  });

  it('keeps the previous version as projects.json.backup and leaves no temp files', async () => {
    const { store, file, dataDir } = await storeWith([appProject('p1')]);
    const before = await readFile(file, 'utf8');
    await store.update('p1', { name: 'renamed' });
    expect(await readFile(`${file}.backup`, 'utf8')).toBe(before);
    expect((await readdir(dataDir)).sort()).toEqual(['projects.json', 'projects.json.backup']);
  });

  it('replaces a symlinked projects.json.backup instead of writing through it', async () => {
    const { store, file, dataDir } = await storeWith([appProject('p1')]);
    const outside = join(await tempDir(), 'elsewhere.txt');
    await writeFile(outside, 'not yours');
    await symlink(outside, `${file}.backup`);
    const before = await readFile(file, 'utf8');
    await store.update('p1', { name: 'renamed' });
    expect(await readFile(outside, 'utf8')).toBe('not yours');
    expect((await lstat(`${file}.backup`)).isSymbolicLink()).toBe(false);
    expect(await readFile(`${file}.backup`, 'utf8')).toBe(before);
    expect((await readdir(dataDir)).sort()).toEqual(['projects.json', 'projects.json.backup']);
  });

  it('never shows a polling reader an empty or partial backup, or main file', async () => {
    // Big enough that a copy in place takes a while: 30 projects with 20 KB notes.
    const notes = 'n'.repeat(20_000);
    const { store, file } = await storeWith(
      Array.from({ length: 30 }, (_, i) => appProject(`p${i}`, { customData: { additionalNotes: notes } })),
    );
    const backup = pollJson(`${file}.backup`);
    const main = pollJson(file);
    for (let i = 0; i < 60; i++) await store.update(`p${i % 30}`, { slice: `${i}-slice.x` });
    const [backupReads, mainReads] = await Promise.all([backup.stop(), main.stop()]);
    expect(backupReads.bad).toEqual([]);
    expect(mainReads.bad).toEqual([]);
    expect(backupReads.reads).toBeGreaterThan(0);
  });

  it('answers an unknown id with NOT_FOUND naming project_list and the known ids, writing nothing', async () => {
    const { store, file } = await storeWith([appProject('p1')]);
    const before = await fingerprint(file);
    const error = await errorOf(store.update('nope', { name: 'x' }));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toBe(
      `Project not found: 'nope'. Use the ${toolRef('project_list')} tool to see available projects and their IDs.`,
    );
    expect(error.details.candidates).toEqual(['p1 (name of p1)']);
    expect(await fingerprint(file)).toBe(before);
  });

  it('has the app’s write guard: never more than 2 projects replaced by 1 or none', () => {
    expect(() => checkWriteGuard(3, 1)).toThrow(/Refusing to replace 3 projects with 1/);
    expect(() => checkWriteGuard(5, 0)).toThrow(McpToolError);
    expect(() => checkWriteGuard(2, 1)).not.toThrow();
    expect(() => checkWriteGuard(3, 2)).not.toThrow();
  });

  it('serializes concurrent writers in one process: no update is lost', async () => {
    const { store } = await storeWith([appProject('p1')]);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => store.update('p1', { customData: { [`key${i}`]: String(i) } })),
    );
    const { customData } = await store.get('p1');
    expect(Object.keys(customData)).toHaveLength(40);
  });
});

describe('the store lock', () => {
  const deadPid = () => {
    const child = spawnSync(process.execPath, ['-e', 'process.exit(0)']);
    return child.pid as number;
  };

  it('breaks a lock left by a process that died', async () => {
    const dir = await tempDir();
    const lock = join(dir, 'projects.json.lock');
    const owner = { pid: deadPid(), host: (await import('node:os')).hostname(), token: 't' };
    await writeFile(lock, JSON.stringify(owner));
    expect(await withLock(lock, async () => 'ran', { timeoutMs: 2_000 })).toBe('ran');
    expect(existsSync(lock)).toBe(false);
  });

  it('breaks a lock older than staleMs even when its owner is unknown', async () => {
    const dir = await tempDir();
    const lock = join(dir, 'projects.json.lock');
    await writeFile(lock, '');
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    expect(await withLock(lock, async () => 'ran', { staleMs: 30_000, timeoutMs: 2_000 })).toBe('ran');
  });

  it('creates the lock with its owner in it: a polling reader never finds it empty', async () => {
    const dir = await tempDir();
    const lock = join(dir, 'projects.json.lock');
    const poller = pollJson(lock);
    for (let i = 0; i < 300; i++) await withLock(lock, async () => undefined);
    const { bad } = await poller.stop();
    expect(bad).toEqual([]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('breaks an empty lock (its creator died before writing its owner) after a second, not staleMs', async () => {
    const dir = await tempDir();
    const lock = join(dir, 'projects.json.lock');
    await writeFile(lock, '');
    const old = new Date(Date.now() - 3_000);
    await utimes(lock, old, old);
    // With only the 10 s staleMs this waiter would give up after its 2 s timeout.
    expect(await withLock(lock, async () => 'ran', { timeoutMs: 2_000 })).toBe('ran');
  });

  it('waits for a live lock and gives up with a retryable CONFLICT naming the holder', async () => {
    const dir = await tempDir();
    const lock = join(dir, 'projects.json.lock');
    const owner = {
      pid: process.pid,
      host: (await import('node:os')).hostname(),
      token: 'other',
      acquiredAt: '',
    };
    await writeFile(lock, JSON.stringify(owner));
    let ran = false;
    const error = await errorOf(
      withLock(
        lock,
        async () => {
          ran = true;
        },
        { timeoutMs: 150 },
      ),
    );
    expect(ran).toBe(false);
    expect(error).toMatchObject({ code: 'CONFLICT', retryable: true });
    expect(error.message).toContain(`locked by process ${process.pid}`);
    expect(JSON.parse(await readFile(lock, 'utf8')).token).toBe('other');
  });

  it('runs the next waiter after a failed holder and removes its own lock', async () => {
    const dir = await tempDir();
    await mkdir(dir, { recursive: true });
    const lock = join(dir, 'x.lock');
    const failing = withLock(lock, async () => {
      throw new Error('boom');
    });
    const next = withLock(lock, async () => existsSync(lock));
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe(true);
    expect(existsSync(lock)).toBe(false);
  });
});
