import { describe, expect, it } from 'vitest';
import { Keyring } from './crypto.js';
import {
  createOidcAdapter,
  grantIdsOfAccount,
  oidcKeys,
  REFRESH_TOKEN_REUSE_GRACE_SECONDS,
} from './oidc-adapter.js';
import { createStore } from './store/create.js';
import type { KvStore } from './store/kv.js';

const keyring = Keyring.fromSecrets({ secret: 'oidc-adapter-test-secret-0123456789abcdef' });

async function setup() {
  const store = await createStore('memory:');
  return { store, adapter: createOidcAdapter(store, keyring) };
}

/** Every raw key and value of the given keys, to look for clear text. */
async function raw(store: KvStore, keys: string[]): Promise<string> {
  const parts: string[] = [];
  for (const key of keys) parts.push(key, (await store.get(key))?.value ?? '');
  return parts.join('\n');
}

describe('createOidcAdapter', () => {
  it('stores payloads sealed under a hash of the id, with the TTL oidc-provider asks for', async () => {
    const { store, adapter } = await setup();
    const codes = adapter('AuthorizationCode');
    const payload = {
      jti: 'code-abc-123',
      grantId: 'g1',
      accountId: 'u1',
      clientId: 'client-name-in-clear',
      kind: 'AuthorizationCode',
    };
    await codes.upsert('code-abc-123', payload, 60);
    expect(await codes.find('code-abc-123')).toEqual(payload);
    expect(await codes.find('other')).toBeUndefined();
    // Another model with the same id is another record.
    expect(await adapter('AccessToken').find('code-abc-123')).toBeUndefined();
    const key = oidcKeys.record('AuthorizationCode', 'code-abc-123');
    expect(key).not.toContain('code-abc-123');
    const entry = await store.get(key);
    expect(entry?.expiresAt).toBeGreaterThan(Date.now() + 50_000);
    expect(entry?.value).not.toContain('code-abc-123');
    // Long, distinctive strings only: a short one (say 'c1') turns up in random base64 now and then.
    expect(entry?.value).not.toContain('client-name-in-clear');
    expect(entry?.value).not.toContain('clientId');
  });

  it('never keeps a client secret in clear', async () => {
    const { store, adapter } = await setup();
    await adapter('Client').upsert('client-1', {
      client_id: 'client-1',
      client_secret: 'dcr-secret-xyz-987',
    });
    expect(await adapter('Client').find('client-1')).toMatchObject({ client_secret: 'dcr-secret-xyz-987' });
    expect(await raw(store, [oidcKeys.record('Client', 'client-1')])).not.toContain('dcr-secret-xyz-987');
    expect((await store.get(oidcKeys.record('Client', 'client-1')))?.expiresAt).toBeUndefined();
  });

  it('consume marks the record once; a second consume (a replayed code) is a ConflictError', async () => {
    const { adapter } = await setup();
    const codes = adapter('AuthorizationCode');
    await codes.upsert('code-1', { grantId: 'g1' }, 60);
    await codes.consume('code-1');
    expect((await codes.find('code-1'))?.consumed).toEqual(expect.any(Number));
    await expect(codes.consume('code-1')).rejects.toMatchObject({ code: 'CONFLICT' });
    await codes.consume('missing');
  });

  it('of concurrent consumes of one refresh token exactly one succeeds', async () => {
    const { adapter } = await setup();
    const tokens = adapter('RefreshToken');
    await tokens.upsert('rt-1', { grantId: 'g1' }, 3600);
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => tokens.consume('rt-1')));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
  });

  it('a refresh token used within the grace is not found (a race); used earlier, it is (a replay)', async () => {
    const { adapter } = await setup();
    const tokens = adapter('RefreshToken');
    await tokens.upsert('rt-1', { grantId: 'g1' }, 3600);
    await tokens.consume('rt-1');
    expect(await tokens.find('rt-1')).toBeUndefined();
    const usedLongAgo = Math.floor(Date.now() / 1000) - REFRESH_TOKEN_REUSE_GRACE_SECONDS - 1;
    await tokens.upsert('rt-2', { grantId: 'g1', consumed: usedLongAgo }, 3600);
    expect(await tokens.find('rt-2')).toMatchObject({ consumed: usedLongAgo });
    // Codes have no grace: a reused code always comes back marked, and revokes its grant.
    await adapter('AuthorizationCode').upsert('code-1', { grantId: 'g1' }, 60);
    await adapter('AuthorizationCode').consume('code-1');
    expect(await adapter('AuthorizationCode').find('code-1')).toMatchObject({ consumed: expect.any(Number) });
  });

  it('revokeByGrantId removes every record of the grant and nothing else', async () => {
    const { store, adapter } = await setup();
    await adapter('AuthorizationCode').upsert('code-1', { grantId: 'g1' }, 60);
    await adapter('AccessToken').upsert('at-1', { grantId: 'g1' }, 3600);
    await adapter('RefreshToken').upsert('rt-1', { grantId: 'g1' }, 86_400);
    await adapter('RefreshToken').upsert('rt-2', { grantId: 'g2' }, 86_400);
    expect(await store.smembers(oidcKeys.grant('g1'))).toHaveLength(3);
    await adapter('RefreshToken').revokeByGrantId('g1');
    expect(await adapter('AuthorizationCode').find('code-1')).toBeUndefined();
    expect(await adapter('AccessToken').find('at-1')).toBeUndefined();
    expect(await adapter('RefreshToken').find('rt-1')).toBeUndefined();
    expect(await adapter('RefreshToken').find('rt-2')).toBeDefined();
    expect(await store.smembers(oidcKeys.grant('g1'))).toEqual([]);
  });

  it('sessions by uid, grants by account; destroy cleans the indexes', async () => {
    const { store, adapter } = await setup();
    await adapter('Session').upsert('session-cookie-value', { uid: 'uid-1', accountId: 'u1' }, 3600);
    expect(await adapter('Session').findByUid('uid-1')).toMatchObject({ accountId: 'u1' });
    expect(await raw(store, [oidcKeys.uid('uid-1')])).not.toContain('session-cookie-value');
    await adapter('Grant').upsert('g1', { accountId: 'u1', clientId: 'c1' }, 3600);
    await adapter('Grant').upsert('g2', { accountId: 'u1', clientId: 'c2' }, 3600);
    expect((await grantIdsOfAccount(store, 'u1')).sort()).toEqual(['g1', 'g2']);
    await adapter('AccessToken').upsert('at-1', { grantId: 'g1' }, 3600);

    await adapter('Session').destroy('session-cookie-value');
    expect(await adapter('Session').findByUid('uid-1')).toBeUndefined();
    expect(await store.get(oidcKeys.uid('uid-1'))).toBeUndefined();
    await adapter('Grant').destroy('g1');
    expect(await grantIdsOfAccount(store, 'u1')).toEqual(['g2']);
    await adapter('AccessToken').destroy('at-1');
    expect(await store.smembers(oidcKeys.grant('g1'))).toEqual([]);
    await adapter('AccessToken').destroy('never-existed');
  });

  it('device codes by user code', async () => {
    const { adapter } = await setup();
    await adapter('DeviceCode').upsert('dc-1', { userCode: 'ABCD-EFGH', grantId: 'g1' }, 600);
    expect(await adapter('DeviceCode').findByUserCode('ABCD-EFGH')).toMatchObject({ userCode: 'ABCD-EFGH' });
    expect(await adapter('DeviceCode').findByUserCode('ZZZZ-ZZZZ')).toBeUndefined();
  });
});
