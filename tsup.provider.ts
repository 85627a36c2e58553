import { defineConfig, type Options } from 'tsup';

/**
 * The shebang goes on dist/bin.js only (tsup's `banner` would put it on every chunk, and
 * make them all executable): library modules are imported, never executed.
 */
const binShebang: NonNullable<Options['plugins']>[number] = {
  name: 'bin-shebang',
  renderChunk(code, chunk) {
    if (!/[\\/]bin\.js$/.test(chunk.path)) return;
    chunk.mode = 0o755;
    if (chunk.map) {
      // One line more at the top: the source map starts with one empty line of mappings.
      const map = typeof chunk.map === 'string' ? JSON.parse(chunk.map) : chunk.map;
      chunk.map = { ...map, mappings: `;${map.mappings}` };
    }
    return { code: `#!/usr/bin/env node\n${code}` };
  },
};

/**
 * The build of every provider package: the library (`.`), its config-file schema (`./config`), its
 * fake upstream (`./testing`), all with types, and the bin; ESM for Node 20, `@x/mcp-core` and every other dependency external.
 */
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    config: 'src/config.ts',
    'testing/index': 'src/testing/index.ts',
    bin: 'src/bin.ts',
  },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: {
    entry: { index: 'src/index.ts', config: 'src/config.ts', 'testing/index': 'src/testing/index.ts' },
  },
  sourcemap: true,
  clean: true,
  splitting: true,
  plugins: [binShebang],
});
