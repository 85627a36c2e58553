// Variant of `ours` whose provider is loaded by a dynamic import inside `createProvider`, as the
// runner's docs suggest. Bundled into one file, the import no longer saves any parsing; the
// benchmark measures its cold start next to `ours` to show what it costs or saves.
import { runBin } from '@x/mcp-core/node';

await runBin({
  name: 'echo-mcp',
  version: '0.0.0',
  description: 'Benchmark fixture: one echo tool (provider imported lazily)',
  createProvider: async () => (await import('./echo-provider.js')).createEchoProvider(),
});
