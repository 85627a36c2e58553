import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'node/index': 'src/node/index.ts',
    'testing/index': 'src/testing/index.ts',
    // No vitest or MCP client behind it: providers' published `./testing` (the `--sandbox` fakes) load it at run time.
    'testing/fake-server': 'src/testing/fake-server.ts',
    'upstream/index': 'src/upstream/index.ts',
  },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: true,
});
