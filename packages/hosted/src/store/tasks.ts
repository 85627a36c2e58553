import { ConflictError, type StoredTask, type TaskStore } from '@x/mcp-core';
import type { Keyring } from '../crypto.js';
import type { KvStore } from './kv.js';
import { SealedRecords } from './sealed.js';

/** One task's record; the owner (`user:<id>` for a signed-in user) is part of the key. */
export const taskKey = (owner: string, taskId: string): string => `task:${owner}:${taskId}`;
/** The set of an owner's task ids (2025-11-25 `tasks/list` reads it, never the key space). */
export const taskIndexKey = (owner: string): string => `tasks:${owner}`;

/** Compare-and-set rounds before an update gives up (only under a storm of concurrent writers). */
const MAX_ROUNDS = 16;

/**
 * The tasks of `@x/mcp-core` (tools that run long, as MCP tasks) in the hosted store, so that a
 * task started on one replica is polled, cancelled and read back on any other. Every record is
 * sealed like the other hosted records (its result and error included) and expires with the
 * task's `ttlMs`; the owner is part of the key, so one user's tasks are never found for another.
 * A task waiting for input keeps its questions (`inputRequests`) and the answers `tasks/update`
 * brought (`inputResponses`) in the same sealed record, so any replica shows them and takes
 * answers; the handler that waits for them runs on the replica that started the task, which
 * reads them at its next store check.
 */
export class HostedTaskStore implements TaskStore {
  readonly #store: KvStore;
  readonly #records: SealedRecords;
  readonly #now: () => number;

  constructor(store: KvStore, keyring: Keyring, options: { now?: () => number } = {}) {
    this.#store = store;
    this.#records = new SealedRecords(store, keyring);
    this.#now = options.now ?? Date.now;
  }

  async create(task: StoredTask): Promise<void> {
    const ttlMs = this.#remaining(task);
    if (ttlMs <= 0) throw new ConflictError(`Task ${task.taskId} has already expired.`);
    const written = await this.#records.set(taskKey(task.owner, task.taskId), task, { ttlMs, ifVersion: 0 });
    if (written === undefined) throw new ConflictError(`Task ${task.taskId} already exists.`);
    await this.#store.sadd(taskIndexKey(task.owner), [task.taskId], { ttlMs });
  }

  async get(owner: string, taskId: string): Promise<StoredTask | undefined> {
    const entry = await this.#records.get<StoredTask>(taskKey(owner, taskId));
    return entry && this.#live(entry.value, owner);
  }

  async update(
    owner: string,
    taskId: string,
    change: (current: StoredTask) => StoredTask | undefined,
  ): Promise<StoredTask | undefined> {
    const key = taskKey(owner, taskId);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const entry = await this.#records.get<StoredTask>(key);
      const current = entry && this.#live(entry.value, owner);
      if (!entry || !current) return undefined;
      const next = change(structuredClone(current));
      if (!next) return current;
      // The record keeps the expiry it was created with.
      const ttlMs = this.#remaining(next);
      if (ttlMs <= 0) return undefined;
      const written = await this.#records.set(
        key,
        { ...next, owner, taskId },
        { ttlMs, ifVersion: entry.version },
      );
      if (written !== undefined) return { ...next, owner, taskId };
    }
    throw new ConflictError(`Task ${taskId} changed too often to update; try again.`);
  }

  async list(owner: string): Promise<StoredTask[]> {
    const ids = await this.#store.smembers(taskIndexKey(owner));
    const entries = await this.#store.getMany(ids.map((id) => taskKey(owner, id)));
    const tasks: StoredTask[] = [];
    for (const [index, entry] of entries.entries()) {
      const id = ids[index] as string;
      const opened = await this.#records.open<StoredTask>(taskKey(owner, id), entry);
      const task = opened && this.#live(opened.value, owner);
      if (task) tasks.push(task);
    }
    return tasks.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  /** Milliseconds the task has left: it lives `ttlMs` from its creation. */
  #remaining(task: StoredTask): number {
    return Math.floor(Date.parse(task.createdAt) + task.ttlMs - this.#now());
  }

  /** The task when it is the owner's and has not expired (a store without expiry still hides it). */
  #live(task: StoredTask, owner: string): StoredTask | undefined {
    return task.owner === owner && this.#remaining(task) > 0 ? task : undefined;
  }
}
