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
  // The bin: the launcher (compile cache) and the server's own code; the providers, the core, the
  // SDK and zod stay imports from node_modules. Bundled, `--auth oauth` broke: @x/mcp-hosted,
  // loaded from node_modules, must share the core and the providers with the bin (docs/benchmarks.md).
  binBuild({ bundle: [] }),
]);
