import { runBin } from '@x/mcp-core';
import { VERSION } from './version.js';

await runBin({
  name: 'bbj-mcp',
  version: VERSION,
  description: 'BBj documentation search (BBj RAG REST service) and BBj syntax checks (bbjcpl) for AI agents',
  environment: [
    { name: 'BBJ_RAG_API_URL', description: 'BBj RAG REST service (default http://localhost:10800)' },
    {
      name: 'BBJ_RAG_COMPILER_PATH',
      description: 'BBj compiler for validate_bbj_syntax (default bbjcpl on PATH)',
    },
    {
      name: 'BBJ_RAG_COMPILER_TIMEOUT',
      description: 'seconds before a compiler run is stopped (default 10, at most 50)',
    },
  ],
  createProvider: async () => (await import('./index.js')).createBbjRagProvider(),
  createSandbox: async () => (await import('./testing/index.js')).createSandbox(),
});
