import { runBin } from '@x/mcp-core/node';
import { VERSION } from './version.js';

await runBin({
  name: 'context-forge-mcp',
  version: VERSION,
  description: 'Context Forge project tools for AI agents, on the desktop app’s own projects.json',
  environment: [
    {
      name: 'CONTEXT_FORGE_DATA_DIR',
      description: 'Directory of projects.json (default: the Context Forge app’s config directory)',
    },
  ],
  createProvider: async () => (await import('./index.js')).createContextForgeProvider(),
  createSandbox: async () => (await import('./testing/index.js')).createSandbox(),
});
