import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'template', isolate: false, include: ['src/**/*.test.ts'], testTimeout: 30_000 },
});
