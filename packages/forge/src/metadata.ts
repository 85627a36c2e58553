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
  // A signed-in person links their own Forge account (the device login) at /connect/forge.
  connection: {
    kind: 'linked-account',
    load: async () => (await import('./hosted-connection.js')).connection,
    // Its fakes for `x-mcp-server --http --auth oauth --sandbox`.
    sandbox: async () => (await import('./testing/index.js')).createHostedSandbox(),
  },
  // Reads the server's working directory's git repository, never a user's.
  localTools: ['get_repository_context'],
  create: async (settings) => (await import('./index.js')).createForgeProvider(settings),
  sandbox: async () => (await import('./testing/index.js')).createSandbox(),
} satisfies ProviderMetadata<typeof ForgeConfigSchema>;
