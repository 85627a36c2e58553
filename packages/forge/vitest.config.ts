import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'forge',
    isolate: false,
    include: ['src/**/*.test.ts'],
    testTimeout: 30_000,
    // Points HOME and FORGE_CONFIG_PATH at a throwaway directory: no test can reach the real ~/.forge.
    setupFiles: ['./src/test-setup.ts'],
  },
});
