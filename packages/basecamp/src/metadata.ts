import type { ProviderMetadata } from '@x/mcp-core';
import { BasecampConfigSchema } from './config.js';
import { SETTINGS_TABLE } from './environment.js';
import { TOOLSET_TOOL_NAMES } from './toolset-names.js';

/**
 * What this package is, for a composed server (`@x/mcp-basecamp/metadata`): zod and the tables
 * only; the provider (only the served toolsets' code) and its fake load when asked for.
 */
export const metadata = {
  id: 'basecamp',
  title: 'Basecamp',
  prefix: 'basecamp_',
  toolsets: Object.keys(TOOLSET_TOOL_NAMES),
  settings: BasecampConfigSchema,
  settingsTable: SETTINGS_TABLE,
  hosted: 'per-user',
  // People sign in with their 37signals login (Launchpad): the hosted server's identity.
  connection: {
    kind: 'sign-in',
    load: async () => (await import('./hosted-connection.js')).connection,
    // Its fakes for `x-mcp-server --http --auth oauth --sandbox`.
    sandbox: async () => (await import('./testing/index.js')).createHostedSandbox(),
  },
  create: async (settings) => (await import('./load.js')).loadBasecampProvider(settings),
  sandbox: async (settings) =>
    (await import('./testing/index.js')).createSandbox({
      ...(settings.toolsets ? { toolsets: settings.toolsets } : {}),
      ...(settings.dynamicToolsets === undefined ? {} : { dynamicToolsets: settings.dynamicToolsets }),
    }),
} satisfies ProviderMetadata<typeof BasecampConfigSchema>;
