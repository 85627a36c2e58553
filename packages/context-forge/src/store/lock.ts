import { randomUUID } from 'node:crypto';
import { link, open, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { ConflictError } from '@x/mcp-core';
import { sleep } from '@x/mcp-core/upstream';

export interface LockOptions {
  /** A lock older than this is taken over even when its owner cannot be checked. Default 10 s. */
  staleMs?: number;
  /** How long to wait for the lock before giving up with a retryable `CONFLICT`. Default 10 s. */
  timeoutMs?: number;
}

interface LockOwner {
  pid: number;
  host: string;
  token: string;
}

/** Callers in this process queue per lock path before they compete for the file. */
const queues = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` while holding `lockPath`: first in turn among this process's callers, then as the
 * only process, through a lock file that appears atomically with its owner in it. A lock whose
 * owner died on this host, that is older than `staleMs`, or that names no owner after a second, is
 * broken, so a crash never blocks writers for good.
 */
export function withLock<T>(lockPath: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const previous = queues.get(lockPath) ?? Promise.resolve();
  const run = previous.then(
    () => holdFileLock(lockPath, fn, options),
    () => holdFileLock(lockPath, fn, options),
  );
  const tail = run.catch(() => undefined);
  queues.set(lockPath, tail);
  void tail.then(() => {
    if (queues.get(lockPath) === tail) queues.delete(lockPath);
  });
  return run;
}

async function holdFileLock<T>(lockPath: string, fn: () => Promise<T>, options: LockOptions): Promise<T> {
  const owner = await acquire(lockPath, options);
  try {
    return await fn();
  } finally {
    await release(lockPath, owner);
  }
}

async function acquire(lockPath: string, { staleMs = 10_000, timeoutMs = 10_000 }: LockOptions) {
  const owner: LockOwner = { pid: process.pid, host: hostname(), token: randomUUID() };
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  for (;;) {
    if (await tryCreate(lockPath, owner)) return owner;
    const held = await inspect(lockPath);
    if (held && isStale(held, staleMs)) {
      await breakLock(lockPath, held.raw);
      continue;
    }
    if (Date.now() >= deadline) {
      const who = held?.owner ? ` by process ${held.owner.pid} on ${held.owner.host}` : '';
      throw new ConflictError(
        `The Context Forge store is locked${who} and stayed locked for ${timeoutMs} ms. Try again shortly.`,
        { retryable: true, details: { lock: lockPath } },
      );
    }
    await sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 50);
  }
}

/**
 * Creates the lock with its owner already in it: the owner goes into a private temp file that is
 * then hard-linked to the lock path, which fails if the lock exists. So the lock never exists
 * empty, and a crash at any point leaves either no lock or one that names its (dead) owner.
 * On a filesystem without hard links it falls back to O_EXCL create, then write.
 */
async function tryCreate(lockPath: string, owner: LockOwner): Promise<boolean> {
  const content = JSON.stringify(owner);
  const temp = `${lockPath}.${owner.token}.tmp`;
  await writeFile(temp, content, { flag: 'wx', mode: 0o644 });
  try {
    await link(temp, lockPath);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code && NO_HARD_LINKS.has(code)) return tryCreateInPlace(lockPath, content);
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

async function tryCreateInPlace(lockPath: string, content: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(lockPath, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
  return true;
}

interface HeldLock {
  raw: string;
  owner: LockOwner | undefined;
  ageMs: number;
}

async function inspect(lockPath: string): Promise<HeldLock | undefined> {
  try {
    const [raw, info] = await Promise.all([readFile(lockPath, 'utf8'), stat(lockPath)]);
    return { raw, owner: parseOwner(raw), ageMs: Date.now() - info.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined; // released meanwhile
    throw error;
  }
}

function parseOwner(raw: string): LockOwner | undefined {
  try {
    const value = JSON.parse(raw) as Partial<LockOwner>;
    if (typeof value.pid === 'number' && typeof value.host === 'string' && typeof value.token === 'string') {
      return value as LockOwner;
    }
  } catch {
    // created by a process that died before writing its owner: see ORPHAN_MS
  }
  return undefined;
}

/**
 * A lock without a readable owner is one whose writer died between creating and filling it (only
 * the in-place fallback or an older version of this package can leave one); a live writer fills it
 * within microseconds, so after this long nobody will.
 */
const ORPHAN_MS = 1_000;

function isStale(held: HeldLock, staleMs: number): boolean {
  if (held.ageMs > staleMs) return true;
  const owner = held.owner;
  if (owner === undefined) return held.ageMs > Math.min(staleMs, ORPHAN_MS);
  return owner.host === hostname() && !isAlive(owner.pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes a stale lock, but only the very lock judged stale: two processes that both found it
 * stale must not remove the fresh lock one of them took meanwhile. A short-lived `.break` file
 * makes "check it is still the same, then unlink" one step among breakers.
 */
async function breakLock(lockPath: string, staleRaw: string): Promise<void> {
  const guardPath = `${lockPath}.break`;
  let guard: Awaited<ReturnType<typeof open>>;
  try {
    guard = await open(guardPath, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another process is breaking it. A guard left by a breaker that died is removed after 2 s.
    const info = await stat(guardPath).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > 2_000) await unlink(guardPath).catch(() => undefined);
    await sleep(5);
    return;
  }
  try {
    const current = await readFile(lockPath, 'utf8').catch(() => undefined);
    if (current === staleRaw) await unlink(lockPath).catch(() => undefined);
  } finally {
    await guard.close();
    await unlink(guardPath).catch(() => undefined);
  }
}

async function release(lockPath: string, owner: LockOwner): Promise<void> {
  // Only our own lock: if it was broken as stale and taken by another process, it is theirs now.
  const current = await readFile(lockPath, 'utf8').catch(() => undefined);
  if (current !== undefined && parseOwner(current)?.token === owner.token) {
    await unlink(lockPath).catch(() => undefined);
  }
}
