import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '@x/mcp-core';
import type { KvStore } from './kv.js';
import { MemoryStore } from './memory.js';
import { RedisStore, type RedisStoreOptions } from './redis.js';
import { SqliteStore, type SqliteStoreOptions } from './sqlite.js';

export interface CreateStoreOptions extends RedisStoreOptions, SqliteStoreOptions {
  /**
   * Open only a store a server has made (the admin commands): a `sqlite:` file that does not
   * exist is a `ConfigError` and is not created; `memory:` (a process's own) is refused.
   */
  existing?: boolean;
}

const FORMS = '`sqlite:<path>`, `redis://host:port` (`rediss://` for TLS) or `memory:`';

/**
 * Opens the store a URL names (`--store` / `MCP_STORE`):
 * - `sqlite:<path>` — one SQLite database file (a relative path is resolved against the
 *   working directory) for one server and its admin commands (the default);
 * - `redis://[user:password@]host:port[/db]`, `rediss://…` — shared by any number of replicas;
 * - `memory:` — in this process only (tests).
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
  if (text === 'memory:' || text === 'memory://') {
    if (options.existing) {
      throw new ConfigError(
        'MCP_STORE memory: lives in the server process alone; give the store the server uses (--store or MCP_STORE).',
      );
    }
    return new MemoryStore();
  }
  if (text.startsWith('sqlite:')) {
    const file = sqlitePath(text);
    if (options.existing && !existsSync(file)) {
      throw new ConfigError(
        `No store at ${file} (nothing was created): give the store the server uses (--store or MCP_STORE).`,
      );
    }
    return SqliteStore.open(file, options);
  }
  if (text.startsWith('file:')) {
    throw new ConfigError(
      `MCP_STORE "${text}": the file store was replaced by SQLite; use sqlite:<path>, e.g. sqlite:/var/lib/x-mcp/store.db.`,
    );
  }
  if (/^rediss?:/i.test(text)) {
    checkRedisUrl(text);
    return RedisStore.connect(text, options);
  }
  throw new ConfigError(`MCP_STORE "${redact(text)}" is not a store URL: use ${FORMS}.`);
}

function sqlitePath(text: string): string {
  let path = text.slice('sqlite:'.length);
  if (path.trim() === '') {
    throw new ConfigError(
      'MCP_STORE "sqlite:" needs a file path: sqlite:<path>, e.g. sqlite:/var/lib/x-mcp/store.db.',
    );
  }
  // sqlite:///abs/path is the URL spelling of sqlite:/abs/path; sqlite://name/… has a host, which a file does not.
  if (path.startsWith('//')) {
    if (!path.startsWith('///')) {
      throw new ConfigError(
        `MCP_STORE "${text}" names a host; use sqlite:<path>, e.g. sqlite:/var/lib/x-mcp/store.db.`,
      );
    }
    path = path.slice(2);
  }
  if (path.includes('\0')) throw new ConfigError('MCP_STORE sqlite path contains a NUL character.');
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
