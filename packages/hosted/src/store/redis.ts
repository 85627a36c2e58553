import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { InternalError } from '@x/mcp-core';
import type { Redis, RedisOptions } from 'ioredis';
import { StoreUnavailableError } from '../errors.js';
import type { KvEntry, KvLock, KvSetOptions, KvStore, KvWatcher } from './kv.js';
import { checkKey, checkMembers, checkSet, checkTtl } from './validate.js';

/**
 * Lua keeps every read-modify-write in one server-side step, so any number of replicas on one
 * Redis see exactly one winner. Records are hashes { v: value, n: version }; versions come
 * from one counter (`<prefix>seq`), so a deleted and re-created record never repeats one.
 */
const SCRIPTS = {
  kvGet: {
    numberOfKeys: 1,
    lua: `local r = redis.call('HMGET', KEYS[1], 'v', 'n')
if not r[1] then return false end
return { r[1], r[2], redis.call('PTTL', KEYS[1]) }`,
  },
  // Any number of keys (the caller passes how many first): per key { v, n, pttl } or nil.
  kvGetMany: {
    lua: `local out = {}
for i, key in ipairs(KEYS) do
  local r = redis.call('HMGET', key, 'v', 'n')
  if r[1] then out[i] = { r[1], r[2], redis.call('PTTL', key) } else out[i] = false end
end
return out`,
  },
  // Every change of a record is published (ARGV channel, key) in the same step as the write:
  // the invalidations of the replicas' caches (`watch`), never lost between write and publish.
  // ARGV: value, ttl ms ('0' = none), expected version ('-1' = no check; '0' = absent), channel, key
  kvSet: {
    numberOfKeys: 2,
    lua: `if ARGV[3] ~= '-1' then
  local current = redis.call('HGET', KEYS[1], 'n') or '0'
  if current ~= ARGV[3] then return false end
end
local n = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'n', n)
if ARGV[2] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[2]) else redis.call('PERSIST', KEYS[1]) end
redis.call('PUBLISH', ARGV[4], ARGV[5])
return n`,
  },
  // ARGV: channel, key
  kvConsume: {
    numberOfKeys: 1,
    lua: `local v = redis.call('HGET', KEYS[1], 'v')
if v then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[1], ARGV[2])
end
return v`,
  },
  // ARGV: channel, key
  kvDelete: {
    numberOfKeys: 1,
    lua: `local removed = redis.call('DEL', KEYS[1])
if removed == 1 then redis.call('PUBLISH', ARGV[1], ARGV[2]) end
return removed`,
  },
  kvUnlock: {
    numberOfKeys: 1,
    lua: `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`,
  },
  // ARGV: ttl ms ('0' = none), members...
  kvSadd: {
    numberOfKeys: 1,
    lua: `local existed = redis.call('EXISTS', KEYS[1])
local pttl = redis.call('PTTL', KEYS[1])
redis.call('SADD', KEYS[1], unpack(ARGV, 2))
local ttl = tonumber(ARGV[1])
if ttl > 0 then
  if existed == 0 or (pttl >= 0 and pttl < ttl) then redis.call('PEXPIRE', KEYS[1], ttl) end
elseif existed == 1 and pttl >= 0 then
  redis.call('PERSIST', KEYS[1])
end
return 1`,
  },
  // Token buckets (rate limits), all of a call's at once: each is checked, then either every one
  // gives a token or none does. On Redis's clock, so the replicas' clocks do not matter.
  // KEYS: the buckets; ARGV: per bucket its size and its refill period in ms.
  // Returns { index of the first refused bucket (0 = none), ms until it has a token }.
  kvTakeTokens: {
    lua: `local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local levels = {}
local refused, wait = 0, 0
for i, key in ipairs(KEYS) do
  local size, period = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  local r = redis.call('HMGET', key, 't', 'at')
  local tokens = size
  if r[1] then
    tokens = math.min(size, tonumber(r[1]) + math.max(0, now - tonumber(r[2])) * size / period)
  end
  levels[i] = tokens
  if tokens < 1 then
    local ms = math.ceil((1 - tokens) * period / size)
    if ms > wait then refused, wait = i, ms end
  end
end
if refused > 0 then return { refused, wait } end
for i, key in ipairs(KEYS) do
  local size, period = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  local left = levels[i] - 1
  redis.call('HSET', key, 't', string.format('%.17g', left), 'at', string.format('%.17g', now))
  redis.call('PEXPIRE', key, math.ceil((size - left) * period / size) + 1000)
end
return { 0, 0 }`,
  },
} as const;

type ScriptName = keyof typeof SCRIPTS;
type ScriptClient = Redis & Record<ScriptName, (...args: (string | number)[]) => Promise<unknown>>;

function toEntry([value, version, pttl]: [string, string, number]): KvEntry {
  const entry = { value, version: Number(version) };
  return pttl >= 0 ? { ...entry, expiresAt: Date.now() + pttl } : entry;
}

/** Replies that mean "try again later" rather than "this command is wrong". */
const TRANSIENT_REPLY = /^(LOADING|BUSY|MISCONF|READONLY|OOM|MASTERDOWN|TRYAGAIN|NOREPLICAS|CLUSTERDOWN)\b/;

