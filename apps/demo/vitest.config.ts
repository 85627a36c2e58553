import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'demo', isolate: false, include: ['test/**/*.test.ts'], testTimeout: 60_000 },
});
