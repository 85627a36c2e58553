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
  // The bin, bundled like every provider's: the launcher (compile cache), the server's code, the
  // providers with their own dependencies, the core, the SDK and zod. `@x/mcp-hosted` (only
  // `--auth oauth` loads it) stays an import from node_modules, so building this bin does not
  // need it built (`pnpm demo` does not build it); it brings its own copy of the core, which the
  // core's cross-copy brands make safe (README, "Bundling").
  binBuild({ bundle: [/^@x\/(?!mcp-hosted(\/|$))/, /^@modelcontextprotocol\//, /^zod(\/|$)/] }),
]);