export interface RedisStoreOptions {
  /** Prepended to every key (default `xmcp:`), so one Redis can hold several deployments. */
  prefix?: string;
  /** Milliseconds a command may take before it fails as unavailable (default 5000). */
  commandTimeoutMs?: number;
  /** Extra ioredis options (tests, TLS details). */
  redisOptions?: RedisOptions;
}

/**
 * The `redis://host:port` driver for any number of replicas, on `ioredis` (loaded only when
 * this driver is used). While Redis is unreachable every call rejects, within about a second,
 * with `StoreUnavailableError`; ioredis keeps reconnecting and calls work again once it is back.
 */
export class RedisStore implements KvStore {
  readonly driver = 'redis' as const;
  readonly #client: ScriptClient;
  readonly #prefix: string;
  readonly #where: string;
  #closed = false;
  #lastError: Error | undefined;
  /** The connections `watch` subscribed with (closed with the store). */
  readonly #subscribers = new Set<Redis>();

  private constructor(client: ScriptClient, prefix: string, where: string) {
    this.#client = client;
    this.#prefix = prefix;
    this.#where = where;
    client.on('error', (error: Error) => {
      this.#lastError = error;
    });
  }

  static async connect(url: string, options: RedisStoreOptions = {}): Promise<RedisStore> {
    const module = await import('ioredis');
    const RedisClass = module.Redis ?? (module.default as unknown as typeof module).Redis;
    const parsed = new URL(url);
    const client = new RedisClass(url, {
      // Commands wait for the (re)connection, but fail after one failed attempt instead of
      // queueing while Redis is down.
      enableOfflineQueue: true,
      maxRetriesPerRequest: 1,
      retryStrategy: (times) => Math.min(times * 100, 1000),
      connectTimeout: 5000,
      commandTimeout: options.commandTimeoutMs ?? 5000,
      scripts: SCRIPTS,
      ...options.redisOptions,
    }) as ScriptClient;
    return new RedisStore(client, options.prefix ?? 'xmcp:', `${parsed.hostname}:${parsed.port || 6379}`);
  }

  async get(key: string): Promise<KvEntry | undefined> {
    checkKey(key);
    const reply = (await this.#run(() => this.#client.kvGet(this.#record(key)))) as
      | [string, string, number]
      | null;
    return reply ? toEntry(reply) : undefined;
  }

  async getMany(keys: readonly string[]): Promise<Array<KvEntry | undefined>> {
    for (const key of keys) checkKey(key);
    if (keys.length === 0) return [];
    const replies = (await this.#run(() =>
      this.#client.kvGetMany(keys.length, ...keys.map((key) => this.#record(key))),
    )) as Array<[string, string, number] | null>;
    return keys.map((_key, index) => {
      const reply = replies[index];
      return reply ? toEntry(reply) : undefined;
    });
  }

