import { defineConfig } from 'tsup';
import { binShebang } from '../../tsup.provider.js';

export default defineConfig({
  entry: { bin: 'src/bin.ts', index: 'src/index.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
  splitting: true,
  plugins: [binShebang('bin')],
});
