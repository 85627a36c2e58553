// Two real server processes (apps/server, --auth oauth) on one real Redis behind a round-robin
// proxy write one audit stream (the default with a redis:// store): after both wrote, in
// parallel, `x-mcp-server audit verify` passes; an edited, deleted or inserted record makes it
// fail naming the first bad one; `audit tail` filters; no secret is in the stream.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeBasecamp, startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { runProcess } from '@x/mcp-core/testing';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ALICE,
  BOB,
  type ReplicaBins,
  type RoundRobinProxy,
  SECRET,
  SERVER_BIN,
  type SignedIn,
  signIn,
  startReplicaBins,
} from '../oauth/fixture.js';
import { type RedisServer, redisRequirement, startRedisServer } from '../testing/index.js';
import { openLine, sealLine } from './chain.js';

const requirement = redisRequirement();
const STREAM = 'xmcp:audit';

let redis: RedisServer | undefined;
let client: Redis;
let fake: FakeBasecamp;
let proxy: RoundRobinProxy;
let home: string;
let replicas: ReplicaBins | undefined;
let servers: ReplicaBins['servers'] = [];

beforeAll(async () => {
  if (!('path' in requirement)) return;
  redis = await startRedisServer({ path: requirement.path });
  fake = await startFakeBasecamp();
  home = await mkdtemp(join(tmpdir(), 'audit-replica-'));
  replicas = await startReplicaBins({ store: redis.url, fake });
  ({ servers, proxy } = replicas);
  const module = await import('ioredis');
  client = new module.Redis(redis.url);
}, 60_000);

afterAll(async () => {
  await replicas?.stop();
  client?.disconnect();
  await fake?.close();
  await redis?.stop();
});

afterEach((context) => replicas?.showLogsOnFailure(context));

const audit = (...args: string[]) =>
  runProcess({
    command: process.execPath,
    args: [SERVER_BIN, 'audit', ...args, '--store', (redis as RedisServer).url],
    env: { HOME: home },
  });

async function entries(): Promise<Array<[string, string]>> {
  const raw = (await client.xrange(STREAM, '-', '+')) as Array<[string, string[]]>;
  return raw.map(([id, fields]) => [id, fields[1] as string]);
}

/** Rewrites the stream as an attacker with Redis access would: same ids, changed content. */
async function rewrite(records: Array<[string, string]>): Promise<void> {
  await client.del(STREAM);
  for (const [id, line] of records) await client.xadd(STREAM, id, 'r', line);
}

describe('the audit stream of two replicas on one Redis', () => {
  let alice: SignedIn;
  let bob: SignedIn;
  let original: Array<[string, string]>;

  it('is one chain after both replicas wrote in parallel; verify passes; no secret in it', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    const url = `${proxy.origin}/mcp`;
    alice = await signIn({ url, fake }, ALICE);
    bob = await signIn({ url, fake }, BOB);
    const before = [...proxy.counts];
    const calls = [alice, bob].flatMap((user) =>
      Array.from({ length: 10 }, (_, index) =>
        user.client.callTool({
          name: index % 2 ? 'basecamp_list_projects' : 'basecamp_search',
          arguments: index % 2 ? {} : { query: `launch plans ${SECRET}` },
        }),
      ),
    );
    await Promise.all(calls);
    // Both replicas answered calls.
    for (const [index, count] of proxy.counts.entries())
      expect(count - (before[index] ?? 0)).toBeGreaterThan(2);
    // A clean shutdown writes what each replica still holds.
    await Promise.all(servers.map((server) => server.stop()));
    for (const server of servers) {
      expect(server.stderr()).toContain('audit redis');
      expect(server.stderr()).not.toContain('audit log write failed');
    }

    original = await entries();
    const records = original
      .map(([, line]) => openLine(line))
      .map((opened) => (opened.ok ? opened.record : {}));
    expect(records.filter((record) => record.event === 'tools/call')).toHaveLength(20);
    expect(records.filter((record) => record.event === 'sign-in')).toHaveLength(2);
    expect(records.map((record) => record.seq)).toEqual(records.map((_, index) => index + 1));
    const text = original.map(([, line]) => line).join('\n');
    const tokens = [alice, bob].map(
      (user) => user.oauth.tokens() as { access_token: string; refresh_token: string },
    );
    for (const canary of [SECRET, ...tokens.flatMap((token) => [token.access_token, token.refresh_token])]) {
      expect(text).not.toContain(canary);
    }

    const verified = await audit('verify');
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, records: original.length, firstSeq: 1 });

    const tail = await audit('tail', '--user', 'bob@example.com', '--tool', 'basecamp_search', '-n', '3');
    expect(tail.code, tail.stderr).toBe(0);
    const tailed = tail.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(tailed).toHaveLength(3);
    for (const record of tailed) {
      expect(record).toMatchObject({
        name: 'basecamp_search',
        user: { id: 'basecamp:202', email: 'bob@example.com' },
      });
      expect(record.args).toMatchObject({ query: { text_length: `launch plans ${SECRET}`.length } });
    }
    const none = await audit('tail', '--since', '2099-01-01T00:00:00Z');
    expect(none).toMatchObject({ code: 0, stdout: '' });
  }, 60_000);

  it('verify names the first edited, deleted or inserted record', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    expect(original.length).toBeGreaterThan(10);
    const [editedId, editedLine] = original[5] as [string, string];
    await rewrite(
      original.map(([id, line]) => [
        id,
        id === editedId ? editedLine.replace('"time":"2', '"time":"1') : line,
      ]),
    );
    let result = await audit('verify');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`redis entry ${editedId}`);
    expect(result.stderr).toMatch(/edited/);

    await rewrite(original.filter((_, index) => index !== 7));
    result = await audit('verify');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`redis entry ${(original[8] as [string, string])[0]} (seq 9)`);
    expect(result.stderr).toMatch(/records 8\.\.8 are missing/);

    // A record chained after the fourth, slipped in right after it (or after the fifth, when the fifth's id is the next one).
    const fourth = openLine((original[3] as [string, string])[1]);
    if (!fourth.ok) throw new Error('unreadable');
    const inserted = sealLine({ event: 'tools/call', outcome: 'ok' }, { seq: fourth.seq, hash: fourth.hash });
    const [fourthId] = original[3] as [string, string];
    // The next free id after the fourth's (the fifth may have taken the one right after it).
    const taken = new Set(original.map(([id]) => id));
    const [ms, sequence] = fourthId.split('-') as [string, string];
    let next = Number(sequence) + 1;
    while (taken.has(`${ms}-${next}`)) next++;
    const insertedId = `${ms}-${next}`;
    const withInserted = [
      ...original.slice(0, 4),
      [insertedId, inserted.line] as [string, string],
      ...original.slice(4),
    ];
    const ordered = withInserted.sort((a, b) => compareIds(a[0], b[0]));
    await rewrite(ordered);
    result = await audit('verify');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/\(seq 5\): /);

    await rewrite(original);
    result = await audit('verify');
    expect(result.code, result.stderr).toBe(0);
  }, 60_000);
});

function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
  return am === bm ? Number(as - bs) : am < bm ? -1 : 1;
}
