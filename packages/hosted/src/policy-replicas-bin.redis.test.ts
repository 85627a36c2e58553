// Two server processes (apps/server, --auth oauth) on one real Redis behind a round-robin proxy,
// reading the same policy file: the per-user rate limit is one bucket for both, and a change of
// the file applies on both, from the next request on.
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeBasecamp, startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ALICE,
  BOB,
  type ReplicaBins,
  type RoundRobinProxy,
  type SignedIn,
  signIn,
  startReplicaBins,
} from './oauth/fixture.js';
import { type RedisServer, redisRequirement, startRedisServer } from './testing/index.js';

const requirement = redisRequirement();

const V1 = `{
  "rules": [
    {"match": {"email": "alice@example.com"}, "rateLimit": "4/h"}
  ],
  "default": {}
}
`;
const V2 = V1.replace('"rateLimit": "4/h"', '"readOnly": true, "rateLimit": "off"');
const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

let redis: RedisServer | undefined;
let fake: FakeBasecamp;
let proxy: RoundRobinProxy;
let dir: string;
let policyPath: string;
let replicas: ReplicaBins | undefined;
let servers: ReplicaBins['servers'] = [];

beforeAll(async () => {
  if (!('path' in requirement)) return;
  redis = await startRedisServer({ path: requirement.path });
  fake = await startFakeBasecamp();
  dir = await mkdtemp(join(tmpdir(), 'policy-replicas-'));
  policyPath = join(dir, 'policy.json');
  await writeFile(policyPath, V1);
  replicas = await startReplicaBins({
    store: redis.url,
    fake,
    env: { MCP_POLICY: policyPath, MCP_RATE_LIMIT: '1000/min' },
  });
  ({ servers, proxy } = replicas);
}, 60_000);

afterAll(async () => {
  await replicas?.stop();
  await fake?.close();
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

afterEach((context) => replicas?.showLogsOnFailure(context));

const mcpUrl = () => `${proxy.origin}/mcp`;
const errorCode = (result: { content?: unknown; isError?: boolean }): string =>
  result.isError
    ? ((JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? '{}') as { error_code?: string })
        .error_code ?? 'no code')
    : 'ok';

describe('two server processes on one Redis, one policy file', () => {
  let alice: SignedIn;

  it('the rate limit is one bucket for both replicas; other users are unaffected', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    alice = await signIn({ url: mcpUrl(), fake }, ALICE);
    const counts = [...proxy.counts];
    const outcomes: string[] = [];
    // One after the other, so the proxy alternates them over the replicas.
    for (let call = 0; call < 8; call++) {
      outcomes.push(
        errorCode(await alice.client.callTool({ name: 'basecamp_list_projects', arguments: {} })),
      );
    }
    // Each replica served some of them: with a bucket per replica, more than 4 would pass.
    expect((proxy.counts[0] ?? 0) - (counts[0] ?? 0)).toBeGreaterThanOrEqual(3);
    expect((proxy.counts[1] ?? 0) - (counts[1] ?? 0)).toBeGreaterThanOrEqual(3);
    expect(outcomes).toEqual([
      'ok',
      'ok',
      'ok',
      'ok',
      'RATE_LIMITED',
      'RATE_LIMITED',
      'RATE_LIMITED',
      'RATE_LIMITED',
    ]);
    const bob = await signIn({ url: mcpUrl(), fake }, BOB);
    try {
      for (let call = 0; call < 6; call++) {
        expect(errorCode(await bob.client.callTool({ name: 'basecamp_list_projects', arguments: {} }))).toBe(
          'ok',
        );
      }
    } finally {
      await bob.close();
    }
  });

  it('a change of the file applies on both replicas from the next request on', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    await writeFile(policyPath, V2);
    await Promise.all(servers.map((server) => server.waitForStderr(digest(V2))));
    const counts = [...proxy.counts];
    for (let round = 0; round < 4; round++) {
      const names = (await alice.client.listTools()).tools.map((tool) => tool.name);
      expect(names, `round ${round}`).toContain('basecamp_list_projects');
      expect(names, `round ${round}`).not.toContain('basecamp_create_todo');
      // "off" lifts her rate limit: the spent bucket no longer matters.
      expect(errorCode(await alice.client.callTool({ name: 'basecamp_list_projects', arguments: {} }))).toBe(
        'ok',
      );
    }
    expect((proxy.counts[0] ?? 0) - (counts[0] ?? 0)).toBeGreaterThanOrEqual(3);
    expect((proxy.counts[1] ?? 0) - (counts[1] ?? 0)).toBeGreaterThanOrEqual(3);
    await alice.close();
  });
});
