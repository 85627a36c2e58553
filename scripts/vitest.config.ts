import { defineProject } from 'vitest/config';

// The repository scripts' own tests: the provider shape check and `pnpm new-provider`.
export default defineProject({
  test: { name: 'scripts', isolate: false, include: ['test/**/*.test.ts'], testTimeout: 30_000 },
});
