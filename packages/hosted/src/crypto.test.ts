import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Keyring } from './crypto.js';
import { DecryptError } from './errors.js';

const SECRET = 'current-secret-0123456789abcdefghijklmnop';
const PREVIOUS = 'previous-secret-zyxwvutsrqponmlkjihgfedcba';
const ring = Keyring.fromSecrets({ secret: SECRET });

/** The DecryptError a call throws (fails the test when it does not throw one). */
function decryptError(call: () => unknown): DecryptError {
  try {
    call();
  } catch (error) {
    if (DecryptError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a DecryptError');
}

const bytes = (text: string) => Buffer.from(text, 'base64url');
const text = (data: Buffer) => data.toString('base64url');
function flip(ciphertext: string, index: number): string {
  const data = bytes(ciphertext);
  const at = index < 0 ? data.length + index : index;
  data[at] = (data[at] as number) ^ 0x01;
  return text(data);
}

describe('Keyring', () => {
  it('round-trips text for the same record key, with a fresh IV every time', () => {
    const plaintext = JSON.stringify({ accessToken: 'BAhbB0kiAbB7ImNsaWVudF9pZCI6ImFiYyJ9', emoji: '🙂' });
    const a = ring.encrypt(plaintext, 'conn:u1:basecamp');
    const b = ring.encrypt(plaintext, 'conn:u1:basecamp');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(a).not.toContain('BAhbB0k');
    expect(ring.decrypt(a, 'conn:u1:basecamp')).toEqual({
      plaintext,
      keyId: ring.currentKeyId,
      stale: false,
    });
    expect(ring.decrypt(ring.encrypt('', 'k'), 'k').plaintext).toBe('');
  });

  it('a ciphertext moved to another record key does not open (AAD)', () => {
    const sealed = ring.encrypt('token-of-u1', 'conn:u1:basecamp');
    expect(decryptError(() => ring.decrypt(sealed, 'conn:u2:basecamp')).reason).toBe('authentication');
    expect(decryptError(() => ring.decrypt(sealed, '')).reason).toBe('authentication');
  });

  it('every altered byte fails authentication: version, key id, IV, body, tag', () => {
    const sealed = ring.encrypt('a refresh token', 'k');
    const length = bytes(sealed).length;
    expect(decryptError(() => ring.decrypt(flip(sealed, 0), 'k')).reason).toBe('format');
    expect(decryptError(() => ring.decrypt(flip(sealed, 3), 'k')).reason).toBe('unknown-key');
    for (const index of [9, 20, 21, 25, length - 17, length - 16, length - 1]) {
      expect(decryptError(() => ring.decrypt(flip(sealed, index), 'k')).reason, `byte ${index}`).toBe(
        'authentication',
      );
    }
  });

  it('truncated, extended, empty and non-base64url input is a format or authentication error', () => {
    const sealed = ring.encrypt('a refresh token', 'k');
    const data = bytes(sealed);
    expect(decryptError(() => ring.decrypt(text(data.subarray(0, 36)), 'k')).reason).toBe('format');
    expect(decryptError(() => ring.decrypt(text(data.subarray(0, data.length - 1)), 'k')).reason).toBe(
      'authentication',
    );
    expect(decryptError(() => ring.decrypt(text(Buffer.concat([data, Buffer.of(0)])), 'k')).reason).toBe(
      'authentication',
    );
    expect(decryptError(() => ring.decrypt('', 'k')).reason).toBe('format');
    expect(decryptError(() => ring.decrypt(`${sealed}==`, 'k')).reason).toBe('format');
    expect(decryptError(() => ring.decrypt('not base64!', 'k')).reason).toBe('format');
    expect(decryptError(() => ring.decrypt(42 as unknown as string, 'k')).reason).toBe('format');
  });

  it('another secret cannot open it: unknown key id, without leaking either secret', () => {
    const sealed = Keyring.fromSecrets({ secret: PREVIOUS }).encrypt('x', 'k');
    const error = decryptError(() => ring.decrypt(sealed, 'k'));
    expect(error.reason).toBe('unknown-key');
    expect(error.code).toBe('INTERNAL_ERROR');
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toContain(PREVIOUS);
  });

  it('rotation: both secrets open; the previous one seals until the current one is named', () => {
    const old = Keyring.fromSecrets({ secret: PREVIOUS });
    const rotating = Keyring.fromSecrets({ secret: SECRET, previous: PREVIOUS });
    expect(rotating.currentKeyId).toBe(ring.currentKeyId);
    expect(rotating.keyIds).toEqual([ring.currentKeyId, old.currentKeyId]);
    const sealedBefore = old.encrypt('token', 'k');
    expect(rotating.decrypt(sealedBefore, 'k')).toEqual({
      plaintext: 'token',
      keyId: old.currentKeyId,
      stale: true,
    });
    // A replica restarted with both secrets still writes what a replica with the old one reads,
    // and derives the same cookie keys.
    expect(rotating.sealingKeyId).toBe(old.currentKeyId);
    expect(old.decrypt(rotating.encrypt('token', 'k'), 'k')).toMatchObject({ plaintext: 'token' });
    expect(rotating.deriveKey('cookies').equals(old.deriveKey('cookies'))).toBe(true);
    expect(rotating.deriveKeys('cookies')[1]?.equals(ring.deriveKey('cookies'))).toBe(true);

    // Once `keys rotate` names the new key, it seals; the old secret alone no longer opens that.
    rotating.useSealingKey(rotating.currentKeyId);
    expect(rotating.sealingKeyId).toBe(ring.currentKeyId);
    const resealed = rotating.encrypt('token', 'k');
    expect(ring.decrypt(resealed, 'k')).toMatchObject({ plaintext: 'token', stale: false });
    const unknown = decryptError(() => old.decrypt(resealed, 'k'));
    expect(unknown.reason).toBe('unknown-key');
    expect(unknown.keyId).toBe(ring.currentKeyId);
    expect(rotating.deriveKey('cookies').equals(ring.deriveKey('cookies'))).toBe(true);
    expect(decryptError(() => rotating.decrypt(sealedBefore, 'other')).reason).toBe('authentication');

    // A key id neither secret has is refused, with both ids and no secret in the message.
    const stranger = Keyring.fromSecrets({ secret: 'a-third-secret-nobody-holds-0123456789abc' });
    let refused: unknown;
    try {
      rotating.useSealingKey(stranger.currentKeyId);
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ name: 'ConfigError' });
    const message = (refused as Error).message;
    expect(message).toContain(stranger.currentKeyId);
    expect(message).toContain(old.currentKeyId);
    expect(message).not.toContain(SECRET);
    expect(message).not.toContain(PREVIOUS);
    expect(rotating.sealingKeyId).toBe(ring.currentKeyId);
  });

  it('needs at least 32 bytes of secret (UTF-8 bytes), else a ConfigError that names the variable', () => {
    expect(() => Keyring.fromSecrets({ secret: 'x'.repeat(31) })).toThrow(
      expect.objectContaining({
        name: 'ConfigError',
        message: expect.stringContaining('MCP_SECRET must be at least 32 bytes'),
      }),
    );
    expect(() => Keyring.fromSecrets({ secret: SECRET, previous: 'short' })).toThrow(/MCP_SECRET_PREVIOUS/);
    expect(Keyring.fromSecrets({ secret: 'x'.repeat(32) }).currentKeyId).toMatch(/^[0-9a-f]{16}$/);
    expect(Keyring.fromSecrets({ secret: 'é'.repeat(16) }).currentKeyId).toMatch(/^[0-9a-f]{16}$/);
  });

  it('fromEnv: MCP_SECRET, MCP_SECRET_FILE, MCP_SECRET_PREVIOUS; clear errors otherwise', async () => {
    expect(() => Keyring.fromEnv({})).toThrow(
      expect.objectContaining({
        name: 'ConfigError',
        message: expect.stringContaining('MCP_SECRET (or MCP_SECRET_FILE) is required'),
      }),
    );
    expect(Keyring.fromEnv({ MCP_SECRET: SECRET }).currentKeyId).toBe(ring.currentKeyId);
    const dir = await mkdtemp(join(tmpdir(), 'x-secret-'));
    try {
      const file = join(dir, 'secret');
      await writeFile(file, `${SECRET}\n`);
      const fromFile = Keyring.fromEnv({ MCP_SECRET_FILE: file, MCP_SECRET_PREVIOUS: PREVIOUS });
      expect(fromFile.keyIds).toEqual(Keyring.fromSecrets({ secret: SECRET, previous: PREVIOUS }).keyIds);
      expect(() => Keyring.fromEnv({ MCP_SECRET: SECRET, MCP_SECRET_FILE: file })).toThrow(/not both/);
      expect(() => Keyring.fromEnv({ MCP_SECRET_FILE: join(dir, 'missing') })).toThrow(/ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('deriveKey: stable per purpose and secret, different across purposes and secrets', () => {
    expect(ring.deriveKey('cookies')).toEqual(Keyring.fromSecrets({ secret: SECRET }).deriveKey('cookies'));
    expect(ring.deriveKey('cookies')).not.toEqual(ring.deriveKey('csrf'));
    expect(ring.deriveKey('cookies')).not.toEqual(
      Keyring.fromSecrets({ secret: PREVIOUS }).deriveKey('cookies'),
    );
    expect(ring.deriveKey('cookies', 64)).toHaveLength(64);
  });
});
