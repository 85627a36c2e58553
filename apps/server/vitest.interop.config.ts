import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The interop checks (the official conformance suite and the Inspector CLI, installed by npm on
// the first run), apart from `pnpm test` so that it runs offline: `pnpm test:interop`, and CI.
export default defineConfig({
  test: {
    name: 'server-interop',
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['test/interop.test.ts'],
    testTimeout: 300_000,
  },
});
