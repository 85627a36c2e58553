import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'basecamp',
    isolate: false,
    include: ['src/**/*.test.ts'],
    testTimeout: 30_000,
    // Points HOME, XDG_CONFIG_HOME and BASECAMP_TOKEN_FILE at a throwaway directory: no test can
    // reach the real token file.
    setupFiles: ['./src/test-setup.ts'],
  },
});
