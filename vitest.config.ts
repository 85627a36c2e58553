import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // packages/hosted needs Node 22.12+: `pnpm test:hosted` runs it on Node 22 (see its scripts/test.mjs).
    projects: ['packages/*', '!packages/hosted', 'apps/*'],
    reporters: ['default', './vitest.summary.ts'],
    // Most test time is spent waiting on spawned bins, fakes and sockets, not on the CPU: three
    // workers on a 2-core machine take the run from about 150 s to about 80 s (docs/benchmarks.md).
    maxWorkers: 3,
  },
});
