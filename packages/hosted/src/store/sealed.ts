import { InvalidInputError } from '@x/mcp-core';
import type { Keyring, Opened } from '../crypto.js';
import { DecryptError, KeyUnavailableError } from '../errors.js';
import { followKeyMeta } from '../key-meta.js';
import { CachedStore } from './cached.js';
import type { KvEntry, KvSetOptions, KvStore } from './kv.js';

/** A decrypted record. */
export interface SealedEntry<T> {
  readonly value: T;
  /** The store version, for a compare-and-set write back. */
  readonly version: number;
  readonly expiresAt?: number;
}

/**
 * Records that hold secrets (upstream access and refresh tokens, client secrets, signing
 * keys): JSON, sealed with the keyring for their own record key (AAD), so neither the store
 * nor its backups ever see them in clear, and a ciphertext copied to another key does not open.
 * Reading never writes: a record sealed with `MCP_SECRET_PREVIOUS` stays so until `keys rotate`
 * (replicas still on the old secret must keep reading it). Writes seal with the fleet's key
 * (`keys:meta`, {@link followKeyMeta}). A record sealed with a key this process does not hold is a
 * `KeyUnavailableError` (503), not a crash.
 */
export interface SealedRecordsOptions {
  /**
   * Keep this many opened records in memory (an LRU), each with the exact sealed text it came
   * from: a read that brings back the same ciphertext for the same key skips decryption and JSON
   * parsing. A changed record never matches (its ciphertext differs: a fresh IV on every write).
   * The cached values are frozen. Default 0 (off).
   */
  openedCacheSize?: number;
}

export class SealedRecords {
  readonly #store: KvStore;
  readonly #keyring: Keyring;
  readonly #cacheSize: number;
  readonly #opened = new Map<string, { sealed: string; value: unknown }>();

  constructor(store: KvStore, keyring: Keyring, options: SealedRecordsOptions = {}) {
    this.#store = store;
    this.#keyring = keyring;
    this.#cacheSize = options.openedCacheSize ?? 0;
  }

  async get<T>(key: string): Promise<SealedEntry<T> | undefined> {
    return this.open<T>(key, await this.#store.get(key));
  }

  /**
   * The record as `get` would answer it, without waiting, when the store holds a fresh copy in
   * memory (`CachedStore.peek`) that this instance has opened before; `undefined` otherwise
   * (then `get` reads, or opens, it).
   */
  peek<T>(key: string): SealedEntry<T> | undefined {
    const [entry] = CachedStore.peek(this.#store, [key]) ?? [];
    return entry && this.opened<T>(key, entry);
  }

  /** `entry` (as read from the store) opened from this instance's cache; `undefined` if it is not there. */
  opened<T>(key: string, entry: KvEntry): SealedEntry<T> | undefined {
    const cached = this.#opened.get(key);
    if (!cached || cached.sealed !== entry.value) return undefined;
    this.#opened.delete(key);
    this.#opened.set(key, cached);
    return withExpiry({ value: cached.value as T, version: entry.version }, entry.expiresAt);
  }

  /** A record already read from the store (e.g. by `getMany`), opened as `get` would. */
  async open<T>(key: string, entry: KvEntry | undefined): Promise<SealedEntry<T> | undefined> {
    if (!entry) return undefined;
    const cached = this.opened<T>(key, entry);
    if (cached) return cached;
    const opened = this.#decrypt(entry.value, key);
    const value = JSON.parse(opened.plaintext) as T;
    if (this.#cacheSize > 0) {
      this.#opened.delete(key);
      this.#opened.set(key, { sealed: entry.value, value: deepFreeze(value) });
      if (this.#opened.size > this.#cacheSize)
        this.#opened.delete(this.#opened.keys().next().value as string);
    }
    return withExpiry({ value, version: entry.version }, entry.expiresAt);
  }

  /** Seals and writes; the same options and answer as `KvStore.set`. */
  async set(key: string, value: unknown, options?: KvSetOptions): Promise<number | undefined> {
    if (value === undefined)
      throw new InvalidInputError('A sealed record needs a JSON value, not undefined.');
    await followKeyMeta(this.#store, this.#keyring);
    return this.#store.set(key, this.#keyring.encrypt(JSON.stringify(value), key), options);
  }

  /** Get-and-delete once, decrypted. */
  async consume<T>(key: string): Promise<T | undefined> {
    const sealed = await this.#store.consume(key);
    return sealed === undefined ? undefined : (JSON.parse(this.#decrypt(sealed, key).plaintext) as T);
  }

  delete(key: string): Promise<boolean> {
    this.#opened.delete(key);
    return this.#store.delete(key);
  }

  #decrypt(sealed: string, key: string): Opened {
    try {
      return this.#keyring.decrypt(sealed, key);
    } catch (error) {
      if (DecryptError.isInstance(error) && error.reason === 'unknown-key' && error.keyId) {
        throw new KeyUnavailableError(error.keyId, this.#keyring.keyIds, { cause: error });
      }
      throw error;
    }
  }
}

function withExpiry<T>(entry: { value: T; version: number }, expiresAt: number | undefined): SealedEntry<T> {
  return expiresAt === undefined ? entry : { ...entry, expiresAt };
}

/** Freezes a parsed JSON value all the way down, so a cached record cannot be changed by a reader. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
