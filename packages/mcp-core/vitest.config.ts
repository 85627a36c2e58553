import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'mcp-core',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
