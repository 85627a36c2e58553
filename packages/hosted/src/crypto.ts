import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '@x/mcp-core';
import { DecryptError } from './errors.js';

/** The smallest secret accepted, in bytes (UTF-8): 256 bits for a 256-bit key. */
export const MIN_SECRET_BYTES = 32;

const FORMAT_VERSION = 1;
const KEY_ID_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + KEY_ID_BYTES;
const MIN_CIPHERTEXT_BYTES = HEADER_BYTES + IV_BYTES + TAG_BYTES;
const SALT = 'x-mcp-hosted/keyring/v1';
const BASE64URL = /^[A-Za-z0-9_-]+$/;

interface Key {
  readonly id: Buffer;
  readonly idHex: string;
  readonly dataKey: Buffer;
  readonly secret: Buffer;
}

function hkdf(secret: Buffer, info: string, length: number): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, SALT, info, length));
}

function deriveKey(secret: string, variable: string): Key {
  const bytes = Buffer.from(secret, 'utf8');
  if (bytes.length < MIN_SECRET_BYTES) {
    throw new ConfigError(
      `${variable} must be at least ${MIN_SECRET_BYTES} bytes (it has ${bytes.length}); ` +
        'generate one with `openssl rand -base64 48`.',
    );
  }
  const id = hkdf(bytes, 'key id', KEY_ID_BYTES);
  return { id, idHex: id.toString('hex'), dataKey: hkdf(bytes, 'aes-256-gcm data key', 32), secret: bytes };
}

/** What {@link Keyring.decrypt} opened. */
export interface Opened {
  readonly plaintext: string;
  /** The id of the key that sealed it (16 hex digits, not secret). */
  readonly keyId: string;
  /** Sealed with the previous secret, not `MCP_SECRET`: `keys rotate` seals it again. */
  readonly stale: boolean;
}

export interface KeyringSecrets {
  /** The current secret (`MCP_SECRET`), at least 32 bytes. */
  secret: string;
  /**
   * The secret being rotated out (`MCP_SECRET_PREVIOUS`): still opens, and keeps sealing until
   * the store's `keys:meta` names the current one (see {@link Keyring.useSealingKey}).
   */
  previous?: string | undefined;
}

/**
 * Encryption at rest: AES-256-GCM with keys derived by HKDF-SHA256 from `MCP_SECRET` (and
 * `MCP_SECRET_PREVIOUS` during a rotation). Every ciphertext names its key (an 8-byte key id
 * derived from the secret, not the secret) and is bound to a caller-given context, the record
 * key, as additional authenticated data: moved to another record it no longer opens.
 *
 * Ciphertext layout (base64url): version 0x01 | key id (8) | IV (12) | ciphertext | tag (16);
 * the AAD is version | key id | UTF-8 of the context, so the header is authenticated too.
 *
 * During a rotation the keyring seals with the key the whole fleet can open: the previous one
 * while some replicas may still run with only the old secret, the current one once the store
 * says so (`keys rotate` writes `keys:meta`; {@link useSealingKey}). So replicas restarted one at
 * a time with the new secret never write what the others cannot read, and a replica can go back
 * to the old secret until the rotation has run.
 */
export class Keyring {
  readonly #current: Key;
  readonly #previous: Key | undefined;
  /** The key new ciphertexts (and derived keys) use: the previous one until told otherwise. */
  #sealing: Key;

  private constructor(current: Key, previous: Key | undefined) {
    this.#current = current;
    this.#previous = previous && !previous.id.equals(current.id) ? previous : undefined;
    this.#sealing = this.#previous ?? current;
  }

  static fromSecrets({ secret, previous }: KeyringSecrets): Keyring {
    return new Keyring(
      deriveKey(secret, 'MCP_SECRET'),
      previous === undefined || previous === '' ? undefined : deriveKey(previous, 'MCP_SECRET_PREVIOUS'),
    );
  }

