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
  // providers, @x/mcp-hosted (a chunk loaded only by `--auth oauth`), the core, the SDK and zod:
  // one copy of each, shared by the hosted code and the rest. The providers' own dependencies
  // (turndown, markdown-it) are bundled too, in chunks loaded on first use; the hosted server's
  // (oidc-provider, jose, ioredis) are dependencies of this package and stay imports from
  // node_modules (README, "Bundling").
  binBuild(),
]);
