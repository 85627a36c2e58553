// A rolling rotation of MCP_SECRET across two replicas on one Redis behind a round-robin proxy
// (docs/deployment.md, "Rotating MCP_SECRET"): replicas restarted one at a time with the new
// secret and the old one as previous keep serving everyone, whichever replica a request reaches;
// `keys rotate` switches the fleet to the new key; then the previous secret goes. And the drills
// around it: going back to the old secret before `keys rotate`, a replica forgotten on the old one.
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Launchpad } from '@x/mcp-basecamp/connection';
import { type FakeBasecamp, type FakeIdentity, startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { createLogger } from '@x/mcp-core';
import { closedPort, startHttpBin, startProcess } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from '../crypto.js';
import { DecryptError } from '../errors.js';
import { readKeyMeta } from '../key-meta.js';
import { createStore } from '../store/create.js';
import type { KvStore } from '../store/kv.js';
import { type RedisServer, redisRequirement, startRedisServer } from '../testing/index.js';
import { rotateKeys } from './admin.js';
import { Connections } from './connections.js';
import {
  ALICE,
  BOB,
  oauthBinEnv,
  postToolsList,
  type Replica,
  type RoundRobinProxy,
  SECRET,
  type SignedIn,
  signIn,
  startReplica,
  startRoundRobinProxy,
} from './fixture.js';

const NEW_SECRET = 'the-rolled-in-secret-of-this-test-0123456789abcdef';
const CAROL: FakeIdentity = {
  id: 303_1,
  firstName: 'Carol',
  lastName: 'Chen',
  email: 'carol@example.com',
  accounts: [{ id: 999999999, name: 'Honcho Design' }],
};
const requirement = redisRequirement();
const bin = fileURLToPath(new URL('../../../../apps/server/dist/bin.js', import.meta.url));

/** Each replica is its own process in production: its own keyring (its sealing key is its state). */
const oldSecret = () => Keyring.fromSecrets({ secret: SECRET });
const bothSecrets = () => Keyring.fromSecrets({ secret: NEW_SECRET, previous: SECRET });
const newSecret = () => Keyring.fromSecrets({ secret: NEW_SECRET });
const OLD_KEY = oldSecret().currentKeyId;
const NEW_KEY = newSecret().currentKeyId;

let redis: RedisServer | undefined;
let fake: FakeBasecamp;
beforeAll(async () => {
  if ('path' in requirement) redis = await startRedisServer({ path: requirement.path });
  fake = await startFakeBasecamp();
});
afterAll(async () => {
  await fake?.close();
  await redis?.stop();
});

interface Running {
  replica: Replica;
  store: KvStore;
  keyring: Keyring;
  /** What the replica logged (error level and up). */
  errors: string[];
}

/** Two replicas behind one proxy, on one Redis (a prefix of their own per test). */
class Fleet {
  readonly running: Array<Running | undefined> = [];
  readonly #prefix: string;
  proxy!: RoundRobinProxy;

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  get mcp(): string {
    return `${this.proxy.origin}/mcp`;
  }

  async open(keyrings: Keyring[]): Promise<void> {
    this.proxy = await startRoundRobinProxy();
    for (const [index, keyring] of keyrings.entries()) await this.start(index, keyring);
  }

  /** Starts replica `index` with `keyring` (a restart when it ran), in its place behind the proxy. */
  async start(index: number, keyring: Keyring): Promise<Running> {
    await this.stop(index);
    const running = await this.replica(keyring);
    this.running[index] = running;
    this.proxy.upstreams[index] = new URL(running.replica.http.url).origin;
    return running;
  }

  /** A replica on the fleet's store, not behind the proxy. */
  async replica(keyring: Keyring): Promise<Running> {
    const store = await this.store();
    const errors: string[] = [];
    const logger = createLogger('replica', { level: 'error', write: (line) => errors.push(line) });
    try {
      const replica = await startReplica({
        fake,
        store,
        keyring,
        publicUrl: this.proxy.origin,
        overrides: { logger },
      });
      return { replica, store, keyring, errors };
    } catch (error) {
      await store.close();
      throw error;
    }
  }

  store(): Promise<KvStore> {
    return createStore((redis as RedisServer).url, { prefix: this.#prefix });
  }

  async stop(index: number): Promise<void> {
    const running = this.running[index];
    this.running[index] = undefined;
    await running?.replica.http.close();
    await running?.store.close();
  }

  url(index: number): string {
    return (this.running[index] as Running).replica.http.url;
  }

  /** Only replica `index` behind the proxy while `run` runs (every step of a sign-in lands there). */
  async only<T>(index: number, run: () => Promise<T>): Promise<T> {
    const all = [...this.proxy.upstreams];
    this.proxy.upstreams.splice(0, all.length, all[index] as string);
    try {
      return await run();
    } finally {
      this.proxy.upstreams.splice(0, 1, ...all);
    }
  }

  async close(): Promise<void> {
    for (let index = 0; index < this.running.length; index++) await this.stop(index);
    await this.proxy?.close();
  }
}

/** A user's tokens as their MCP client holds them. */
interface Tokens {
  user: string;
  clientId: string;
  accessToken: string;
  refreshToken: string;
}

async function signInTokens(url: string, identity: FakeIdentity): Promise<Tokens> {
  const signed: SignedIn = await signIn({ url, fake }, identity);
  await signed.close();
  const tokens = signed.oauth.tokens() as { access_token: string; refresh_token: string };
  return {
    user: `basecamp:${identity.id}`,
    clientId: signed.oauth.clientInformation()?.client_id as string,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
  };
}

/** Our own refresh grant at one replica's /token: the new pair. */
async function refreshAt(replicaUrl: string, tokens: Tokens): Promise<Tokens> {
  const response = await fetch(new URL('/token', replicaUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: tokens.clientId,
      refresh_token: tokens.refreshToken,
    }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  const body = (await response.json()) as { access_token: string; refresh_token: string };
  return { ...tokens, accessToken: body.access_token, refreshToken: body.refresh_token };
}

/** `whoami` and a Basecamp tool, straight at one replica: both answer as `tokens.user`. */
async function servedBy(replicaUrl: string, tokens: Tokens): Promise<void> {
  const client = new Client({ name: 'rotation-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(replicaUrl), {
      requestInit: { headers: { authorization: `Bearer ${tokens.accessToken}` } },
    }),
  );
  try {
    const who = await client.callTool({ name: 'whoami', arguments: {} });
    expect(JSON.parse((who.content as Array<{ text: string }>)[0]?.text ?? '{}')).toEqual({
      user: tokens.user,
    });
    const projects = await client.callTool({ name: 'basecamp_list_projects', arguments: {} });
    expect(projects.isError, JSON.stringify(projects.content)).toBeFalsy();
  } finally {
    await client.close();
  }
}

/** Every user through every running replica. */
async function everyoneServed(fleet: Fleet, users: Tokens[]): Promise<void> {
  for (const [index, running] of fleet.running.entries()) {
    if (!running) continue;
    for (const tokens of users) await servedBy(fleet.url(index), tokens);
  }
}

/** The keys of sealed records in the store that `keyring` cannot open (JSON and counters aside). */
async function unopenable(store: KvStore, keyring: Keyring): Promise<string[]> {
  const failed: string[] = [];
  for (const key of await store.keys('')) {
    const value = (await store.get(key))?.value;
    if (value === undefined) continue;
    try {
      keyring.decrypt(value, key);
    } catch (error) {
      if (!DecryptError.isInstance(error) || error.reason !== 'format') failed.push(key);
    }
  }
  return failed;
}

/** Ages a user's Basecamp token past its expiry, so the next tool call refreshes it. */
async function expireUpstream(store: KvStore, keyring: Keyring, user: string): Promise<void> {
  const connections = new Connections(
    store,
    keyring,
    new Launchpad({ clientId: 'unused', clientSecret: 'unused', url: fake.launchpadUrl, redirectUri: '' }),
  );
  const connection = await connections.get(user);
  if (!connection) throw new Error(`${user} has no connection`);
  await connections.save(user, { ...connection, expiresAt: Date.now() - 1000 });
}

describe('rotating MCP_SECRET across two replicas on one Redis', () => {
  it('a rolling restart keeps both replicas serving everyone, through keys rotate and after the old secret is gone', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    const fleet = new Fleet('rolling:');
    try {
      await fleet.open([oldSecret(), oldSecret()]);
      let alice = await signInTokens(fleet.mcp, ALICE);
      let bob = await signInTokens(fleet.mcp, BOB);
      await everyoneServed(fleet, [alice, bob]);

      // Step 1, replica 1: restarted with the new secret and the old one as previous.
      const first = await fleet.start(0, bothSecrets());
      expect(first.keyring.sealingKeyId).toBe(OLD_KEY);
      expect(await readKeyMeta(first.store)).toMatchObject({ active: OLD_KEY });
      await everyoneServed(fleet, [alice, bob]);
      // Writes through the new replica: a sign-in, our refresh grant, a Basecamp refresh.
      alice = await fleet.only(0, () => signInTokens(fleet.mcp, ALICE));
      bob = await refreshAt(fleet.url(0), bob);
      await expireUpstream(first.store, oldSecret(), alice.user);
      fake.resetLog();
      await servedBy(fleet.url(0), alice);
      expect(fake.tokenRequests('refresh').map((request) => request.status)).toEqual([200]);
      // …and the replica still on the old secret alone reads all of it.
      await everyoneServed(fleet, [alice, bob]);
      expect(await unopenable(first.store, oldSecret())).toEqual([]);
      expect(fake.tokenRequests('refresh')).toHaveLength(1);

      // Step 1, replica 2.
      await fleet.start(1, bothSecrets());
      await everyoneServed(fleet, [alice, bob]);
      expect(await unopenable(first.store, oldSecret())).toEqual([]);

      // Step 2: keys rotate (its own process, with both secrets).
      const rotation = await rotateKeys(first.store, bothSecrets(), { signingKeyMinAgeMs: 0 });
      expect(rotation).toMatchObject({ keyId: NEW_KEY, unreadable: 0, signingKeyRotated: true });
      expect(rotation.resealed).toBeGreaterThan(5);
      expect(await readKeyMeta(first.store)).toMatchObject({ active: NEW_KEY });
      expect(await unopenable(first.store, newSecret())).toEqual([]);
      await everyoneServed(fleet, [alice, bob]);
      // The running replicas write with the new key from their next write on.
      bob = await refreshAt(fleet.url(1), bob);
      expect((fleet.running[1] as Running).keyring.sealingKeyId).toBe(NEW_KEY);
      alice = await fleet.only(0, () => signInTokens(fleet.mcp, ALICE));
      expect(first.keyring.sealingKeyId).toBe(NEW_KEY);
      expect(await unopenable(first.store, newSecret())).toEqual([]);

      // Step 3: the previous secret removed, one replica at a time.
      await fleet.start(0, newSecret());
      await everyoneServed(fleet, [alice, bob]);
      await fleet.start(1, newSecret());
      await everyoneServed(fleet, [alice, bob]);
      bob = await refreshAt(fleet.url(0), bob);
      await everyoneServed(fleet, [alice, bob]);
      for (const running of fleet.running) expect(running?.errors).toEqual([]);
    } finally {
      await fleet.close();
    }
  }, 120_000);

  it('rollback drill: a replica goes back to the old secret before keys rotate, and serves what the new one wrote', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    const fleet = new Fleet('rollback:');
    try {
      await fleet.open([oldSecret(), oldSecret()]);
      const alice = await signInTokens(fleet.mcp, ALICE);
      let bob = await signInTokens(fleet.mcp, BOB);
      const first = await fleet.start(0, bothSecrets());
      // The new secret alone is refused before keys rotate (nothing opens the old records).
      await expect(fleet.replica(newSecret())).rejects.toMatchObject({
        name: 'ConfigError',
        message: expect.stringContaining(OLD_KEY),
      });
      // Through the new replica only: a new user signs in, Bob refreshes, Alice's Basecamp token renews.
      const carol = await fleet.only(0, () => signInTokens(fleet.mcp, CAROL));
      bob = await refreshAt(fleet.url(0), bob);
      await expireUpstream(first.store, oldSecret(), alice.user);
      await servedBy(fleet.url(0), alice);

      // Back to the old secret alone: it starts, and both replicas serve all three.
      const rolledBack = await fleet.start(0, oldSecret());
      expect(rolledBack.keyring.sealingKeyId).toBe(OLD_KEY);
      await everyoneServed(fleet, [alice, bob, carol]);
      expect(await unopenable(rolledBack.store, oldSecret())).toEqual([]);
      expect(rolledBack.errors).toEqual([]);
    } finally {
      await fleet.close();
    }
  }, 120_000);

  it('after keys rotate, a replica left on the old secret answers 503 naming the key, and cannot start again', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    const fleet = new Fleet('straggler:');
    try {
      await fleet.open([oldSecret(), bothSecrets()]);
      const alice = await signInTokens(fleet.mcp, ALICE);
      // Replica 1 was never restarted; keys rotate runs all the same.
      await rotateKeys((fleet.running[1] as Running).store, bothSecrets());
      const straggler = fleet.running[0] as Running;
      const answer = await postToolsList(fleet.url(0), alice.accessToken);
      expect(answer.status).toBe(503);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await answer.text()).not.toContain(NEW_KEY);
      const logged = straggler.errors.join('\n');
      expect(logged).toContain(`sealed with key ${NEW_KEY}`);
      expect(logged).not.toContain(SECRET);
      expect(logged).not.toContain(NEW_SECRET);
      // The replica with both secrets serves on.
      await servedBy(fleet.url(1), alice);
      // Restarted with the old secret alone: refused, naming the key the store needs.
      await expect(fleet.start(0, oldSecret())).rejects.toMatchObject({
        name: 'ConfigError',
        message: expect.stringContaining(NEW_KEY),
      });
    } finally {
      await fleet.close();
    }
  }, 120_000);

  it('the built server: keys rotate --store on Redis; a replica left on the old secret is not ready and answers 503', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    if (!existsSync(bin)) throw new Error(`Build apps/server first (pnpm build): ${bin} is missing.`);
    const url = (redis as RedisServer).url;
    const home = await mkdtemp(join(tmpdir(), 'hosted-rotation-'));
    const port = await closedPort();
    // The server's environment without MCP_STORE: the store is a flag, for the server and for keys rotate.
    const { MCP_STORE: _store, ...env } = oauthBinEnv({
      home,
      publicUrl: `http://127.0.0.1:${port}`,
      store: url,
      fake,
    });
    const server = await startHttpBin({
      command: process.execPath,
      args: [
        bin,
        '--http',
        '--port',
        String(port),
        '--auth',
        'oauth',
        '--providers',
        'basecamp',
        '--store',
        url,
      ],
      env,
    });
    try {
      const alice = await signInTokens(server.url, ALICE);
      expect((await postToolsList(server.url, alice.accessToken)).status).toBe(200);
      const rotate = startProcess({
        command: process.execPath,
        args: [bin, 'keys', 'rotate', '--store', url],
        env: { ...env, MCP_SECRET: NEW_SECRET, MCP_SECRET_PREVIOUS: SECRET },
      });
      expect(await rotate.exited, rotate.stderr()).toBe(0);
      expect(JSON.parse(rotate.stdout().trim())).toMatchObject({ keyId: NEW_KEY, unreadable: 0 });
      expect((JSON.parse(rotate.stdout().trim()) as { resealed: number }).resealed).toBeGreaterThan(3);

      const answer = await postToolsList(server.url, alice.accessToken);
      expect(answer.status).toBe(503);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      const ready = await fetch(new URL('/readyz', server.url));
      expect(ready.status).toBe(503);
      const report = (await ready.json()) as {
        providers: Array<{ id: string; checks: Array<{ name: string; ok: boolean; detail?: string }> }>;
      };
      const keys = report.providers
        .find((provider) => provider.id === 'hosted')
        ?.checks.find((check) => check.name === 'keys');
      expect(keys).toMatchObject({ ok: false, detail: expect.stringContaining(NEW_KEY) });
      await server.waitForStderr(`sealed with key ${NEW_KEY}`);
      expect(server.stderr()).not.toContain(SECRET);
      expect(server.stderr()).not.toContain(NEW_SECRET);
    } finally {
      await server.stop();
    }
  }, 120_000);
});
