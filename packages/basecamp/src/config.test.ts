import { describe, expect, expectTypeOf, it } from 'vitest';
import { type BasecampConfig, BasecampConfigSchema } from './config.js';
import type { BasecampSettings } from './settings.js';

describe('BasecampConfigSchema', () => {
  it('holds only settings the provider reads, with their types', () => {
    expectTypeOf<BasecampConfig>().toExtend<BasecampSettings>();
    expectTypeOf<Exclude<keyof BasecampConfig, keyof BasecampSettings>>().toEqualTypeOf<never>();
  });

  it('refuses secrets and unknown keys, naming them', () => {
    const secret = BasecampConfigSchema.safeParse({ accessToken: 'not-in-a-shared-file' });
    expect(secret.success).toBe(false);
    expect(secret.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['accessToken'] });
    expect(BasecampConfigSchema.safeParse({}).success).toBe(true);
  });
});
