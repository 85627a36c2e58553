import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { providerProblems } from '../../../scripts/provider-shape.mjs';

// This package has the provider shape (exports, factory, barrel, bin): the root check
// (`node scripts/provider-shape.mjs`) also wants a published provider in the composed server.
describe('the provider shape', () => {
  it('holds for this package', () => {
    expect(providerProblems(fileURLToPath(new URL('..', import.meta.url)))).toEqual([]);
  });
});
