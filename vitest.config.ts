import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // packages/hosted needs Node 22.12+: `pnpm test:hosted` runs it on Node 22 (see its scripts/test.mjs).
    projects: ['packages/*', '!packages/hosted', 'apps/*'],
    reporters: ['default', './vitest.summary.ts'],
  },
});
