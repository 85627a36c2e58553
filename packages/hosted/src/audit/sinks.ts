import {
  closeSync,
  existsSync,
  fchmodSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { Redis } from 'ioredis';
import { type ChainHead, EMPTY_HEAD, openLine, sealLines } from './chain.js';

/** Where sealed records go. Each sink owns its chain. */
export interface AuditSink {
  /** `file:<path>`, `redis` or `stdout`, for messages. */
  readonly name: string;
  /** Chains the entries after the sink's last record and writes them, in order. */
  write(entries: readonly object[]): void | Promise<void>;
  /** Whether `write` completes synchronously (a file, stdout): the exit path can still use it. */
  readonly synchronous: boolean;
  close(): Promise<void>;
}

export interface FileSinkOptions {
  /** A file is rotated (renamed `<path>.1`, `.1` to `.2`, …) before it would grow past this. Default 64 MiB. */
  maxBytes?: number;
  /** Rotated files kept; the oldest beyond is deleted. Default 10. */
  keep?: number;
}

export const DEFAULT_ROTATE_BYTES = 64 * 1024 * 1024;
export const DEFAULT_KEEP_FILES = 10;
/** How far back from the end of a file its last record is looked for. */
const TAIL_BYTES = 256 * 1024;

/** How long a writer waits for another process's lock on the file before the write fails (and is retried). */
const LOCK_WAIT_MS = 5000;
/** A lock older than this is taken over even when its holder still runs (a holder writes in microseconds). */
const LOCK_STALE_MS = 30_000;

/**
 * JSON lines in one file, 0600, rotated by size; the chain continues across rotations (the new
 * file's first record carries the hash of the rotated file's last). Each batch is one `write(2)`
 * (the records of a flush interval), so the exit path can write what is left synchronously.
 *
 * Several processes may write one file (the server and an admin command such as `users revoke`,
 * or two servers on one host): each batch is written under `<path>.lock` (created exclusively,
 * holding the writer's pid; removed right after; taken over when its holder is gone or it is
 * older than 30 s), and a writer that finds the file changed since its own last write (another
 * writer appended or rotated) reads the chain's head from the file again before it seals.
 */
export class FileSink implements AuditSink {
  readonly name: string;
  readonly synchronous = true;
  readonly #path: string;
  readonly #lockPath: string;
  readonly #maxBytes: number;
  readonly #keep: number;
  #fd: number | undefined;
  #size = 0;
  #inode = 0;
  #head: ChainHead = EMPTY_HEAD;

  constructor(path: string, options: FileSinkOptions = {}) {
    this.name = `file:${path}`;
    this.#path = path;
    this.#lockPath = `${path}.lock`;
    this.#maxBytes = options.maxBytes ?? DEFAULT_ROTATE_BYTES;
    this.#keep = Math.max(1, options.keep ?? DEFAULT_KEEP_FILES);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.#open();
    this.#size = -1; // read the head under the lock, at the first write
  }

  /**
   * Chains and appends the entries under the file's lock. Synchronous when the lock is free (the
   * exit path relies on it); while another process holds it, a promise that waits for it.
   */
  write(entries: readonly object[]): void | Promise<void> {
    if (entries.length === 0) return;
    if (this.#tryLock()) return this.#writeLocked(entries);
    return this.#waitForLock().then(() => this.#writeLocked(entries));
  }

  async close(): Promise<void> {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #writeLocked(entries: readonly object[]): void {
    try {
      this.#catchUp();
      const sealed = sealLines(entries, this.#head);
      const bytes = Buffer.from(`${sealed.lines.join('\n')}\n`, 'utf8');
      if (this.#size > 0 && this.#size + bytes.length > this.#maxBytes) this.#rotate();
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(this.#fd as number, bytes, offset);
      this.#size += bytes.length;
      this.#head = sealed.head;
    } finally {
      rmSync(this.#lockPath, { force: true });
    }
  }

  /** After another writer appended or rotated: the file that is `path` now, and its chain's head. */
  #catchUp(): void {
    const now = statOrUndefined(this.#path);
    if (now && now.ino === this.#inode && now.size === this.#size) return;
    if (!now || now.ino !== this.#inode) {
      if (this.#fd !== undefined) closeSync(this.#fd);
      this.#open();
    } else {
      this.#size = now.size;
    }
    this.#head =
      lastHead(this.#path) ??
      (existsSync(`${this.#path}.1`) ? lastHead(`${this.#path}.1`) : undefined) ??
      EMPTY_HEAD;
  }

  #tryLock(): boolean {
    try {
      const fd = openSync(this.#lockPath, 'wx', 0o600);
      try {
        writeSync(fd, String(process.pid));
      } finally {
        closeSync(fd);
      }
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (this.#lockAbandoned()) {
        rmSync(this.#lockPath, { force: true });
        return this.#tryLock();
      }
      return false;
    }
  }

  /** The lock's holder is gone (not a running process) or has held it far longer than a write takes. */
  #lockAbandoned(): boolean {
    let holder: number;
    let since: number;
    try {
      holder = Number(readFileSync(this.#lockPath, 'utf8'));
      since = statSync(this.#lockPath).mtimeMs;
    } catch {
      return false; // released meanwhile (or not written yet): try again later
    }
    if (Date.now() - since > LOCK_STALE_MS) return true;
    if (!Number.isSafeInteger(holder) || holder <= 0) return false; // being written
    try {
      process.kill(holder, 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
  }

  async #waitForLock(): Promise<void> {
    const deadline = Date.now() + LOCK_WAIT_MS;
    while (!this.#tryLock()) {
      if (Date.now() > deadline) {
        throw new Error(`${this.#lockPath} is held by another process (for more than ${LOCK_WAIT_MS} ms)`);
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  #open(): void {
    const fd = openSync(this.#path, 'a', 0o600);
    // The mode of openSync is masked by the umask, and an existing file keeps its own.
    fchmodSync(fd, 0o600);
    this.#fd = fd;
    const stat = fstatSync(fd);
    this.#size = stat.size;
    this.#inode = stat.ino;
  }

  #rotate(): void {
    closeSync(this.#fd as number);
    this.#fd = undefined;
    const oldest = `${this.#path}.${this.#keep}`;
    if (existsSync(oldest)) unlinkSync(oldest);
    for (let index = this.#keep - 1; index >= 1; index--) {
      const from = `${this.#path}.${index}`;
      if (existsSync(from)) renameSync(from, `${this.#path}.${index + 1}`);
    }
    renameSync(this.#path, `${this.#path}.1`);
    this.#open();
  }
}

function statOrUndefined(path: string): { ino: number; size: number } | undefined {
  try {
    return statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The files of a file sink, oldest first: `<path>.N` … `<path>.1`, `<path>`. */
export function fileSinkFiles(path: string): string[] {
  const rotated: string[] = [];
  for (let index = 1; existsSync(`${path}.${index}`); index++) rotated.unshift(`${path}.${index}`);
  return existsSync(path) ? [...rotated, path] : rotated;
}

/** The head of the chain a file ends with: its last record that opens; `undefined` when none. */
function lastHead(path: string): ChainHead | undefined {
  if (!existsSync(path)) return undefined;
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n');
    for (let index = lines.length - 1; index >= 0; index--) {
      const opened = openLine(lines[index] as string);
      if (opened.ok) return { seq: opened.seq, hash: opened.hash };
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Records on stdout (HTTP mode only: in stdio mode stdout is the JSON-RPC channel). Each run starts a chain. */
export class StdoutSink implements AuditSink {
  readonly name = 'stdout';
  readonly synchronous = true;
  #head: ChainHead = EMPTY_HEAD;

  write(entries: readonly object[]): void {
    if (entries.length === 0) return;
    const sealed = sealLines(entries, this.#head);
    const bytes = Buffer.from(`${sealed.lines.join('\n')}\n`, 'utf8');
    let offset = 0;
    while (offset < bytes.length) {
      try {
        offset += writeSync(1, bytes, offset);
      } catch (error) {
        // A full pipe: wait for the reader rather than lose or reorder records.
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
      }
    }
    this.#head = sealed.head;
  }

  async close(): Promise<void> {}
}

export interface RedisSinkOptions {
  /** Key prefix, as the store's (default `xmcp:`). */
  prefix?: string;
  /** About this many records are kept (`XADD MAXLEN ~`). Default 1,000,000. */
  maxLength?: number;
  /** Extra ioredis options (tests). */
  redisOptions?: Record<string, unknown>;
}

export const DEFAULT_STREAM_LENGTH = 1_000_000;

/**
 * Appends a batch only if the stream's head is still the one the batch was chained after, and
 * moves the head, in one step: every replica's records form one chain. ARGV: the expected head
 * (`<seq> <hash>`, empty for none), MAXLEN, the lines, the new head.
 */
const APPEND = `local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return current end
for i = 3, #ARGV - 1 do
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'r', ARGV[i])
end
redis.call('SET', KEYS[1], ARGV[#ARGV])
return 1`;

type AppendClient = Redis & {
  auditAppend(head: string, stream: string, ...args: string[]): Promise<string | number>;
};

/** How many times a batch is chained again after another replica appended first. */
const MAX_ATTEMPTS = 100;

/**
 * A capped Redis stream (`<prefix>audit`) shared by every replica, on the store's Redis. Each
 * replica chains its batch after the head it last saw; the append script refuses it when another
 * replica moved the head meanwhile and hands back the new head, and the batch is chained again
 * after it. One chain, whatever the number of replicas.
 */
export class RedisSink implements AuditSink {
  readonly name = 'redis';
  readonly synchronous = false;
  readonly #client: AppendClient;
  readonly #stream: string;
  readonly #headKey: string;
  readonly #maxLength: number;
  #head: ChainHead | undefined;

  private constructor(client: AppendClient, prefix: string, maxLength: number) {
    this.#client = client;
    this.#stream = `${prefix}audit`;
    this.#headKey = `${prefix}audit:head`;
    this.#maxLength = maxLength;
  }

  static async connect(url: string, options: RedisSinkOptions = {}): Promise<RedisSink> {
    const client = await connectRedis(url, {
      scripts: { auditAppend: { numberOfKeys: 2, lua: APPEND } },
      ...options.redisOptions,
    });
    return new RedisSink(
      client as AppendClient,
      options.prefix ?? 'xmcp:',
      options.maxLength ?? DEFAULT_STREAM_LENGTH,
    );
  }

  async write(entries: readonly object[]): Promise<void> {
    if (entries.length === 0) return;
    let head = this.#head ?? parseHead((await this.#client.get(this.#headKey)) ?? '');
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const sealed = sealLines(entries, head);
      const reply = await this.#client.auditAppend(
        this.#headKey,
        this.#stream,
        head === EMPTY_HEAD ? '' : formatHead(head),
        String(this.#maxLength),
        ...sealed.lines,
        formatHead(sealed.head),
      );
      if (reply === 1) {
        this.#head = sealed.head;
        return;
      }
      head = parseHead(String(reply));
    }
    this.#head = undefined;
    throw new Error(`the audit stream's head kept moving (${MAX_ATTEMPTS} attempts)`);
  }

  async close(): Promise<void> {
    await this.#client.quit().catch(() => this.#client.disconnect());
  }
}

function formatHead(head: ChainHead): string {
  return `${head.seq} ${head.hash}`;
}

function parseHead(text: string): ChainHead {
  const [seq, hash] = text.split(' ');
  return text === '' || !hash ? EMPTY_HEAD : { seq: Number(seq), hash };
}

async function connectRedis(url: string, options: Record<string, unknown>): Promise<Redis> {
  const module = await import('ioredis');
  const RedisClass = module.Redis ?? (module.default as unknown as typeof module).Redis;
  return new RedisClass(url, {
    enableOfflineQueue: true,
    maxRetriesPerRequest: 1,
    retryStrategy: (times: number) => Math.min(times * 100, 1000),
    connectTimeout: 5000,
    commandTimeout: 5000,
    ...options,
  });
}

/** Reads a sink's stream in order, a page at a time (for `audit verify` and `audit tail`). */
export async function* readRedisStream(
  url: string,
  options: { prefix?: string } = {},
): AsyncGenerator<{ id: string; line: string }> {
  const client = await connectRedis(url, {});
  const stream = `${options.prefix ?? 'xmcp:'}audit`;
  try {
    let start = '-';
    for (;;) {
      const page = (await client.xrange(stream, start, '+', 'COUNT', 1000)) as Array<[string, string[]]>;
      for (const [id, fields] of page) {
        const index = fields.indexOf('r');
        yield { id, line: index >= 0 ? (fields[index + 1] ?? '') : '' };
      }
      if (page.length < 1000) return;
      start = `(${(page.at(-1) as [string, string[]])[0]}`;
    }
  } finally {
    await client.quit().catch(() => client.disconnect());
  }
}
