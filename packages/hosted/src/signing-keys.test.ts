import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from './crypto.js';
import { loadSigningKeys, publicJwks, rotateSigningKeys, SIGNING_KEYS_KEY } from './signing-keys.js';
import { createStore } from './store/create.js';
import { type RedisServer, redisRequirement, startRedisServer } from './testing/index.js';

const keyring = Keyring.fromSecrets({ secret: 'signing-keys-test-secret-0123456789abcdefg' });

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
});
