import { InvalidInputError } from '@x/mcp-core';
import type { Keyring } from '../crypto.js';
import type { KvSetOptions, KvStore } from './kv.js';

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
 * A record sealed with `MCP_SECRET_PREVIOUS` is sealed again with `MCP_SECRET` when read
 * (compare-and-set, so a newer write is never overwritten).
 */
export class SealedRecords {
  readonly #store: KvStore;
  readonly #keyring: Keyring;

  constructor(store: KvStore, keyring: Keyring) {
    this.#store = store;
    this.#keyring = keyring;
  }

  async get<T>(key: string): Promise<SealedEntry<T> | undefined> {
    const entry = await this.#store.get(key);
    if (!entry) return undefined;
    const opened = this.#keyring.decrypt(entry.value, key);
    const value = JSON.parse(opened.plaintext) as T;
    let version = entry.version;
    if (opened.stale) {
      const ttlMs = entry.expiresAt === undefined ? undefined : entry.expiresAt - Date.now();
      if (ttlMs === undefined || ttlMs > 0) {
        const resealed = await this.#store.set(key, this.#keyring.encrypt(opened.plaintext, key), {
          ifVersion: entry.version,
          ...(ttlMs === undefined ? {} : { ttlMs: Math.max(1, Math.floor(ttlMs)) }),
        });
        if (resealed !== undefined) version = resealed;
      }
    }
    return entry.expiresAt === undefined
      ? { value, version }
      : { value, version, expiresAt: entry.expiresAt };
  }

  /** Seals and writes; the same options and answer as `KvStore.set`. */
  async set(key: string, value: unknown, options?: KvSetOptions): Promise<number | undefined> {
    if (value === undefined)
      throw new InvalidInputError('A sealed record needs a JSON value, not undefined.');
    return this.#store.set(key, this.#keyring.encrypt(JSON.stringify(value), key), options);
  }

  /** Get-and-delete once, decrypted. */
  async consume<T>(key: string): Promise<T | undefined> {
    const sealed = await this.#store.consume(key);
    return sealed === undefined ? undefined : (JSON.parse(this.#keyring.decrypt(sealed, key).plaintext) as T);
  }

  delete(key: string): Promise<boolean> {
    return this.#store.delete(key);
  }
}
