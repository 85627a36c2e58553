import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { demo: 'src/demo.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
  banner: { js: '#!/usr/bin/env node' },
});
