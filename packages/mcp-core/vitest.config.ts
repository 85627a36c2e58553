import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'mcp-core',
    isolate: false,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    // Bundles the fixture bin that the stdio and HTTP runner tests spawn (see the file).
    globalSetup: ['./test/fixtures/global-setup.ts'],
  },
});
