// Secrets written through SealedRecords never reach the store's raw keys, values or files in clear.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from '../crypto.js';
import { DecryptError, KeyUnavailableError, StoreUnavailableError } from '../errors.js';
import { activateCurrentKey, readKeyMeta } from '../key-meta.js';
import { type RedisServer, redisRequirement, startRedisServer } from '../testing/index.js';
import { createStore } from './create.js';
import type { KvStore } from './kv.js';
import { SealedRecords } from './sealed.js';

const SECRET = 'at-rest-test-secret-0123456789abcdefghij';
const keyring = Keyring.fromSecrets({ secret: SECRET });

/** Upstream-token-shaped secrets: a Launchpad access/refresh token pair, a Forge token, a client secret. */
const secrets = {
  accessToken: `BAhbB0kiAbB7ImNsaWVudF9pZCI6${randomBytes(24).toString('base64url')}`,
  refreshToken: `BAhbB0kiAbB7InJlZnJlc2gi${randomBytes(24).toString('base64url')}`,
  forgeToken: `forge_${randomBytes(20).toString('hex')}`,
  clientSecret: randomBytes(32).toString('base64url'),
};
/** Each secret, and pieces of it long enough to be recognisable, in the encodings a leak could take. */
function needles(): string[] {
  return Object.values(secrets).flatMap((secret) => [
    secret,
    secret.slice(8, 24),
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('hex'),
  ]);
}
async function writeSecrets(store: KvStore): Promise<SealedRecords> {
  const records = new SealedRecords(store, keyring);
  await records.set('conn:u1:basecamp', { v: 1, status: 'active', ...secrets });
  await records.set('pending:state1', { clientSecret: secrets.clientSecret }, { ttlMs: 60_000 });
  return records;
}

describe('at rest: sqlite store', () => {
  it('no secret in clear in the database file, its -wal or -shm (while open and after close); files 0600', async () => {
    const root = await mkdtemp(join(tmpdir(), 'x-at-rest-'));
    const dir = join(root, 'state');
    try {
      const store = await createStore(`sqlite:${join(dir, 'store.db')}`);
      const records = await writeSecrets(store);
      expect((await records.get<typeof secrets>('conn:u1:basecamp'))?.value.refreshToken).toBe(
        secrets.refreshToken,
      );
      const scan = async () => {
        const files = await readdir(dir);
        for (const file of files) {
          const raw = await readFile(join(dir, file));
          expect((await stat(join(dir, file))).mode & 0o777, file).toBe(0o600);
          for (const needle of needles())
            expect(raw.includes(needle), `${file} contains a secret`).toBe(false);
        }
        return files;
      };
      // Open: the newest writes are in store.db-wal.
      expect((await scan()).sort()).toEqual(['store.db', 'store.db-shm', 'store.db-wal']);
      await store.close();
      expect(await scan()).toContain('store.db');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('at rest: sealed records', () => {
  it('bound to their key: a sealed value copied to another key does not open', async () => {
    const store = await createStore('memory:');
    const records = await writeSecrets(store);
    const raw = (await store.get('conn:u1:basecamp'))?.value as string;
    await store.set('conn:u2:basecamp', raw);
    await expect(records.get('conn:u2:basecamp')).rejects.toSatisfy(DecryptError.isInstance);
    expect(await records.consume('pending:state1')).toEqual({ clientSecret: secrets.clientSecret });
    expect(await records.consume('pending:state1')).toBeUndefined();
  });

  it('rotation: reading never re-seals; writes follow the key keys:meta names', async () => {
    const store = await createStore('memory:');
    const PREVIOUS = 'the-previous-secret-0123456789abcdefgh';
    const old = Keyring.fromSecrets({ secret: PREVIOUS });
    const oldVersion = (await new SealedRecords(store, old).set(
      'conn:u1:forge',
      { token: 't' },
      { ttlMs: 60_000 },
    )) as number;
    const rotating = Keyring.fromSecrets({ secret: SECRET, previous: PREVIOUS });
    const records = new SealedRecords(store, rotating);
    const entry = await records.get<{ token: string }>('conn:u1:forge');
    expect(entry).toMatchObject({ value: { token: 't' }, version: oldVersion });
    expect((await store.get('conn:u1:forge'))?.version).toBe(oldVersion);
    // A write by the replica with both secrets still opens with the old one alone.
    await records.set('conn:u2:forge', { token: 'u' });
    expect(old.decrypt((await store.get('conn:u2:forge'))?.value as string, 'conn:u2:forge').plaintext).toBe(
      '{"token":"u"}',
    );
    // `keys rotate` (another process) names the new key: the next write here follows it.
    await activateCurrentKey(store, Keyring.fromSecrets({ secret: SECRET, previous: PREVIOUS }));
    expect(await readKeyMeta(store)).toMatchObject({ active: keyring.currentKeyId });
    await records.set('conn:u3:forge', { token: 'v' });
    expect(rotating.sealingKeyId).toBe(keyring.currentKeyId);
    expect(keyring.decrypt((await store.get('conn:u3:forge'))?.value as string, 'conn:u3:forge').stale).toBe(
      false,
    );
    // A replica left with only the old secret: a 503-kind error naming the key it lacks.
    const error = await new SealedRecords(store, old).get('conn:u3:forge').then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(KeyUnavailableError.isInstance(error)).toBe(true);
    expect(StoreUnavailableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ keyId: keyring.currentKeyId, retryable: true });
    expect((error as Error).message).toContain(keyring.currentKeyId);
    expect((error as Error).message).not.toContain(SECRET);
    expect((error as Error).message).not.toContain(PREVIOUS);
    // …and it cannot write either once the store names a key it does not hold.
    const stale = Keyring.fromSecrets({
      secret: 'a-third-secret-nobody-holds-0123456789abc',
      previous: PREVIOUS,
    });
    await expect(new SealedRecords(store, stale).set('conn:u4:forge', { token: 'w' })).rejects.toSatisfy(
      KeyUnavailableError.isInstance,
    );
    expect(await store.get('conn:u4:forge')).toBeUndefined();
    await expect(new SealedRecords(store, keyring).set('x', undefined)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});

const requirement = redisRequirement();
describe('at rest: redis store', () => {
  let server: RedisServer | undefined;
  beforeAll(async () => {
    if ('path' in requirement) server = await startRedisServer({ path: requirement.path });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('no secret in clear in any Redis key or value', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    const url = (server as RedisServer).url;
    const store = await createStore(url);
    await writeSecrets(store);
    await store.sadd('oidc:idx:account:u1', ['grant-1']);
    await store.close();
    const raw = new Redis(url);
    try {
      const keys = await raw.keys('*');
      expect(keys).toContain('xmcp:kv:conn:u1:basecamp');
      for (const key of keys) {
        const type = await raw.type(key);
        const dump = JSON.stringify(
          type === 'hash'
            ? await raw.hgetall(key)
            : type === 'set'
              ? await raw.smembers(key)
              : await raw.get(key),
        );
        for (const needle of needles()) {
          expect(key.includes(needle) || dump.includes(needle), `${key} contains a secret`).toBe(false);
        }
      }
    } finally {
      raw.disconnect();
    }
  });
});
