// The opened-record cache of SealedRecords: a record is reused only while the store still holds
// the very ciphertext it was opened from; anything else is opened (and checked) again.
import { describe, expect, it } from 'vitest';
import { Keyring } from '../crypto.js';
import { DecryptError } from '../errors.js';
import { CachedStore } from './cached.js';
import { MemoryStore } from './memory.js';
import { SealedRecords } from './sealed.js';

const keyring = Keyring.fromSecrets({ secret: 'sealed-cache-test-secret-0123456789abcdef' });

describe('SealedRecords with an opened-record cache', () => {
  it('serves a record written elsewhere (another replica) as soon as the store has it', async () => {
    const store = new MemoryStore();
    const cached = new SealedRecords(store, keyring, { openedCacheSize: 8 });
    const other = new SealedRecords(store, keyring);
    await other.set('conn:u1', { token: 'first' });
    expect((await cached.get('conn:u1'))?.value).toEqual({ token: 'first' });
    await other.set('conn:u1', { token: 'second' });
    expect((await cached.get('conn:u1'))?.value).toEqual({ token: 'second' });
    await other.set('conn:u1', { token: 'first' });
    expect((await cached.get('conn:u1'))?.value).toEqual({ token: 'first' });
    await store.delete('conn:u1');
    expect(await cached.get('conn:u1')).toBeUndefined();
  });

  it('never opens a ciphertext moved from another key, even with the target key cached', async () => {
    const store = new MemoryStore();
    const cached = new SealedRecords(store, keyring, { openedCacheSize: 8 });
    await cached.set('conn:alice', { token: 'alice' });
    await cached.set('conn:mallory', { token: 'mallory' });
    expect((await cached.get('conn:alice'))?.value).toEqual({ token: 'alice' });
    expect((await cached.get('conn:mallory'))?.value).toEqual({ token: 'mallory' });
    await store.set('conn:alice', (await store.get('conn:mallory'))?.value as string);
    await expect(cached.get('conn:alice')).rejects.toBeInstanceOf(DecryptError);
  });

  it('hands out frozen values, with the version and expiry of the current read', async () => {
    const store = new MemoryStore();
    const cached = new SealedRecords(store, keyring, { openedCacheSize: 8 });
    await cached.set('conn:u1', { identity: { name: 'A' } }, { ttlMs: 60_000 });
    const first = await cached.get<{ identity: { name: string } }>('conn:u1');
    const again = await cached.open<{ identity: { name: string } }>('conn:u1', await store.get('conn:u1'));
    expect(again?.value).toBe(first?.value);
    expect(again?.version).toBe(first?.version);
    expect(again?.expiresAt).toEqual(expect.any(Number));
    const value = first?.value;
    if (!value) throw new Error('no record');
    expect(() => {
      value.identity.name = 'B';
    }).toThrow(TypeError);
    expect((await cached.get<{ identity: { name: string } }>('conn:u1'))?.value.identity.name).toBe('A');
  });

  it('keeps at most openedCacheSize records and still opens the ones it dropped', async () => {
    const store = new MemoryStore();
    const cached = new SealedRecords(store, keyring, { openedCacheSize: 2 });
    for (const id of [1, 2, 3]) await cached.set(`conn:${id}`, { id });
    for (const id of [1, 2, 3, 1]) expect((await cached.get(`conn:${id}`))?.value).toEqual({ id });
  });

  it('peeks only at a record both kept in memory and opened before, as get would answer it', async () => {
    const inner = new MemoryStore();
    const store = await CachedStore.over(inner, { prefixes: ['conn:'] });
    const cached = new SealedRecords(store, keyring, { openedCacheSize: 8 });
    await cached.set('conn:u1', { token: 'first' }, { ttlMs: 60_000 });
    expect(cached.peek('conn:u1')).toBeUndefined(); // not read yet
    const read = await cached.get('conn:u1');
    expect(cached.peek('conn:u1')).toEqual(read);
    // Written elsewhere: the copy ends with the store's report; get opens the new ciphertext.
    await new SealedRecords(inner, keyring).set('conn:u1', { token: 'second' });
    expect(cached.peek('conn:u1')).toBeUndefined();
    expect((await cached.get('conn:u1'))?.value).toEqual({ token: 'second' });
    expect(cached.peek('conn:u1')?.value).toEqual({ token: 'second' });
    // A ciphertext moved from another key is never served from the opened cache.
    await cached.set('conn:mallory', { token: 'mallory' });
    await cached.get('conn:mallory');
    const moved = (await inner.get('conn:mallory'))?.value as string;
    await inner.set('conn:u1', moved);
    await expect(cached.get('conn:u1')).rejects.toBeInstanceOf(DecryptError);
    expect(cached.peek('conn:u1')).toBeUndefined();
    // Without an opened-record cache there is nothing to peek at.
    const plain = new SealedRecords(store, keyring);
    await plain.get('conn:mallory');
    expect(plain.peek('conn:mallory')).toBeUndefined();
  });
});
