import { rm } from 'node:fs/promises';
import { defineConfig, type Options } from 'tsup';

/**
 * A shebang on the named entry's chunk only (`dist/<entry>.js`, made executable): tsup's `banner`
 * would put it on every chunk, and library modules are imported, never executed. The apps use it
 * too.
 */
export function binShebang(entry = 'bin'): NonNullable<Options['plugins']>[number] {
  const file = new RegExp(`[\\\\/]${entry}\\.js$`);
  return {
    name: 'bin-shebang',
    renderChunk(code, chunk) {
      if (!file.test(chunk.path)) return;
      chunk.mode = 0o755;
      if (chunk.map) {
        // One line more at the top: the source map starts with one empty line of mappings.
        const map = typeof chunk.map === 'string' ? JSON.parse(chunk.map) : chunk.map;
        chunk.map = { ...map, mappings: `;${map.mappings}` };
      }
      return { code: `#!/usr/bin/env node\n${code}` };
    },
  };
}

/** The workspace packages, the MCP SDK and zod: what a bin bundles (see `binBuild`). */
export const BUNDLED_IN_BINS = [/^@x\//, /^@modelcontextprotocol\//, /^zod(\/|$)/];

/**
 * The build of a bin, for a fast cold start (docs/benchmarks.md): `src/bin.ts` and what it uses
 * from `bundle` (by default the workspace packages, the MCP SDK and zod) in dist/bin/, behind
 * dist/bin.js, a launcher that turns on Node's compile cache first (bin-launcher.ts). Modules the
 * program imports dynamically (the provider, its fake for `--sandbox`, login, HTTP serving) stay
 * separate chunks, loaded when used; other dependencies stay imports from node_modules.
 * The library build next to it leaves dist/bin.js and dist/bin/ alone; this one replaces them.
 */
export function binBuild({ bundle = BUNDLED_IN_BINS }: { bundle?: (string | RegExp)[] } = {}): Options {
  return {
    entry: { bin: '../../bin-launcher.ts', 'bin/main': 'src/bin.ts' },
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    noExternal: bundle,
    splitting: true,
    // The bundle is mostly the SDK and zod: maps with their sources would double the tarball.
    sourcemap: false,
    clean: false,
    esbuildOptions(options) {
      options.chunkNames = 'bin/[name]-[hash]';
    },
    esbuildPlugins: [
      {
        name: 'clean-bin-output',
        setup(build) {
          build.onStart(() => rm('dist/bin', { recursive: true, force: true }));
        },
      },
    ],
    plugins: [binShebang('bin')],
  };
}

/** What the library build must not delete: the bin build's output. */
export const KEEP_BIN_OUTPUT = ['!bin.js', '!bin/**'];

/**
 * The build of every provider package: the library (`.`), its config-file schema (`./config`) and
 * its fake upstream (`./testing`), all with types, ESM for Node 20, `@x/mcp-core` and every other
 * dependency external; and the bundled bin (`binBuild`).
 */
export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      config: 'src/config.ts',
      metadata: 'src/metadata.ts',
      'testing/index': 'src/testing/index.ts',
    },
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    dts: true,
    sourcemap: true,
    clean: KEEP_BIN_OUTPUT,
    splitting: true,
  },
  binBuild(),
]);
