import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts', bin: 'src/bin.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: { entry: { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts' } },
  sourcemap: true,
  clean: true,
  splitting: true,
  banner: { js: '#!/usr/bin/env node' },
});
