import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Keyring } from '../crypto.js';
import { StoreUnavailableError } from '../errors.js';
import { runKvConformance } from './conformance.js';
import { createStore } from './create.js';
import { LOCK_FILE, SNAPSHOT_FILE } from './file.js';
import type { KvStore } from './kv.js';

const SECRET = 'file-store-test-secret-0123456789abcdef';
const OTHER = 'another-secret-for-the-file-store-9876543210';
const keyring = Keyring.fromSecrets({ secret: SECRET });

const dirs: string[] = [];
const stores: KvStore[] = [];
async function freshDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'x-file-store-'));
  dirs.push(dir);
  return join(dir, 'state');
}
async function openAt(dir: string, ring = keyring): Promise<KvStore> {
  const store = await createStore(`file:${dir}`, { keyring: ring });
  stores.push(store);
  return store;
}
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

runKvConformance('file:', { open: async () => openAt(await freshDir()) });

describe('file:', () => {
  it('keeps records, versions, TTLs and sets across a restart; drops what expired', async () => {
    const dir = await freshDir();
    const store = await openAt(dir);
    const version = await store.set('conn:u1:basecamp', 'kept');
    await store.set('pending:s', 'short', { ttlMs: 100 });
    await store.set('ticket:t', 'long', { ttlMs: 60_000 });
    await store.sadd('oidc:idx:account:u1', ['g1', 'g2']);
    await store.close();
    await new Promise((resolve) => setTimeout(resolve, 250));

    const again = await openAt(dir);
    expect(again.driver).toBe('file');
    expect(await again.get('conn:u1:basecamp')).toEqual({ value: 'kept', version });
    expect(await again.get('pending:s')).toBeUndefined();
    expect((await again.get('ticket:t'))?.expiresAt).toEqual(expect.any(Number));
    expect((await again.smembers('oidc:idx:account:u1')).sort()).toEqual(['g1', 'g2']);
    // The version counter continues: no version is ever handed out twice.
    expect(await again.set('new', 'x')).toBeGreaterThan(version as number);
  });

  it('writes a 0600 snapshot and a 0600 lock file into a 0700 directory, nothing else', async () => {
    const dir = await freshDir();
    const store = await openAt(dir);
    await store.set('k', 'v');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, SNAPSHOT_FILE))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, LOCK_FILE))).mode & 0o777).toBe(0o600);
    expect((await readdir(dir)).sort()).toEqual([LOCK_FILE, SNAPSHOT_FILE].sort());
    await store.close();
    expect(await readdir(dir)).toEqual([SNAPSHOT_FILE]);
  });

  it('refuses a second store on the same directory while the first is open', async () => {
    const dir = await freshDir();
    await openAt(dir);
    await expect(createStore(`file:${dir}`, { keyring })).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringContaining('already open'),
    });
  });

  it('refuses a directory locked by another live process, takes over a dead one', async () => {
    const dir = await freshDir();
    const store = await openAt(dir);
    await store.close();
    await writeFile(join(dir, LOCK_FILE), `${process.ppid}\n`);
    await expect(createStore(`file:${dir}`, { keyring })).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringContaining(`in use by process ${process.ppid}`),
    });
    // A pid that cannot be alive (above the kernel's pid_max).
    await writeFile(join(dir, LOCK_FILE), '99999999\n');
    const taken = await openAt(dir);
    expect(await readFile(join(dir, LOCK_FILE), 'utf8')).toBe(`${process.pid}\n`);
    await taken.set('k', 'v');
  });

  it('a wrong MCP_SECRET or a tampered snapshot is a clear ConfigError, never an empty store', async () => {
    const dir = await freshDir();
    const store = await openAt(dir);
    await store.set('k', 'v');
    await store.close();
    await expect(openAt(dir, Keyring.fromSecrets({ secret: OTHER }))).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringContaining('cannot be opened with MCP_SECRET'),
    });
    const sealed = await readFile(join(dir, SNAPSHOT_FILE), 'utf8');
    const flipped = sealed.slice(0, 40) + (sealed[40] === 'A' ? 'B' : 'A') + sealed.slice(41);
    await writeFile(join(dir, SNAPSHOT_FILE), flipped);
    await expect(openAt(dir)).rejects.toMatchObject({ name: 'ConfigError' });
    await writeFile(join(dir, SNAPSHOT_FILE), sealed);
    expect((await (await openAt(dir)).get('k'))?.value).toBe('v');
  });

  it('rotation: opens a snapshot sealed with MCP_SECRET_PREVIOUS and keeps it so until the new key is named', async () => {
    const dir = await freshDir();
    const old = await openAt(dir, Keyring.fromSecrets({ secret: OTHER }));
    await old.set('k', 'v');
    await old.close();
    const rotating = Keyring.fromSecrets({ secret: SECRET, previous: OTHER });
    let store = await openAt(dir, rotating);
    expect((await store.get('k'))?.value).toBe('v');
    await store.set('k2', 'w');
    await store.close();
    // Neither the read nor the write sealed it with the new secret: going back still works.
    store = await openAt(dir, Keyring.fromSecrets({ secret: OTHER }));
    expect((await store.get('k2'))?.value).toBe('w');
    await store.close();
    // Once the new key seals (keys rotate names it), the new secret alone opens it.
    store = await openAt(dir, rotating);
    rotating.useSealingKey(rotating.currentKeyId);
    await store.set('k3', 'x');
    await store.close();
    expect((await (await openAt(dir, keyring)).get('k'))?.value).toBe('v');
  });

  it('a failed snapshot write is a StoreUnavailableError, and the next good write catches up', async () => {
    const dir = await freshDir();
    const store = await openAt(dir);
    await store.set('before', '1');
    // The directory replaced by a file: the snapshot cannot be written (even as root).
    await rm(dir, { recursive: true });
    await writeFile(dir, 'not a directory');
    const error = await store.set('during', '2').then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(StoreUnavailableError.isInstance(error), String(error)).toBe(true);
    expect(error).toMatchObject({
      retryable: true,
      message: expect.stringContaining('could not be written'),
    });
    await rm(dir);
    await store.set('after', '3');
    await store.close();
    const reopened = await openAt(dir);
    expect((await reopened.get('during'))?.value).toBe('2');
    expect((await reopened.get('after'))?.value).toBe('3');
  });

  it('needs a keyring and a directory', async () => {
    await expect(createStore('file:/tmp/x')).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringContaining('MCP_SECRET'),
    });
    await expect(createStore('file:', { keyring })).rejects.toMatchObject({ name: 'ConfigError' });
  });
});
