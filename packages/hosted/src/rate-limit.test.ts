import { ConfigError, McpToolError } from '@x/mcp-core';
import { describe, expect, it } from 'vitest';
import {
  MemoryTokenBuckets,
  type Rate,
  rateFromEnv,
  readRate,
  tokenBucketsFor,
  UserRateLimits,
} from './rate-limit.js';
import { MemoryStore } from './store/memory.js';

const rate = (text: string): Rate => readRate(text) as Rate;

describe('readRate', () => {
  it.each([
    ['120/min', 120, 60_000, '120/min'],
    ['10/s', 10, 1_000, '10/s'],
    ['1000/h', 1000, 3_600_000, '1000/h'],
    [' 5 / Day ', 5, 86_400_000, '5/day'],
    ['3/second', 3, 1_000, '3/s'],
    ['7/minute', 7, 60_000, '7/min'],
  ])('reads %j', (text, tokens, periodMs, normal) => {
    expect(readRate(text)).toEqual({ tokens, periodMs, text: normal });
  });

  it.each(['', '0/min', '-1/min', '1.5/min', '120', '/min', '120/fortnight', '120/m', '2000000/s', '1e3/s'])(
    'refuses %j',
    (text) => {
      expect(readRate(text)).toBeUndefined();
    },
  );

  it('MCP_RATE_LIMIT: off and unset are none; nonsense is a ConfigError', () => {
    expect(rateFromEnv('MCP_RATE_LIMIT', undefined)).toBeUndefined();
    expect(rateFromEnv('MCP_RATE_LIMIT', 'off')).toBeUndefined();
    expect(rateFromEnv('MCP_RATE_LIMIT', '60/min')).toEqual({ tokens: 60, periodMs: 60_000, text: '60/min' });
    expect(() => rateFromEnv('MCP_RATE_LIMIT', 'lots')).toThrow(ConfigError);
    expect(() => rateFromEnv('MCP_RATE_LIMIT', 'lots')).toThrow(
      /MCP_RATE_LIMIT must be <count>\/<unit>.*got "lots"/,
    );
  });
});

describe('MemoryTokenBuckets', () => {
  it('allows a burst of the rate, then refills evenly', async () => {
    let now = 1_000_000;
    const buckets = new MemoryTokenBuckets({ now: () => now });
    const three = [{ key: 'u', rate: rate('3/min') }];
    for (let call = 0; call < 3; call++) expect(await buckets.take(three)).toEqual({ ok: true });
    expect(await buckets.take(three)).toEqual({ ok: false, refused: 0, retryAfterMs: 20_000 });
    now += 15_000;
    expect(await buckets.take(three)).toEqual({ ok: false, refused: 0, retryAfterMs: 5_000 });
    now += 5_000;
    expect(await buckets.take(three)).toEqual({ ok: true });
    // A long pause refills up to the burst, no further.
    now += 3_600_000;
    for (let call = 0; call < 3; call++) expect((await buckets.take(three)).ok).toBe(true);
    expect((await buckets.take(three)).ok).toBe(false);
  });

  it('takes from every bucket or none: a refused tool call does not spend the user bucket', async () => {
    const now = 0;
    const buckets = new MemoryTokenBuckets({ now: () => now });
    const user = { key: 'user', rate: rate('2/min') };
    const tool = { key: 'tool', rate: rate('1/h') };
    expect(await buckets.take([user, tool])).toEqual({ ok: true });
    expect(await buckets.take([user, tool])).toEqual({ ok: false, refused: 1, retryAfterMs: 3_600_000 });
    // The user still has the second token for another tool.
    expect(await buckets.take([user])).toEqual({ ok: true });
    expect((await buckets.take([user])).ok).toBe(false);
  });

  it('keeps each key its own bucket, and forgets the least recently used beyond maxKeys', async () => {
    const buckets = new MemoryTokenBuckets({ now: () => 0, maxKeys: 2 });
    const one = rate('1/h');
    expect((await buckets.take([{ key: 'a', rate: one }])).ok).toBe(true);
    expect((await buckets.take([{ key: 'b', rate: one }])).ok).toBe(true);
    expect((await buckets.take([{ key: 'a', rate: one }])).ok).toBe(false);
    expect((await buckets.take([{ key: 'c', rate: one }])).ok).toBe(true);
    expect(buckets.size).toBe(2);
    // b was the oldest: forgotten, so full again; a is still empty.
    expect((await buckets.take([{ key: 'b', rate: one }])).ok).toBe(true);
    expect((await buckets.take([{ key: 'c', rate: one }])).ok).toBe(false);
  });

  it('follows a changed rate at once (the bucket keeps its level, capped by the new size)', async () => {
    const buckets = new MemoryTokenBuckets({ now: () => 0 });
    for (let call = 0; call < 10; call++) await buckets.take([{ key: 'u', rate: rate('100/min') }]);
    // 90 left, capped at 5 by the smaller rate.
    for (let call = 0; call < 5; call++)
      expect((await buckets.take([{ key: 'u', rate: rate('5/min') }])).ok).toBe(true);
    expect((await buckets.take([{ key: 'u', rate: rate('5/min') }])).ok).toBe(false);
  });

  it('is what an embedded store gets', () => {
    expect(tokenBucketsFor(new MemoryStore())).toBeInstanceOf(MemoryTokenBuckets);
  });
});

describe('UserRateLimits', () => {
  it('refuses with RATE_LIMITED, retry_after_ms and who set the limit; other users are unaffected', async () => {
    const limits = new UserRateLimits(new MemoryTokenBuckets({ now: () => 0 }));
    const rule = { user: rate('2/min'), source: "the server's policy (rule 2)" };
    await limits.admit('ana', 'basecamp_list_todos', rule);
    await limits.admit('ana', 'basecamp_list_todos', rule);
    const refused = await limits.admit('ana', 'basecamp_list_todos', rule).catch((error: unknown) => error);
    expect(McpToolError.isInstance(refused)).toBe(true);
    expect((refused as McpToolError).toJSON()).toEqual({
      error_code: 'RATE_LIMITED',
      message:
        "Rate limit reached for your calls (2/min), set by the server's policy (rule 2); retry in 30 s.",
      retryable: true,
      retry_after_ms: 30_000,
      limit: '2/min',
    });
    await expect(limits.admit('bo', 'basecamp_list_todos', rule)).resolves.toBeUndefined();
  });

  it('limits one tool on its own bucket; other tools go on', async () => {
    const limits = new UserRateLimits(new MemoryTokenBuckets({ now: () => 0 }));
    const rule = {
      user: rate('100/min'),
      tools: { basecamp_create_todo: rate('1/h') },
      source: 'MCP_RATE_LIMIT',
    };
    await limits.admit('ana', 'basecamp_create_todo', rule);
    await expect(limits.admit('ana', 'basecamp_create_todo', rule)).rejects.toThrow(
      'Rate limit reached for your calls of basecamp_create_todo (1/h), set by MCP_RATE_LIMIT; retry in 3600 s.',
    );
    await expect(limits.admit('ana', 'basecamp_list_todos', rule)).resolves.toBeUndefined();
    // A tool named like an Object.prototype member is not mistaken for a limited one.
    await expect(limits.admit('ana', 'constructor', rule)).resolves.toBeUndefined();
  });

  it('admits everything when no limit applies', async () => {
    const limits = new UserRateLimits(new MemoryTokenBuckets({ now: () => 0 }));
    for (let call = 0; call < 100; call++) await limits.admit('ana', 'x', { source: 'none' });
  });
});
