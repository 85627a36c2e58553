// The Redis sink's one chain: two sinks (as two replicas) appending to one stream, each after a
// head the other has moved, and both at once; verified after every round.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, redisRequirement, startRedisServer } from '../testing/index.js';
import { verifyAudit } from './read.js';
import { RedisSink } from './sinks.js';

const requirement = redisRequirement();
let redis: RedisServer | undefined;

beforeAll(async () => {
  if ('path' in requirement) redis = await startRedisServer({ path: requirement.path });
}, 30_000);

afterAll(async () => {
  await redis?.stop();
});

const entry = (who: string, index: number) => ({
  event: 'tools/call',
  outcome: 'ok',
  name: `${who}-${index}`,
});

describe('RedisSink', () => {
  it('chains a batch again after the head another replica moved', async (context) => {
    if (!redis) return context.skip('skip' in requirement ? requirement.skip : 'no redis');
    const prefix = 'stale:';
    const a = await RedisSink.connect(redis.url, { prefix });
    const b = await RedisSink.connect(redis.url, { prefix });
    await a.write([entry('a', 1), entry('a', 2)]);
    await b.write([entry('b', 1)]);
    // A still holds the head it wrote: the script refuses it once, A chains after B's record.
    await a.write([entry('a', 3)]);
    await b.write([entry('b', 2)]);
    await Promise.all([a.close(), b.close()]);
    const report = await verifyAudit({ kind: 'redis', url: redis.url }, { prefix });
    expect(report).toMatchObject({ ok: true, records: 5, firstSeq: 1, last: { seq: 5 } });
  });

  it('keeps one chain while two replicas append at once, 20 rounds', async (context) => {
    if (!redis) return context.skip('skip' in requirement ? requirement.skip : 'no redis');
    const prefix = 'race:';
    const a = await RedisSink.connect(redis.url, { prefix });
    const b = await RedisSink.connect(redis.url, { prefix });
    for (let round = 0; round < 20; round++) {
      await Promise.all([
        ...Array.from({ length: 5 }, (_, index) => a.write([entry('a', round * 10 + index)])),
        ...Array.from({ length: 5 }, (_, index) => b.write([entry('b', round * 10 + index), entry('b', -1)])),
      ]);
      const report = await verifyAudit({ kind: 'redis', url: redis.url }, { prefix });
      expect(report).toMatchObject({ ok: true, records: (round + 1) * 15 });
    }
    await Promise.all([a.close(), b.close()]);
  }, 60_000);
});
