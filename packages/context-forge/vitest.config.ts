import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'context-forge', include: ['src/**/*.test.ts'], testTimeout: 60_000 },
});
