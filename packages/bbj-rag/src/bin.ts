import { runBin } from '@x/mcp-core/node';
import { ENVIRONMENT } from './environment.js';
import { VERSION } from './version.js';

await runBin({
  name: 'bbj-mcp',
  version: VERSION,
  description: 'BBj documentation search (BBj RAG REST service) and BBj syntax checks (bbjcpl) for AI agents',
  environment: ENVIRONMENT,
  createProvider: async () => (await import('./index.js')).createBbjRagProvider(),
  createSandbox: async () => (await import('./testing/index.js')).createSandbox(),
});
