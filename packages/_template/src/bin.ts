import { runBin } from '@x/mcp-core/node';
import { ENVIRONMENT } from './environment.js';
import { VERSION } from './version.js';

await runBin({
  name: 'template-mcp',
  version: VERSION,
  description: 'The Notes API for AI agents',
  environment: ENVIRONMENT,
  createProvider: async () => (await import('./index.js')).createTemplateProvider(),
  createSandbox: async () => (await import('./testing/index.js')).createSandbox(),
});
