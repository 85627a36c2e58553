// Two real server processes (apps/server, --auth oauth) on one Redis without persistence, behind
// a round-robin proxy: after Redis restarts empty or is flushed, /readyz says how the signing
// keys stand, the keys the replicas sign with are back in the store, and a new sign-in works
// through either replica with tokens both accept.
import type { FakeBasecamp } from '@x/mcp-basecamp/testing';
import { startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from '../crypto.js';
import { loadSigningKeys, SIGNING_KEYS_KEY } from '../signing-keys.js';
import { createStore } from '../store/create.js';
import type { KvStore } from '../store/kv.js';
import { SealedRecords } from '../store/sealed.js';
import { type RedisServer, redisRequirement, startRedisServer } from '../testing/index.js';
import {
  ALICE,
  BOB,
  postToolsList,
  type ReplicaBins,
  type RoundRobinProxy,
  SECRET,
  signIn,
  startReplicaBins,
} from './fixture.js';

const requirement = redisRequirement();
const keyring = Keyring.fromSecrets({ secret: SECRET });

let redis: RedisServer | undefined;
let fake: FakeBasecamp;
let proxy: RoundRobinProxy;
let store: KvStore;
let replicas: ReplicaBins | undefined;
let servers: ReplicaBins['servers'] = [];

beforeAll(async () => {
  if (!('path' in requirement)) return;
  redis = await startRedisServer({ path: requirement.path });
  fake = await startFakeBasecamp();
  replicas = await startReplicaBins({ store: redis.url, fake });
  ({ servers, proxy } = replicas);
  store = await createStore(redis.url);
}, 60_000);

afterAll(async () => {
  await replicas?.stop();
  await store?.close();
  await fake?.close();
  await redis?.stop();
});

afterEach((context) => replicas?.showLogsOnFailure(context));

interface Check {
  name: string;
  ok: boolean;
  detail?: string;
}

/** Each replica's /readyz status and its `keys` check. */
async function readiness(): Promise<Array<{ status: number; keys: Check | undefined }>> {
  return Promise.all(
    servers.map(async (server) => {
      const response = await fetch(`${server.url.replace(/\/mcp$/, '')}/readyz`);
      const report = (await response.json()) as { providers: Array<{ id: string; checks: Check[] }> };
      const keys = report.providers
        .find((provider) => provider.id === 'hosted')
        ?.checks.find((check) => check.name === 'keys');
      return { status: response.status, keys };
    }),
  );
}

/** Asks /readyz until every replica answers `status` (each caches its checks for up to 5 s). */
async function readyzUntil(status: number): Promise<Array<{ status: number; keys: Check | undefined }>> {
  let answers = await readiness();
  for (let attempt = 0; attempt < 60 && answers.some((answer) => answer.status !== status); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    answers = await readiness().catch(() => answers);
  }
  return answers;
}

/** A new sign-in through the proxy; its access token works on both replicas. Returns its key id. */
async function signInWorksEverywhere(identity: typeof ALICE): Promise<string> {
  const user = await signIn({ url: `${proxy.origin}/mcp`, fake }, identity);
  await user.close();
  const token = (user.oauth.tokens() as { access_token: string }).access_token;
  for (const server of servers) expect((await postToolsList(server.url, token)).status).toBe(200);
  return JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8')).kid;
}

describe('two server processes when Redis loses the signing keys', () => {
  let kid = '';

  it('Redis restarted without persistence: /readyz 200 once the keys are back; sign-ins work', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    kid = await signInWorksEverywhere(ALICE);
    await redis?.kill();
    await redis?.start();
    const answers = await readyzUntil(200);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    for (const answer of answers) expect(answer.keys).toMatchObject({ ok: true });
    // Written back by a replica, not made anew.
    expect((await loadSigningKeys(store, keyring)).map((key) => key.kid)).toEqual([kid]);
    expect(await signInWorksEverywhere(BOB)).toBe(kid);
  });

  it('FLUSHALL: the same', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    const client = new Redis((redis as RedisServer).url, { lazyConnect: true });
    await client.connect();
    await client.flushall();
    client.disconnect();
    expect(await signInWorksEverywhere(ALICE)).toBe(kid);
    expect((await loadSigningKeys(store, keyring)).map((key) => key.kid)).toEqual([kid]);
    const answers = await readyzUntil(200);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
  });

  it('keys in the store that do not open: /readyz 503 on both, with the reason; removed: restored, 200', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    const other = Keyring.fromSecrets({ secret: 'not-the-servers-secret-0123456789abcdefghijk' });
    await new SealedRecords(store, other).set(SIGNING_KEYS_KEY, { keys: [] });
    const refused = await readyzUntil(503);
    expect(refused.map((answer) => answer.status)).toEqual([503, 503]);
    for (const answer of refused) {
      expect(answer.keys).toMatchObject({ name: 'keys', ok: false });
      expect(answer.keys?.detail).toMatch(
        /^the signing keys in the store do not open with MCP_SECRET \(or MCP_SECRET_PREVIOUS\); sealing with key [0-9a-f]{16}$/,
      );
    }
    // The replicas kept their keys meanwhile; the operator removes the foreign record.
    await store.delete(SIGNING_KEYS_KEY);
    expect((await readyzUntil(200)).map((answer) => answer.status)).toEqual([200, 200]);
    expect((await loadSigningKeys(store, keyring)).map((key) => key.kid)).toEqual([kid]);
    for (const server of servers) expect(server.stderr()).not.toContain(SECRET);
  });
});
