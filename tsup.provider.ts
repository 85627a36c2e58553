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
  plugins: [binShebang('bin')],
});
