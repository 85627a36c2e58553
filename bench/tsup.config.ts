import { defineConfig, type Options } from 'tsup';

// The `ours` fixture: the core and a one-tool provider in one self-contained ESM file, which isolates
// the core's own cost from module loading (published provider bins load the core from node_modules).
const bin: Options = {
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  noExternal: [/.*/],
  splitting: false,
  sourcemap: false,
  // Several builds write to dist/ in parallel, so none may clean it.
  clean: false,
  outDir: 'dist',
  banner: { js: '#!/usr/bin/env node' },
};

export default defineConfig([
  // `ours` is the measured bin; `ours-lazy` imports its provider dynamically (cold-start variant).
  { ...bin, entry: { ours: 'src/ours.ts', 'ours-lazy': 'src/ours-lazy.ts' } },
  // The same bin minified, and the plain SDK fixture bundled like `ours` (cold-start variants).
  { ...bin, entry: { 'ours-min': 'src/ours.ts' }, minify: true },
  { ...bin, entry: { 'plain-sdk-bundled': 'fixtures/plain-sdk.mjs' } },
]);
