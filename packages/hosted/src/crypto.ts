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
  /** Sealed with the previous secret: write it again so it is sealed with the current one. */
  readonly stale: boolean;
}

export interface KeyringSecrets {
  /** The current secret (`MCP_SECRET`), at least 32 bytes. */
  secret: string;
  /** The secret being rotated out (`MCP_SECRET_PREVIOUS`): still opens, never seals. */
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
 */
export class Keyring {
  readonly #current: Key;
  readonly #previous: Key | undefined;

  private constructor(current: Key, previous: Key | undefined) {
    this.#current = current;
    this.#previous = previous && !previous.id.equals(current.id) ? previous : undefined;
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

  /** The id of the key new ciphertexts are sealed with (16 hex digits). */
  get currentKeyId(): string {
    return this.#current.idHex;
  }

  /** The ids of every key that can open a ciphertext, the current one first. */
  get keyIds(): string[] {
    return [this.#current.idHex, ...(this.#previous ? [this.#previous.idHex] : [])];
  }

  /**
   * Further key material for another purpose (cookie signing, …), derived from the current
   * secret with HKDF; the same purpose always gives the same bytes for the same secret.
   */
  deriveKey(purpose: string, length = 32): Buffer {
    return hkdf(this.#current.secret, `purpose:${purpose}`, length);
  }

  /**
   * {@link deriveKey} for the current secret and, during a rotation, the previous one: for keys
   * that must still verify what the previous secret signed (cookies), the current one first.
   */
  deriveKeys(purpose: string, length = 32): Buffer[] {
    return [this.#current, ...(this.#previous ? [this.#previous] : [])].map((key) =>
      hkdf(key.secret, `purpose:${purpose}`, length),
    );
  }

  /** Seals `plaintext` for the record `context` with the current key. */
  encrypt(plaintext: string, context: string): string {
    const key = this.#current;
    const header = Buffer.concat([Buffer.of(FORMAT_VERSION), key.id]);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.dataKey, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.concat([header, Buffer.from(context, 'utf8')]));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([header, iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** Opens a ciphertext of {@link encrypt} for the same `context`, with the current or previous key. */
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
          `(${this.#current.idHex}) nor MCP_SECRET_PREVIOUS${this.#previous ? ` (${this.#previous.idHex})` : ''}.`,
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
