import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'server',
    isolate: false,
    include: ['test/**/*.test.ts'],
    // Needs the network on its first run (npm installs the pinned tools): `pnpm test:interop`.
    exclude: ['test/interop.test.ts'],
    testTimeout: 60_000,
    // Its hooks start bins and build whole registries, as slow as its tests on a loaded machine.
    hookTimeout: 60_000,
  },
});