  async set(key: string, value: string, options: KvSetOptions = {}): Promise<number | undefined> {
    checkSet(key, value, options);
    const reply = await this.#run(() =>
      this.#client.kvSet(
        this.#record(key),
        `${this.#prefix}seq`,
        value,
        String(options.ttlMs ?? 0),
        String(options.ifVersion ?? -1),
        this.#channel,
        key,
      ),
    );
    return reply === null ? undefined : Number(reply);
  }

  async delete(key: string): Promise<boolean> {
    checkKey(key);
    return (await this.#run(() => this.#client.kvDelete(this.#record(key), this.#channel, key))) === 1;
  }

  async consume(key: string): Promise<string | undefined> {
    checkKey(key);
    const reply = await this.#run(() => this.#client.kvConsume(this.#record(key), this.#channel, key));
    return typeof reply === 'string' ? reply : undefined;
  }

  async lock(key: string, ttlMs: number): Promise<KvLock | undefined> {
    checkKey(key);
    checkTtl(ttlMs);
    const lockKey = `${this.#prefix}lock:${key}`;
    const owner = randomUUID();
    const reply = await this.#run(() => this.#client.set(lockKey, owner, 'PX', ttlMs, 'NX'));
    if (reply !== 'OK') return undefined;
    return {
      key,
      owner,
      release: async () => (await this.#run(() => this.#client.kvUnlock(lockKey, owner))) === 1,
    };
  }

  async sadd(key: string, members: readonly string[], options: { ttlMs?: number } = {}): Promise<void> {
    checkKey(key);
    checkMembers(members);
    if (options.ttlMs !== undefined) checkTtl(options.ttlMs);
    if (members.length === 0) return;
    await this.#run(() => this.#client.kvSadd(this.#set(key), String(options.ttlMs ?? 0), ...members));
  }

  async srem(key: string, members: readonly string[]): Promise<void> {
    checkKey(key);
    checkMembers(members);
    if (members.length === 0) return;
    await this.#run(() => this.#client.srem(this.#set(key), ...members));
  }

  async smembers(key: string): Promise<string[]> {
    checkKey(key);
    return (await this.#run(() => this.#client.smembers(this.#set(key)))) as string[];
  }

  async keys(prefix: string): Promise<string[]> {
    const base = this.#record('');
    // SCAN's MATCH is a glob: escape the pattern characters of the prefix.
    const pattern = `${(base + prefix).replace(/[*?[\]\\]/g, '\\$&')}*`;
    const found = new Set<string>();
    let cursor = '0';
    do {
      const [next, batch] = (await this.#run(() =>
        this.#client.scan(cursor, 'MATCH', pattern, 'COUNT', 500),
      )) as [string, string[]];
      for (const key of batch) found.add(key.slice(base.length));
      cursor = next;
    } while (cursor !== '0');
    return [...found];
  }

  /**
   * Takes one token from each bucket (a size and a refill period each), or from none when any is
   * empty: one round trip. Resolves with the index of the first empty bucket (-1: taken) and the
   * milliseconds until it has a token. Buckets expire once full again.
   */
  async takeTokens(
    buckets: readonly { key: string; tokens: number; periodMs: number }[],
  ): Promise<[refused: number, retryAfterMs: number]> {
    for (const bucket of buckets) {
      checkKey(bucket.key);
      checkTtl(bucket.periodMs, 'periodMs');
      checkTtl(bucket.tokens, 'tokens');
    }
    if (buckets.length === 0) return [-1, 0];
    const [refused, wait] = (await this.#run(() =>
      this.#client.kvTakeTokens(
        buckets.length,
        ...buckets.map((bucket) => `${this.#prefix}rate:${bucket.key}`),
        ...buckets.flatMap((bucket) => [bucket.tokens, bucket.periodMs]),
      ),
    )) as [number, number];
    return [refused - 1, wait];
  }

  async ping(): Promise<void> {
    await this.#run(() => this.#client.ping());
  }

  /**
   * Subscribes (a connection of its own) to the channel every record write publishes on. While
   * that connection is down, `watcher.lost()`; once subscribed again, `watcher.live()`. Resolves
   * at once; `live()` follows when the first subscription is confirmed.
   */
  async watch(watcher: KvWatcher): Promise<() => Promise<void>> {
    if (this.#closed) throw new StoreUnavailableError('The redis store is closed.');
    const channel = this.#channel;
    // Retries forever: a subscriber has no commands to fail, only a connection to get back. It
    // subscribes on every 'ready' itself: ioredis's own re-subscription leaves its promise without
    // a handler, so a connection closed before the answer would be an unhandled rejection.
    const subscriber = this.#client.duplicate({ maxRetriesPerRequest: null, autoResubscribe: false });
    this.#subscribers.add(subscriber);
    let live = false;
    subscriber.on('message', (from: string, key: string) => {
      if (from === channel) watcher.changed(key);
    });
    // On the first connection and every reconnection.
    subscriber.on('ready', () => {
      subscriber.subscribe(channel).then(
        () => {
          if (!live && this.#subscribers.has(subscriber)) {
            live = true;
            watcher.live();
          }
        },
        () => undefined,
      );
    });
    const lost = () => {
      if (!live || !this.#subscribers.has(subscriber)) return;
      live = false;
      watcher.lost();
    };
    // The socket's own end (read in the same turn as the EOF), not only ioredis's 'close' (emitted
    // in a later phase of the event loop): a request handled in between must not be answered
    // from memory.
    subscriber.on('connect', () => {
      subscriber.stream.once('end', lost);
      subscriber.stream.once('error', lost);
    });
    subscriber.on('close', lost);
    subscriber.on('error', () => undefined);
    return async () => {
      if (!this.#subscribers.delete(subscriber)) return;
      subscriber.removeAllListeners('message');
      await disconnected(subscriber);
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const subscribers = [...this.#subscribers];
    this.#subscribers.clear();
    await Promise.all(subscribers.map(disconnected));
    if (this.#client.status === 'ready') await this.#client.quit().catch(() => {});
    this.#client.disconnect();
  }

  get #channel(): string {
    return `${this.#prefix}changes`;
  }

  #record(key: string): string {
    return `${this.#prefix}kv:${key}`;
  }

  #set(key: string): string {
    return `${this.#prefix}set:${key}`;
  }

  async #run<T>(command: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreUnavailableError('The redis store is closed.');
    try {
      return await command();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if ((error as Error).name === 'ReplyError' && !TRANSIENT_REPLY.test(message)) {
        throw new InternalError(`Redis refused a store command: ${message}`, { cause: error });
      }
      const detail = this.#client.status !== 'ready' && this.#lastError ? this.#lastError.message : message;
      throw new StoreUnavailableError(`The redis store at ${this.#where} is unavailable (${detail}).`, {
        cause: error,
      });
    }
  }
}

/** Closes `client` and resolves once it has ended (its pending commands have been rejected). */
function disconnected(client: Redis): Promise<void> {
  // Between reconnection attempts there is no socket left to close, and no 'end' follows.
  if (client.status === 'end' || client.status === 'reconnecting') {
    client.disconnect();
    return Promise.resolve();
  }
  const ended = once(client, 'end').then(() => undefined);
  client.disconnect();
  return ended;
}
