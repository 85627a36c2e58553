import type { ProviderMetadata } from '@x/mcp-core';
import { ForgeConfigSchema } from './config.js';
import { SETTINGS_TABLE } from './environment.js';

/**
 * What this package is, for a composed server (`@x/mcp-forge/metadata`): zod and the tables
 * only; the provider and its fake load when asked for.
 */
export const metadata = {
  id: 'forge',
  title: 'Forge',
  prefix: 'forge_',
  settings: ForgeConfigSchema,
  settingsTable: SETTINGS_TABLE,
  hosted: 'per-user',
  create: async (settings) => (await import('./index.js')).createForgeProvider(settings),
  sandbox: async () => (await import('./testing/index.js')).createSandbox(),
} satisfies ProviderMetadata<typeof ForgeConfigSchema>;
