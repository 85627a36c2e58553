import { defineConfig } from 'tsup';
import { binBuild, KEEP_BIN_OUTPUT } from '../../tsup.provider.js';

export default defineConfig([
  // The library entry (the demo and the tests compose with it): unbundled, no shebang.
  {
    entry: { index: 'src/index.ts' },
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    sourcemap: true,
    clean: KEEP_BIN_OUTPUT,
    splitting: true,
  },
  // The bin bundles the providers and their dependencies as well (this app is not published),
  // except @x/mcp-hosted, which only `--auth oauth` loads, with its own dependencies (Node 22).
  binBuild({ bundle: [/^(?!@x\/mcp-hosted(\/|$))/] }),
]);
