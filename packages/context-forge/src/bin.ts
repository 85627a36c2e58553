import { runBin } from '@x/mcp-core/node';
import { ENVIRONMENT } from './environment.js';
import { VERSION } from './version.js';

await runBin({
  name: 'context-forge-mcp',
  version: VERSION,
  description: 'Context Forge project tools for AI agents, on the desktop app’s own projects.json',
  environment: ENVIRONMENT,
  createProvider: async () => (await import('./index.js')).createContextForgeProvider(),
  createSandbox: async () => (await import('./testing/index.js')).createSandbox(),
});
