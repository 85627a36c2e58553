import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '@x/mcp-core';
import type { Keyring } from '../crypto.js';
import { FileStore } from './file.js';
import type { KvStore } from './kv.js';
import { MemoryStore } from './memory.js';
import { RedisStore, type RedisStoreOptions } from './redis.js';

export interface CreateStoreOptions extends RedisStoreOptions {
  /** Seals the `file:` snapshot (required for `file:`). */
  keyring?: Keyring;
}

const FORMS = '`memory:`, `file:<directory>` or `redis://host:port` (`rediss://` for TLS)';

/**
 * Opens the store a URL names (`--store` / `MCP_STORE`):
 * - `memory:` — in this process only (tests);
 * - `file:<directory>` — one encrypted snapshot for a single process (the default);
 * - `redis://[user:password@]host:port[/db]`, `rediss://…` — shared by any number of replicas.
 *
 * A malformed URL is a `ConfigError` naming the accepted forms (its password is never echoed).
 * An unreachable Redis is not an error here: calls fail with `StoreUnavailableError` until it
 * answers, so a server can start and report itself not ready.
 */
export async function createStore(url: string, options: CreateStoreOptions = {}): Promise<KvStore> {
  if (typeof url !== 'string' || url.trim() === '') {
    throw new ConfigError(`MCP_STORE is empty: use ${FORMS}.`);
  }
  const text = url.trim();
  if (text === 'memory:' || text === 'memory://') return new MemoryStore();
  if (text.startsWith('file:')) {
    const directory = fileDirectory(text);
    if (!options.keyring) {
      throw new ConfigError('The file store is encrypted: it needs MCP_SECRET (pass a keyring).');
    }
    return FileStore.open(directory, options.keyring);
  }
  if (/^rediss?:/i.test(text)) {
    checkRedisUrl(text);
    return RedisStore.connect(text, options);
  }
  throw new ConfigError(`MCP_STORE "${redact(text)}" is not a store URL: use ${FORMS}.`);
}

function fileDirectory(text: string): string {
  let path: string;
  if (text.startsWith('file://')) {
    try {
      path = fileURLToPath(text);
    } catch (error) {
      throw new ConfigError(`MCP_STORE "${text}" is not a valid file URL: ${(error as Error).message}`, {
        cause: error,
      });
    }
  } else {
    path = text.slice('file:'.length);
  }
  if (path.trim() === '')
    throw new ConfigError('MCP_STORE "file:" needs a directory, e.g. file:/var/lib/x-mcp.');
  if (path.includes('\0')) throw new ConfigError('MCP_STORE file directory contains a NUL character.');
  return resolve(path);
}

function checkRedisUrl(text: string): void {
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new ConfigError(`MCP_STORE "${redact(text)}" is not a valid URL: use redis://host:port.`);
  }
  const problems: string[] = [];
  if (!parsed.hostname) problems.push('it has no host');
  if (parsed.port !== '' && !(Number(parsed.port) >= 1 && Number(parsed.port) <= 65_535)) {
    problems.push(`port ${parsed.port} is out of range`);
  }
  if (!/^\/?(\d{1,2})?$/.test(parsed.pathname)) {
    problems.push(`"${parsed.pathname}" is not a database number (e.g. /0)`);
  }
  if (parsed.search || parsed.hash) problems.push('query strings and fragments are not supported');
  if (problems.length > 0) {
    throw new ConfigError(`MCP_STORE "${redact(text)}" is not usable: ${problems.join('; ')}.`);
  }
}

/** The URL with any password replaced, for messages. */
function redact(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*:)[^/@]*@/i, '$1***@');
}
