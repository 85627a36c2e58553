import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'mcp-core',
    isolate: false,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
  },
});
