import { defineConfig } from 'tsup';

// A library, its audit log alone (`./audit`, which also loads on Node 20) and its test kit (no
// bin); ESM, every dependency external.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'audit/index': 'src/audit/index.ts',
    'testing/index': 'src/testing/index.ts',
  },
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
