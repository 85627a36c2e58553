import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { createLogger } from '@x/mcp-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from './crypto.js';
import {
  loadSigningKeys,
  publicJwks,
  rotateSigningKeys,
  SIGNING_KEYS_KEY,
  type SigningJwk,
  SigningKeySet,
} from './signing-keys.js';
import { createStore } from './store/create.js';
import type { KvStore } from './store/kv.js';
import { SealedRecords } from './store/sealed.js';
import { type RedisServer, redisRequirement, startRedisServer } from './testing/index.js';

const keyring = Keyring.fromSecrets({ secret: 'signing-keys-test-secret-0123456789abcdefg' });
const logger = createLogger('signing-keys-test', { level: 'silent' });
const kids = (keys: readonly SigningJwk[]) => keys.map((key) => key.kid);

describe('signing keys', () => {
  it('are created once; later loads return the same keys; sealed at rest', async () => {
    const store = await createStore('memory:');
    const [key] = await loadSigningKeys(store, keyring);
    expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String) });
    expect(await loadSigningKeys(store, keyring)).toEqual([key]);
    const raw = (await store.get(SIGNING_KEYS_KEY))?.value ?? '';
    expect(raw).not.toContain(key?.d);
    expect(raw).not.toContain(key?.kid);
  });

  it('sign with the private JWK, verify with the published public JWK (no private part in it)', async () => {
    const [key] = await loadSigningKeys(await createStore('memory:'), keyring);
    const published = publicJwks([key as NonNullable<typeof key>]).keys[0];
    expect(published).not.toHaveProperty('d');
    const signature = sign(
      'sha256',
      Buffer.from('payload'),
      createPrivateKey({ key: key as never, format: 'jwk' }),
    );
    expect(
      verify(
        'sha256',
        Buffer.from('payload'),
        createPublicKey({ key: published as never, format: 'jwk' }),
        signature,
      ),
    ).toBe(true);
  });

  it('rotation puts a new key first and keeps one previous key for verification', async () => {
    const store = await createStore('memory:');
    const [first] = await loadSigningKeys(store, keyring);
    const rotated = await rotateSigningKeys(store, keyring);
    expect(rotated).toHaveLength(2);
    expect(rotated[1]).toEqual(first);
    expect(rotated[0]?.kid).not.toBe(first?.kid);
    const again = await rotateSigningKeys(store, keyring);
    expect(again.map((key) => key.kid)).toEqual([again[0]?.kid, rotated[0]?.kid]);
    expect(await loadSigningKeys(store, keyring)).toEqual(again);
  });

  it('a key set that vanished from the store is written back from memory, not replaced', async () => {
    const store = await createStore('memory:');
    const set = await SigningKeySet.load(store, keyring, { logger });
    const changes: string[][] = [];
    set.onChange((keys) => changes.push(kids(keys)));
    const before = kids(set.keys);
    await store.delete(SIGNING_KEYS_KEY);
    expect(await set.sync()).toMatchObject({ ok: true });
    expect(kids(await loadSigningKeys(store, keyring))).toEqual(before);
    expect(kids(set.keys)).toEqual(before);
    expect(changes).toEqual([]);
  });

  it('another key set in the store (keys rotate, or a replica that made new ones) is adopted at once', async () => {
    const store = await createStore('memory:');
    const set = await SigningKeySet.load(store, keyring, { logger });
    const changes: string[][] = [];
    set.onChange((keys) => changes.push(kids(keys)));
    const rotated = await rotateSigningKeys(store, keyring);
    expect(await set.sync()).toMatchObject({ ok: true });
    expect(kids(set.keys)).toEqual(kids(rotated));
    expect(changes).toEqual([kids(rotated)]);
    // Nothing changed since: no new adoption.
    await set.sync();
    expect(changes).toHaveLength(1);
  });

  it('an access token naming an unknown key makes it look at the store', async () => {
    const store = await createStore('memory:');
    const set = await SigningKeySet.load(store, keyring, { logger });
    const [next] = await rotateSigningKeys(store, keyring);
    expect(await set.knows(next?.kid as string)).toBe(true);
    expect(set.keys[0]?.kid).toBe(next?.kid);
    expect(await set.knows('made-up')).toBe(false);
  });

  it('keys that do not open (another MCP_SECRET) or are not signing keys: kept, and not ok', async () => {
    const store = await createStore('memory:');
    const set = await SigningKeySet.load(store, keyring, { logger });
    const before = kids(set.keys);
    const other = Keyring.fromSecrets({ secret: 'another-secret-entirely-0123456789abcdefghij' });
    await new SealedRecords(store, other).set(SIGNING_KEYS_KEY, { keys: [] });
    expect(await set.sync()).toEqual({
      ok: false,
      detail: 'the signing keys in the store do not open with MCP_SECRET (or MCP_SECRET_PREVIOUS)',
    });
    expect(kids(set.keys)).toEqual(before);
    for (const keys of [[], [{ kty: 'EC', crv: 'P-256', alg: 'ES256', kid: 'x' }], 'nonsense']) {
      await new SealedRecords(store, keyring).set(SIGNING_KEYS_KEY, { keys });
      expect((await set.sync()).ok).toBe(false);
      expect(kids(set.keys)).toEqual(before);
    }
    // Fixed (here: the record removed): restored from memory, ok again.
    await store.delete(SIGNING_KEYS_KEY);
    expect(await set.sync()).toMatchObject({ ok: true });
    expect(kids(await loadSigningKeys(store, keyring))).toEqual(before);
  });

  const requirement = redisRequirement();
  let redis: RedisServer | undefined;
  beforeAll(async () => {
    if ('path' in requirement) redis = await startRedisServer({ path: requirement.path });
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('replicas starting at once on one Redis all end up with the same key', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    const stores = await Promise.all(
      Array.from({ length: 4 }, () => createStore((redis as RedisServer).url)),
    );
    try {
      const loaded = await Promise.all(stores.map((store) => loadSigningKeys(store, keyring)));
      expect(new Set(loaded.map((keys) => keys[0]?.kid)).size).toBe(1);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('replicas holding different keys that notice a lost key set at once end with one set', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    const stores = await Promise.all(
      Array.from({ length: 4 }, () => createStore((redis as RedisServer).url, { prefix: 'lost:' })),
    );
    try {
      // Each replica starts on a store that has just lost the previous replica's keys.
      const sets: SigningKeySet[] = [];
      for (const store of stores) {
        sets.push(await SigningKeySet.load(store, keyring, { logger }));
        await store.delete(SIGNING_KEYS_KEY);
      }
      expect(new Set(sets.map((set) => set.keys[0]?.kid)).size).toBe(4);
      const states = await Promise.all(sets.map((set) => set.sync()));
      expect(states.every((state) => state.ok)).toBe(true);
      const stored = kids(await loadSigningKeys(stores[0] as KvStore, keyring));
      for (const set of sets) expect(kids(set.keys)).toEqual(stored);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});
