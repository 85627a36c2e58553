import type { ProviderMetadata } from '@x/mcp-core';
import { ContextForgeConfigSchema } from './config.js';
import { SETTINGS_TABLE } from './environment.js';

/**
 * What this package is, for a composed server (`@x/mcp-context-forge/metadata`): zod and the
 * tables only; the provider and its fake load when asked for. Its data is the server's own
 * files, so a hosted server serves it only when its config says so.
 */
export const metadata = {
  id: 'context-forge',
  title: 'Context Forge',
  prefix: 'context_forge_',
  settings: ContextForgeConfigSchema,
  settingsTable: SETTINGS_TABLE,
  hosted: 'local',
  create: async (settings) => (await import('./index.js')).createContextForgeProvider(settings),
  sandbox: async () => (await import('./testing/index.js')).createSandbox(),
} satisfies ProviderMetadata<typeof ContextForgeConfigSchema>;
