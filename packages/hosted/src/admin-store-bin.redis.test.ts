// The admin commands against a Redis no server has used (a wrong --store, the wrong database
// number): one line naming it, exit 1, and nothing written there.
import { fileURLToPath } from 'node:url';
import { runProcess } from '@x/mcp-core/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SECRET } from './oauth/fixture.js';
import { type RedisServer, redisRequirement, startRedisServer } from './testing/index.js';

const bin = fileURLToPath(new URL('../../../apps/server/dist/bin.js', import.meta.url));
const requirement = redisRequirement();
let redis: RedisServer | undefined;

beforeAll(async () => {
  if ('path' in requirement) redis = await startRedisServer({ path: requirement.path });
}, 60_000);
afterAll(async () => {
  await redis?.stop();
});

it('users list and keys rotate on an empty Redis: an error in one line, and the Redis stays empty', async (context) => {
  if ('skip' in requirement || !redis)
    return context.skip('skip' in requirement ? requirement.skip : 'no redis');
  const url = `${redis.url}/3`;
  for (const args of [
    ['users', 'list'],
    ['keys', 'rotate'],
  ]) {
    const result = await runProcess({
      command: process.execPath,
      args: [bin, ...args, '--store', url],
      env: { MCP_SECRET: SECRET, MCP_STORE: undefined, MCP_AUDIT: undefined },
    });
    expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 1, stdout: '' });
    // The store as given, without a password; the database number named.
    expect(result.stderr).toBe(
      `x-mcp-server ${args[0]}: ${url} holds no server's data yet (no keys): give the store the server uses (--store or MCP_STORE).\n`,
    );
  }
  const { Redis } = await import('ioredis');
  const client = new Redis(url);
  try {
    expect(await client.dbsize()).toBe(0);
  } finally {
    client.disconnect();
  }
}, 60_000);
