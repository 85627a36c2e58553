import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'context-forge', isolate: false, include: ['src/**/*.test.ts'], testTimeout: 60_000 },
});
