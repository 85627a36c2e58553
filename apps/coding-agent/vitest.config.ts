import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'coding-agent', isolate: false, include: ['test/**/*.test.ts'], testTimeout: 30_000 },
});
