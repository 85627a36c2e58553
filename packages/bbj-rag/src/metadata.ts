import type { ProviderMetadata } from '@x/mcp-core';
import { BbjRagConfigSchema } from './config.js';
import { SETTINGS_TABLE } from './environment.js';

/**
 * What this package is, for a composed server (`@x/mcp-bbj-rag/metadata`): zod and the tables
 * only; the provider and its fake load when asked for.
 */
export const metadata = {
  id: 'bbj-rag',
  title: 'BBj documentation',
  prefix: 'bbj_rag_',
  settings: BbjRagConfigSchema,
  settingsTable: SETTINGS_TABLE,
  hosted: 'shared',
  create: async (settings) => (await import('./index.js')).createBbjRagProvider(settings),
  sandbox: async () => (await import('./testing/index.js')).createSandbox(),
} satisfies ProviderMetadata<typeof BbjRagConfigSchema>;