  /**
   * From the environment: `MCP_SECRET` or `MCP_SECRET_FILE` (a file holding it; one trailing
   * newline is dropped), and the optional `MCP_SECRET_PREVIOUS`.
   */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): Keyring {
    const inline = env.MCP_SECRET;
    const file = env.MCP_SECRET_FILE;
    if (inline && file) throw new ConfigError('Set MCP_SECRET or MCP_SECRET_FILE, not both.');
    let secret = inline;
    if (file) {
      try {
        secret = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
      } catch (error) {
        throw new ConfigError(
          `MCP_SECRET_FILE ${file} cannot be read (${(error as NodeJS.ErrnoException).code})`,
          {
            cause: error,
          },
        );
      }
    }
    if (!secret) {
      throw new ConfigError(
        'MCP_SECRET (or MCP_SECRET_FILE) is required: a random secret of at least 32 bytes that ' +
          'encrypts the stored credentials, e.g. from `openssl rand -base64 48`.',
      );
    }
    return Keyring.fromSecrets({ secret, previous: env.MCP_SECRET_PREVIOUS });
  }

  /** The id of `MCP_SECRET`'s key (16 hex digits). */
  get currentKeyId(): string {
    return this.#current.idHex;
  }

  /**
   * The id of the key new ciphertexts are sealed with: `MCP_SECRET_PREVIOUS`'s while a rotation
   * is under way, until {@link useSealingKey} names `MCP_SECRET`'s.
   */
  get sealingKeyId(): string {
    return this.#sealing.idHex;
  }

  /**
   * Seals with the key `keyId` from now on (the fleet's key, from the store's `keys:meta`). A
   * `ConfigError` when it is neither `MCP_SECRET`'s nor `MCP_SECRET_PREVIOUS`'s key.
   */
  useSealingKey(keyId: string): void {
    const key = [this.#current, this.#previous].find((candidate) => candidate?.idHex === keyId);
    if (!key) {
      throw new ConfigError(
        `The store's records are sealed with key ${keyId} (keys:meta), which is neither MCP_SECRET ` +
          `(${this.#current.idHex}) nor MCP_SECRET_PREVIOUS${this.#previous ? ` (${this.#previous.idHex})` : ' (unset)'}: ` +
          'start with the secret of that key (as MCP_SECRET, or as MCP_SECRET_PREVIOUS until `keys rotate` has run).',
      );
    }
    this.#sealing = key;
  }

  /** The ids of every key that can open a ciphertext, the current one first. */
  get keyIds(): string[] {
    return [this.#current.idHex, ...(this.#previous ? [this.#previous.idHex] : [])];
  }

  /**
   * Further key material for another purpose (cookie signing, …), derived with HKDF from the
   * sealing key's secret (so every replica of a fleet mid-rotation derives the same bytes); the
   * same purpose always gives the same bytes for the same secret.
   */
  deriveKey(purpose: string, length = 32): Buffer {
    return hkdf(this.#sealing.secret, `purpose:${purpose}`, length);
  }

  /**
   * {@link deriveKey} for both secrets during a rotation, the sealing key's first: for keys that
   * must still verify what the other secret signed (cookies).
   */
  deriveKeys(purpose: string, length = 32): Buffer[] {
    const other = this.#sealing === this.#current ? this.#previous : this.#current;
    return [this.#sealing, ...(other ? [other] : [])].map((key) =>
      hkdf(key.secret, `purpose:${purpose}`, length),
    );
  }

  /** Seals `plaintext` for the record `context` with the sealing key ({@link sealingKeyId}). */
  encrypt(plaintext: string, context: string): string {
    const key = this.#sealing;
    const header = Buffer.concat([Buffer.of(FORMAT_VERSION), key.id]);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.dataKey, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.concat([header, Buffer.from(context, 'utf8')]));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([header, iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** Opens a ciphertext of {@link encrypt} for the same `context`, with either key. */
  decrypt(ciphertext: string, context: string): Opened {
    if (typeof ciphertext !== 'string' || !BASE64URL.test(ciphertext)) {
      throw new DecryptError('format', 'The ciphertext is not base64url text.');
    }
    const data = Buffer.from(ciphertext, 'base64url');
    if (data.length < MIN_CIPHERTEXT_BYTES) {
      throw new DecryptError('format', `The ciphertext is truncated (${data.length} bytes).`);
    }
    if (data[0] !== FORMAT_VERSION) {
      throw new DecryptError('format', `Unknown ciphertext format version ${data[0]}.`);
    }
    const id = data.subarray(1, HEADER_BYTES);
    const key = [this.#current, this.#previous].find((candidate) => candidate?.id.equals(id));
    if (!key) {
      throw new DecryptError(
        'unknown-key',
        `The ciphertext was sealed with key ${id.toString('hex')}, which is neither MCP_SECRET ` +
          `(${this.#current.idHex}) nor MCP_SECRET_PREVIOUS${this.#previous ? ` (${this.#previous.idHex})` : ' (unset)'}.`,
        { keyId: id.toString('hex') },
      );
    }
    const iv = data.subarray(HEADER_BYTES, HEADER_BYTES + IV_BYTES);
    const tag = data.subarray(data.length - TAG_BYTES);
    const body = data.subarray(HEADER_BYTES + IV_BYTES, data.length - TAG_BYTES);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.dataKey, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.concat([data.subarray(0, HEADER_BYTES), Buffer.from(context, 'utf8')]));
      decipher.setAuthTag(tag);
      const plaintext = Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
      return { plaintext, keyId: key.idHex, stale: key !== this.#current };
    } catch (error) {
      throw new DecryptError(
        'authentication',
        'The ciphertext failed authentication: it was altered, or sealed for another record.',
        { cause: error },
      );
    }
  }
}
