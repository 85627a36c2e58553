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
  createSandbox: async () => {
    const [{ startFakeBbjRag }, { createBbjRagProvider }] = await Promise.all([
      import('./testing/index.js'),
      import('./index.js'),
    ]);
    const fake = await startFakeBbjRag();
    return {
      // Only the REST service is faked: validate_bbj_syntax still runs the real compiler, if one is configured.
      provider: createBbjRagProvider({ apiUrl: fake.url }),
      description: `fake BBj RAG service at ${fake.url} (sample corpus); validate_bbj_syntax uses the real compiler (BBJ_RAG_COMPILER_PATH or bbjcpl on PATH)`,
      close: fake.close,
    };
  },
});
