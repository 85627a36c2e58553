import { defineConfig } from 'tsup';
import { binShebang } from '../../tsup.provider.js';

export default defineConfig({
  entry: { demo: 'src/demo.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
  plugins: [binShebang('demo')],
});
