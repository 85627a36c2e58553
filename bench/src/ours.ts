// The `ours` fixture: a provider bin on the shared runner, bundled by tsup into dist/ours.js.
// stdio by default, `--http --port N` for stateless HTTP on 127.0.0.1.
import { runBin } from '@x/mcp-core/node';
import { createEchoProvider } from './echo-provider.js';

await runBin({
  name: 'echo-mcp',
  version: '0.0.0',
  description: 'Benchmark fixture: one echo tool',
  createProvider: () => createEchoProvider(),
});
