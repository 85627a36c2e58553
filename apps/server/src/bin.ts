import { type BinContext, runBin } from '@x/mcp-core';

const VERSION = '0.0.0';

async function options({ flags }: BinContext) {
  const { loadConfig } = await import('./config.js');
  const file = typeof flags.config === 'string' ? flags.config : process.env.MCP_SERVER_CONFIG || undefined;
  const only =
    typeof flags.providers === 'string'
      ? flags.providers
          .split(',')
          .map((id) => id.trim())
          .filter(Boolean)
      : undefined;
  return {
    ...(file ? { config: await loadConfig(file) } : {}),
    ...(only ? { only } : {}),
    noPrefix: flags['no-prefix'] === true,
  };
}

await runBin({
  name: 'x-mcp-server',
  version: VERSION,
  description:
    'Basecamp, Forge, Context Forge and BBj documentation tools in one MCP server, composed by config',
  flags: {
    config: {
      type: 'string',
      value: '<file>',
      description: 'JSON config: providers, prefixes, filters, settings',
    },
    providers: {
      type: 'string',
      value: '<a,b>',
      description: 'serve only these providers (basecamp, forge, context-forge, bbj-rag)',
    },
    'no-prefix': {
      type: 'boolean',
      description: 'no default name prefixes (basecamp_, forge_, context_forge_, bbj_rag_)',
    },
  },
  environment: [
    { name: 'MCP_SERVER_CONFIG', description: 'config file when --config is not given' },
    {
      name: 'BASECAMP_*, FORGE_*, CONTEXT_FORGE_*, BBJ_RAG_*',
      description: 'each provider’s own settings and secrets',
    },
  ],
  createProvider: async (context) => (await import('./compose.js')).compose(await options(context)),
  createSandbox: async (context) => (await import('./compose.js')).composeSandbox(await options(context)),
});
