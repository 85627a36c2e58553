import { configSchemaOf } from '@x/mcp-core/upstream';
import type { z } from 'zod';
import { SETTINGS_TABLE } from './environment.js';
import type { ContextForgeSettings } from './index.js';

/**
 * The settings a configuration file may give (`@x/mcp-context-forge/config`), validated
 * strictly, from the settings table (environment.ts). This module loads only zod and the table,
 * so a server can validate its config without loading the provider.
 */
export const ContextForgeConfigSchema = configSchemaOf(
  SETTINGS_TABLE,
) satisfies z.ZodType<ContextForgeSettings>;

export type ContextForgeConfig = z.output<typeof ContextForgeConfigSchema>;
