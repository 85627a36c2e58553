import { type FSWatcher, watch } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { ConfigError, type Logger } from '@x/mcp-core';
import { Policy, type PolicyNames } from './policy.js';

/** The largest policy file read (a team's policy is a few kilobytes). */
export const MAX_POLICY_BYTES = 1024 * 1024;

/**
 * Reads and checks a policy file: a `ConfigError` when it cannot be read, is larger than
 * {@link MAX_POLICY_BYTES}, or is not a valid policy (each problem with its line and column).
 */
export async function readPolicyFile(file: string, names: PolicyNames = {}): Promise<Policy> {
  let text: string;
  try {
    const handle = await open(file, 'r');
    try {
      const { size } = await handle.stat();
      if (size > MAX_POLICY_BYTES) {
        throw new ConfigError(
          `The policy ${file} is ${size} bytes; a policy may be at most ${MAX_POLICY_BYTES} bytes.`,
        );
      }
      // Read at most one byte more than the limit: a file that grew after the stat is refused too.
      const buffer = Buffer.alloc(Math.min(size, MAX_POLICY_BYTES) + 1);
      let length = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
        if (bytesRead === 0) break;
        length += bytesRead;
        if (length === buffer.length) break;
      }
      if (length > MAX_POLICY_BYTES) {
        throw new ConfigError(`The policy ${file} is larger than ${MAX_POLICY_BYTES} bytes.`);
      }
      text = new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, length));
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (ConfigError.isInstance(error)) throw error;
    const reason =
      error instanceof TypeError
        ? 'it is not UTF-8 text'
        : ((error as NodeJS.ErrnoException).code ?? (error as Error).message);
    throw new ConfigError(`Cannot read the policy ${file}: ${reason}.`);
  }
  return Policy.parse(text, file, names);
}

/** What one reload did. */
export type PolicyReload =
  | { outcome: 'reloaded'; policy: Policy }
  | { outcome: 'unchanged'; policy: Policy }
  | { outcome: 'rejected'; policy: Policy; error: Error };

export interface PolicyFileOptions {
  /** Names the policy may use (checked at start and at every reload). */
  names?: PolicyNames;
  logger?: Logger;
  /** Quiet time after the last change event before the file is read again (ms). Default 100. */
  debounceMs?: number;
}

/**
 * The policy file of a running server (`MCP_POLICY`): read at start (a bad file stops the
 * start), read again when the file changes and on `reload()` (SIGHUP). A bad new version is
 * logged and the previous policy kept. The file's directory is watched, not the file, so
 * editors that write a new file and rename it over the old one, and Kubernetes ConfigMaps
 * (a symlink swapped in the directory), are seen too; any event in the directory leads to one
 * debounced read, and an unchanged file changes nothing.
 */
export class PolicyFile {
  readonly file: string;
  #policy: Policy;
  readonly #names: PolicyNames;
  readonly #logger: Logger | undefined;
  readonly #debounceMs: number;
  readonly #listeners = new Set<(reload: PolicyReload) => void>();
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Reloads run one after the other, each reading the file as it is when it starts. */
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(file: string, policy: Policy, options: PolicyFileOptions) {
    this.file = file;
    this.#policy = policy;
    this.#names = options.names ?? {};
    this.#logger = options.logger;
    this.#debounceMs = options.debounceMs ?? 100;
  }

  /** Reads the file (a `ConfigError` when it is not a valid policy) and starts watching it. */
  static async open(file: string, options: PolicyFileOptions = {}): Promise<PolicyFile> {
    const path = resolve(file);
    const policyFile = new PolicyFile(path, await readPolicyFile(path, options.names), options);
    policyFile.#watch();
    return policyFile;
  }

  /** The policy in force. */
  get current(): Policy {
    return this.#policy;
  }

  /** Calls `listener` after every reload (whatever its outcome); returns the unsubscribe function. */
  onReload(listener: (reload: PolicyReload) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Reads the file again now (SIGHUP): the new policy if valid, else the old one is kept. */
  reload(): Promise<PolicyReload> {
    const run = this.#queue.then(() => this.#read());
    this.#queue = run;
    return run;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#watcher?.close();
    this.#watcher = undefined;
    this.#listeners.clear();
  }

  async #read(): Promise<PolicyReload> {
    let result: PolicyReload;
    try {
      const next = await readPolicyFile(this.file, this.#names);
      if (next.digest === this.#policy.digest) {
        result = { outcome: 'unchanged', policy: this.#policy };
      } else {
        this.#policy = next;
        this.#logger?.info(`policy reloaded from ${this.file}`, {
          rules: next.ruleCount,
          sha256: next.digest,
        });
        result = { outcome: 'reloaded', policy: next };
      }
    } catch (error) {
      this.#logger?.error(`policy ${this.file} not reloaded, the previous one stays in force`, {
        error: (error as Error).message,
        sha256: this.#policy.digest,
      });
      result = { outcome: 'rejected', policy: this.#policy, error: error as Error };
    }
    for (const listener of this.#listeners) {
      try {
        listener(result);
      } catch {
        // A listener's failure is its own; the reloads go on.
      }
    }
    return result;
  }

  #watch(): void {
    const directory = dirname(this.file);
    try {
      this.#watcher = watch(directory, { persistent: false }, () => this.#changed());
      this.#watcher.on('error', (error) => {
        this.#logger?.error(
          `cannot watch ${directory} for policy changes any more; send SIGHUP to reload ${basename(this.file)}`,
          { error: error.message },
        );
        this.#watcher?.close();
        this.#watcher = undefined;
      });
    } catch (error) {
      this.#logger?.warn(`cannot watch ${directory} for policy changes; send SIGHUP to reload`, {
        error: (error as Error).message,
      });
    }
  }

  #changed(): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.reload(), this.#debounceMs);
    this.#timer.unref();
  }
}
