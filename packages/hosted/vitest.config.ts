import { defineProject } from 'vitest/config';

// Runs on Node 22 (`node scripts/test.mjs`), outside the root `vitest run` on the machine's Node.
export default defineProject({
  test: {
    name: 'hosted',
    isolate: false,
    include: ['src/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
