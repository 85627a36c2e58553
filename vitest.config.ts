import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // packages/hosted needs Node 22.12+: `pnpm test:hosted` runs it on Node 22 (see its scripts/test.mjs).
    projects: ['packages/*', '!packages/hosted', 'apps/*', 'scripts'],
    reporters: ['default', './vitest.summary.ts'],
    // Test files wait on spawned bins, fakes and sockets much of the time: three workers on a
    // 2-core machine keep both cores busy (docs/benchmarks.md, "Dev loop"). Every project also sets
    // `isolate: false`: a worker process runs its files one after another with one module cache
    // (setup files still run per file), instead of a new process per file loading the SDK and zod
    // again; that halves the CPU time of the run (a project whose files must not share a process
    // sets `isolate: true`). Keep the default `forks` pool: in worker threads os.homedir() ignores
    // the throwaway HOME that the setup files set, and tests write to it.
    maxWorkers: 3,
  },
});
