// Two server processes (apps/server, --auth oauth) on one real Redis behind a round-robin proxy,
// reading the same policy file: the per-user rate limit is one bucket for both, and a change of
// the file applies on both, from the next request on.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeBasecamp, startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { closedPort, type RunningProcess, startHttpBin } from '@x/mcp-core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ALICE,
  BOB,
  oauthBinEnv,
  type RoundRobinProxy,
  type SignedIn,
  signIn,
  startRoundRobinProxy,
} from './oauth/fixture.js';
import { type RedisServer, redisRequirement, startRedisServer } from './testing/index.js';

const bin = fileURLToPath(new URL('../../../apps/server/dist/bin.js', import.meta.url));
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
const servers: Array<RunningProcess & { url: string }> = [];

beforeAll(async () => {
  if (!('path' in requirement)) return;
  if (!existsSync(bin)) throw new Error(`Build apps/server first (pnpm build): ${bin} is missing.`);
  redis = await startRedisServer({ path: requirement.path });
  fake = await startFakeBasecamp();
  proxy = await startRoundRobinProxy();
  dir = await mkdtemp(join(tmpdir(), 'policy-replicas-'));
  policyPath = join(dir, 'policy.json');
  await writeFile(policyPath, V1);
  for (let index = 0; index < 2; index++) {
    const home = await mkdtemp(join(tmpdir(), 'policy-replica-'));
    const port = await closedPort();
    const server = await startHttpBin({
      command: process.execPath,
      args: [bin, '--http', '--port', String(port), '--auth', 'oauth', '--providers', 'basecamp'],
      env: {
        ...oauthBinEnv({ home, publicUrl: proxy.origin, store: redis.url, fake }),
        MCP_POLICY: policyPath,
        MCP_RATE_LIMIT: '1000/min',
      },
    });
    servers.push(server);
    proxy.upstreams.push(new URL(server.url).origin);
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await proxy?.close();
  await fake?.close();
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

let logsShown = false;
afterEach((context) => {
  if (logsShown || context.task.result?.state !== 'fail') return;
  logsShown = true;
  for (const [index, server] of servers.entries()) {
    process.stderr.write(`\n--- replica ${index + 1} stderr ---\n${server.stderr().slice(-20_000)}\n`);
  }
});

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
