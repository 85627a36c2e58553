import { describe, expect, expectTypeOf, it } from 'vitest';
import { type ContextForgeConfig, ContextForgeConfigSchema } from './config.js';
import type { ContextForgeSettings } from './index.js';

describe('ContextForgeConfigSchema', () => {
  it('holds only settings the provider reads, with their types', () => {
    expectTypeOf<ContextForgeConfig>().toExtend<ContextForgeSettings>();
    expectTypeOf<Exclude<keyof ContextForgeConfig, keyof ContextForgeSettings>>().toEqualTypeOf<never>();
  });

  it('refuses unknown keys, naming them', () => {
    const secret = ContextForgeConfigSchema.safeParse({ lock: 'not-in-a-shared-file' });
    expect(secret.success).toBe(false);
    expect(secret.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['lock'] });
    expect(ContextForgeConfigSchema.safeParse({}).success).toBe(true);
  });
});
