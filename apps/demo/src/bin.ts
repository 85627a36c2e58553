import { runBin } from '@x/mcp-core';

await runBin({
  name: 'notes-mcp',
  version: '0.0.0',
  description: 'Example notes tools on @x/mcp-core (the demo server)',
  createProvider: async () => (await import('./index.js')).createNotesProvider(),
});
