import { defineConfig } from 'tsup';

// A library and its test kit (no bin); ESM for Node 22.12+, every dependency external.
export default defineConfig({
  entry: { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts' },
  format: ['esm'],
  target: 'node22',
  platform: 'node',
  dts: true,
  sourcemap: true,
  clean: true,
  splitting: true,
  // tsup strips `node:` by default; `node:sqlite` exists only with the prefix.
  removeNodeProtocol: false,
});
