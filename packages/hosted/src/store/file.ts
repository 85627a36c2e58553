import { chmod, mkdir, open, readFile, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError } from '@x/mcp-core';
import { writePrivateFile } from '@x/mcp-core/upstream';
import type { Keyring } from '../crypto.js';
import { DecryptError, StoreUnavailableError } from '../errors.js';
import { type MemorySnapshot, MemoryStore } from './memory.js';

/** The snapshot file inside the store directory. */
export const SNAPSHOT_FILE = 'store.enc';
/** The lock file that keeps a second process out of the directory. */
export const LOCK_FILE = 'store.lock';
/** The record key the snapshot is sealed for (the AAD of its ciphertext). */
const SNAPSHOT_CONTEXT = 'x-mcp-hosted/file-store/snapshot/v1';

/** Directories opened by this process: a second store on one of them is refused. */
const openDirectories = new Set<string>();

/**
 * The `file:<dir>` driver: the memory store, written after every change as one encrypted
 * snapshot (`<dir>/store.enc`, AES-256-GCM with the keyring, 0600, atomic rename) in a 0700
 * directory. Every write resolves only once the snapshot is on disk (fsynced), so a
 * credential written is a credential kept. One process per directory (`<dir>/store.lock`);
 * replicas need `redis://`.
 */
export class FileStore extends MemoryStore {
  readonly directory: string;
  readonly #keyring: Keyring;
  #pending: Promise<void> | undefined;
  #running: Promise<void> = Promise.resolve();

  private constructor(directory: string, keyring: Keyring) {
    super('file');
    this.directory = directory;
    this.#keyring = keyring;
  }

  static async open(directory: string, keyring: Keyring): Promise<FileStore> {
    const dir = resolve(directory);
    if (openDirectories.has(dir)) {
      throw new ConfigError(`The file store ${dir} is already open in this process.`);
    }
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await chmod(dir, 0o700);
    } catch (error) {
      throw new ConfigError(
        `The file store directory ${dir} cannot be created (${(error as NodeJS.ErrnoException).code}).`,
        { cause: error },
      );
    }
    await takeLock(dir);
    openDirectories.add(dir);
    const store = new FileStore(dir, keyring);
    try {
      await store.#load();
    } catch (error) {
      openDirectories.delete(dir);
      await releaseLock(dir);
      throw error;
    }
    return store;
  }

  protected override async changed(): Promise<void> {
    await this.#flush();
  }

  override async close(): Promise<void> {
    if (!openDirectories.has(this.directory)) return;
    this.markClosed();
    await this.#running.catch(() => {});
    openDirectories.delete(this.directory);
    await releaseLock(this.directory);
  }

  async #load(): Promise<void> {
    const path = join(this.directory, SNAPSHOT_FILE);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw new ConfigError(
        `The file store ${path} cannot be read (${(error as NodeJS.ErrnoException).code}).`,
        {
          cause: error,
        },
      );
    }
    let opened: ReturnType<Keyring['decrypt']>;
    try {
      opened = this.#keyring.decrypt(text.trim(), SNAPSHOT_CONTEXT);
    } catch (error) {
      const reason = DecryptError.isInstance(error) ? error.message : 'unreadable';
      throw new ConfigError(
        `The file store ${path} cannot be opened with MCP_SECRET or MCP_SECRET_PREVIOUS: ${reason}`,
        { cause: error },
      );
    }
    this.restore(parseSnapshot(opened.plaintext, path));
    // Sealed with the previous secret, it stays so until a write: the keyring seals with the key
    // the store's keys:meta names (the old one until `keys rotate`), so going back to the old
    // secret stays possible until then.
    await chmod(path, 0o600).catch(() => {});
  }

  /** Writes the snapshot; calls made while a write runs share the one write after it. */
  #flush(): Promise<void> {
    if (this.#pending) return this.#pending;
    const next = this.#running
      .catch(() => {})
      .then(() => {
        this.#pending = undefined;
        return this.#write();
      });
    this.#pending = next;
    this.#running = next;
    return next;
  }

  async #write(): Promise<void> {
    const sealed = this.#keyring.encrypt(JSON.stringify(this.snapshot()), SNAPSHOT_CONTEXT);
    try {
      await writePrivateFile(join(this.directory, SNAPSHOT_FILE), `${sealed}\n`);
    } catch (error) {
      throw new StoreUnavailableError(
        `The file store ${this.directory} could not be written (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
        { cause: error },
      );
    }
  }
}

function parseSnapshot(text: string, path: string): MemorySnapshot {
  try {
    const value = JSON.parse(text) as MemorySnapshot;
    if (
      typeof value === 'object' &&
      value !== null &&
      Number.isSafeInteger(value.seq) &&
      Array.isArray(value.records) &&
      Array.isArray(value.sets)
    ) {
      return value;
    }
  } catch {
    // reported below
  }
  throw new ConfigError(`The file store ${path} decrypted, but is not a store snapshot.`);
}

async function takeLock(dir: string): Promise<void> {
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o600);
      try {
        await handle.writeFile(`${process.pid}\n`);
      } finally {
        await handle.close();
      }
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new ConfigError(
          `The file store lock ${path} cannot be created (${(error as NodeJS.ErrnoException).code}).`,
          { cause: error },
        );
      }
    }
    const pid = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
    // Our own pid is stale here: this process has not opened the directory (a container's
    // pid 1 after a restart). Another live pid means another process uses the store.
    if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
      throw new ConfigError(
        `The file store ${dir} is in use by process ${pid}. A file store serves one process; ` +
          'use redis://host:port for several replicas.',
      );
    }
    await unlink(path).catch(() => {});
  }
  throw new ConfigError(`The file store lock ${path} could not be taken.`);
}

async function releaseLock(dir: string): Promise<void> {
  const path = join(dir, LOCK_FILE);
  const pid = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
  if (pid === process.pid) await unlink(path).catch(() => {});
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
