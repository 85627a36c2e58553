import { describe, expect, expectTypeOf, it } from 'vitest';
import { type BbjRagConfig, BbjRagConfigSchema } from './config.js';
import type { BbjRagSettings } from './settings.js';

describe('BbjRagConfigSchema', () => {
  it('holds only settings the provider reads, with their types', () => {
    expectTypeOf<BbjRagConfig>().toExtend<BbjRagSettings>();
    expectTypeOf<Exclude<keyof BbjRagConfig, keyof BbjRagSettings>>().toEqualTypeOf<never>();
  });

  it('refuses unknown keys, naming them', () => {
    const secret = BbjRagConfigSchema.safeParse({ fetch: 'not-in-a-shared-file' });
    expect(secret.success).toBe(false);
    expect(secret.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['fetch'] });
    expect(BbjRagConfigSchema.safeParse({}).success).toBe(true);
  });
});
