import { describe, expect, expectTypeOf, it } from 'vitest';
import { type ForgeConfig, ForgeConfigSchema } from './config.js';
import type { ForgeSettings } from './settings.js';

describe('ForgeConfigSchema', () => {
  it('holds only settings the provider reads, with their types', () => {
    expectTypeOf<ForgeConfig>().toExtend<ForgeSettings>();
    expectTypeOf<Exclude<keyof ForgeConfig, keyof ForgeSettings>>().toEqualTypeOf<never>();
  });

  it('refuses secrets and unknown keys, naming them', () => {
    const secret = ForgeConfigSchema.safeParse({ accessToken: 'not-in-a-shared-file' });
    expect(secret.success).toBe(false);
    expect(secret.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['accessToken'] });
    expect(ForgeConfigSchema.safeParse({}).success).toBe(true);
  });
});
