// `users forget` and `keys rotate` on the stores a deployment uses (file and Redis), with the
// hosted server in process: what is deleted, what stays working, what the new secret opens.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Launchpad } from '@x/mcp-basecamp/connection';
import { type FakeBasecamp, startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from '../crypto.js';
import { DecryptError } from '../errors.js';
import { loadSigningKeys } from '../signing-keys.js';
import { createStore } from '../store/create.js';
import type { KvStore } from '../store/kv.js';
import { SealedRecords } from '../store/sealed.js';
import { HostedTaskStore } from '../store/tasks.js';
import { type RedisServer, redisRequirement, startRedisServer } from '../testing/index.js';
import { forgetUser, listUsers, resolveUser, rotateKeys } from './admin.js';
import {
  ALICE,
  BOB,
  postToolsList,
  type Replica,
  SECRET,
  signIn,
  startReplica,
  startRoundRobinProxy,
} from './fixture.js';

const NEW_SECRET = 'the-next-secret-after-rotation-0123456789abcdef';
const requirement = redisRequirement();

let redis: RedisServer | undefined;
let fake: FakeBasecamp;
beforeAll(async () => {
  fake = await startFakeBasecamp();
  if ('path' in requirement) redis = await startRedisServer({ path: requirement.path });
});
afterAll(async () => {
  await fake?.close();
  await redis?.stop();
});

/** Every record's key and whether it names `user` once opened (keys hold hashes, values are sealed). */
async function recordsMentioning(store: KvStore, keyring: Keyring, needle: string): Promise<string[]> {
  const sealed = new SealedRecords(store, keyring);
  const found: string[] = [];
  for (const key of await store.keys('')) {
    if (key.includes(needle)) {
      found.push(key);
      continue;
    }
    const text = await sealed.get<unknown>(key).then(
      (entry) => JSON.stringify(entry?.value),
      async () => (await store.get(key))?.value ?? '',
    );
    if (text.includes(needle)) found.push(key);
  }
  return found;
}

const drivers: Array<{
  name: string;
  url: () => Promise<string>;
  guard?: (skip: (note: string) => void) => void;
}> = [
  {
    name: 'sqlite',
    url: async () => `sqlite:${join(await mkdtemp(join(tmpdir(), 'hosted-admin-')), 'store.db')}`,
  },
  {
    name: 'redis',
    url: async () => (redis as RedisServer).url,
    guard: (skip) => {
      if ('skip' in requirement) skip(requirement.skip);
    },
  },
];

for (const driver of drivers) {
  describe(`admin on the ${driver.name} store`, () => {
    it('users forget <email>: nothing of the user is left; others keep working', async (context) => {
      driver.guard?.((note) => context.skip(note));
      const keyring = Keyring.fromSecrets({ secret: SECRET });
      const store = await createStore(await driver.url());
      let replica: Replica | undefined;
      try {
        replica = await startReplica({ fake, store, keyring });
        const env = { url: replica.http.url, fake };
        const alice = await signIn(env, ALICE);
        const bob = await signIn(env, BOB);
        await Promise.all([alice.close(), bob.close()]);
        const aliceToken = (alice.oauth.tokens() as { access_token: string }).access_token;
        const bobToken = (bob.oauth.tokens() as { access_token: string }).access_token;
        const basecampToken = (await replica.hosted.connections.get('basecamp:101'))?.accessToken as string;
        // A task each (a long tool call's state and result, as the server keeps them).
        const tasks = new HostedTaskStore(store, keyring);
        const task = (owner: string) => ({
          taskId: `task-of-${owner}`,
          owner,
          tool: 'basecamp_create_project_from_template',
          status: 'completed' as const,
          createdAt: new Date().toISOString(),
          lastUpdatedAt: new Date().toISOString(),
          ttlMs: 60_000,
          pollIntervalMs: 1000,
          result: { content: [{ type: 'text' as const, text: 'Project The Leto Laptop' }] },
        });
        await tasks.create(task('user:basecamp:101'));
        await tasks.create(task('user:basecamp:202'));
        expect(await recordsMentioning(store, keyring, 'basecamp:101')).not.toEqual([]);

        expect(await resolveUser(store, keyring, 'ALICE@example.com')).toBe('basecamp:101');
        await expect(resolveUser(store, keyring, 'nobody@example.com')).rejects.toMatchObject({
          code: 'NOT_FOUND',
        });
        const launchpad = new Launchpad({
          clientId: fake.client.id,
          clientSecret: fake.client.secret,
          url: fake.launchpadUrl,
          redirectUri: '',
        });
        const result = await forgetUser(store, keyring, 'basecamp:101', {
          signIn: launchpad,
          linked: ['forge'],
        });
        expect(result).toMatchObject({
          grants: 1,
          connection: true,
          connections: 1,
          consents: 1,
          upstream: true,
        });
        expect(result.sessions).toBeGreaterThanOrEqual(1);
        expect(fake.revoked).toContain(basecampToken);

        expect(await recordsMentioning(store, keyring, 'basecamp:101')).toEqual([]);
        expect(await recordsMentioning(store, keyring, 'alice@example.com')).toEqual([]);
        expect((await listUsers(store, keyring)).map((user) => user.user)).toEqual(['basecamp:202']);
        expect(await tasks.list('user:basecamp:101')).toEqual([]);
        expect((await tasks.list('user:basecamp:202')).map((entry) => entry.taskId)).toEqual([
          'task-of-user:basecamp:202',
        ]);
        expect((await postToolsList(env.url, aliceToken)).status).toBe(401);
        expect((await postToolsList(env.url, bobToken)).status).toBe(200);
        await expect(resolveUser(store, keyring, 'alice@example.com')).rejects.toMatchObject({
          code: 'NOT_FOUND',
        });
      } finally {
        await replica?.http.close();
        await store.close();
      }
    });

    it('keys rotate: everything sealed again with the new secret, a new signing key, old tokens still verify', async (context) => {
      driver.guard?.((note) => context.skip(note));
      const url = await driver.url();
      // One public origin across the restart (the issuer every token names).
      const front = await startRoundRobinProxy();
      const mcp = `${front.origin}/mcp`;
      const old = Keyring.fromSecrets({ secret: SECRET });
      let store = await createStore(url);
      let replica: Replica | undefined = await startReplica({
        fake,
        store,
        keyring: old,
        publicUrl: front.origin,
      });
      front.upstreams.push(new URL(replica.http.url).origin);
      const bob = await signIn({ url: mcp, fake }, BOB);
      await bob.close();
      const bobToken = (bob.oauth.tokens() as { access_token: string }).access_token;
      const oldKid = (await loadSigningKeys(store, old))[0]?.kid;
      await replica.http.close();
      await store.close();
      replica = undefined;

      // The rotation runs with MCP_SECRET = new and MCP_SECRET_PREVIOUS = old.
      const rotating = Keyring.fromSecrets({ secret: NEW_SECRET, previous: SECRET });
      store = await createStore(url);
      const result = await rotateKeys(store, rotating);
      expect(result.keyId).toBe(Keyring.fromSecrets({ secret: NEW_SECRET }).currentKeyId);
      expect(result.resealed).toBeGreaterThan(3);
      expect(result.unreadable).toBe(0);
      expect(result.retainedSigningKeys).toEqual([oldKid]);
      expect(result.signingKey).not.toBe(oldKid);
      expect(result.signingKeyRotated).toBe(true);
      // Again at once: nothing left to seal, and the signing key that signed Bob's token is kept.
      expect(await rotateKeys(store, rotating)).toMatchObject({
        resealed: 0,
        signingKeyRotated: false,
        signingKey: result.signingKey,
        retainedSigningKeys: [oldKid],
      });
      await store.close();

      // MCP_SECRET_PREVIOUS dropped: the new secret alone opens every sealed record.
      const fresh = Keyring.fromSecrets({ secret: NEW_SECRET });
      store = await createStore(url);
      try {
        for (const key of await store.keys('')) {
          const value = (await store.get(key))?.value ?? '';
          try {
            fresh.decrypt(value, key);
          } catch (error) {
            expect(DecryptError.isInstance(error) && error.reason).toBe('format');
          }
        }
        replica = await startReplica({ fake, store, keyring: fresh, publicUrl: front.origin });
        front.upstreams.splice(0, 1, new URL(replica.http.url).origin);
        // Bob's token was signed with the old key, which is still published: it verifies, and
        // his Basecamp connection (sealed again) still opens.
        const bobAnswer = await postToolsList(mcp, bobToken);
        expect(bobAnswer.status).toBe(200);
        const alice = await signIn({ url: mcp, fake }, ALICE);
        await alice.close();
        const aliceToken = (alice.oauth.tokens() as { access_token: string }).access_token;
        expect(decodeProtectedHeader(aliceToken).kid).toBe(result.signingKey);
        expect((await postToolsList(mcp, aliceToken)).status).toBe(200);
      } finally {
        await replica?.http.close();
        await store.close();
        await front.close();
      }
    });

    it('a fleet mid-rotation: a replica started before the new signing key accepts tokens signed with it', async (context) => {
      driver.guard?.((note) => context.skip(note));
      // Step 1 of a rotation: replicas run with the new secret and the old one as previous.
      const keyring = Keyring.fromSecrets({ secret: NEW_SECRET, previous: SECRET });
      const store = await createStore(await driver.url());
      const front = await startRoundRobinProxy();
      const replicas: Replica[] = [];
      try {
        replicas.push(await startReplica({ fake, store, keyring, publicUrl: front.origin }));
        const before = (await loadSigningKeys(store, keyring))[0]?.kid;
        // keys rotate, then one replica restarts (here: a new one starts) and signs with the new key.
        const { signingKey } = await rotateKeys(store, keyring, { signingKeyMinAgeMs: 0 });
        replicas.push(await startReplica({ fake, store, keyring, publicUrl: front.origin }));
        front.upstreams.push(new URL((replicas[1] as Replica).http.url).origin);
        const alice = await signIn({ url: `${front.origin}/mcp`, fake }, ALICE);
        await alice.close();
        const token = (alice.oauth.tokens() as { access_token: string }).access_token;
        expect(decodeProtectedHeader(token).kid).toBe(signingKey);
        expect(signingKey).not.toBe(before);
        // The replica that loaded only the old key meets the new one and loads the keys again.
        expect((await postToolsList((replicas[0] as Replica).http.url, token)).status).toBe(200);
      } finally {
        await Promise.all(replicas.map((replica) => replica.http.close()));
        await store.close();
        await front.close();
      }
    });
  });
}
