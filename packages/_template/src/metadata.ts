import type { ProviderMetadata } from '@x/mcp-core';
import { TemplateConfigSchema } from './config.js';
import { SETTINGS_TABLE } from './environment.js';

/**
 * What this package is, for a composed server (`@x/mcp-template/metadata`): zod and the tables
 * only; the provider and its fake load when asked for. `hosted`: `per-user` when every person
 * needs their own token (as here), `shared` when one set serves everyone, `local` for the
 * server's own files.
 */
export const metadata = {
  id: 'template',
  title: 'Notes',
  prefix: 'template_',
  settings: TemplateConfigSchema,
  settingsTable: SETTINGS_TABLE,
  hosted: 'per-user',
  create: async (settings) => (await import('./index.js')).createTemplateProvider(settings),
  sandbox: async () => (await import('./testing/index.js')).createSandbox(),
} satisfies ProviderMetadata<typeof TemplateConfigSchema>;
