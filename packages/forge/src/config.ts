import { configSchemaOf } from '@x/mcp-core/upstream';
import type { z } from 'zod';
import { SETTINGS_TABLE } from './environment.js';
import type { ForgeSettings } from './settings.js';

/**
 * The settings a configuration file may give (`@x/mcp-forge/config`): the non-secret,
 * JSON-shaped part of {@link ForgeSettings}, validated strictly, from the settings table
 * (environment.ts). The token comes from the environment or the `forge` CLI's login file, never
 * from a file a team shares. This module loads only zod and the table, so a server can validate
 * its config without loading the provider.
 */
export const ForgeConfigSchema = configSchemaOf(SETTINGS_TABLE) satisfies z.ZodType<ForgeSettings>;

export type ForgeConfig = z.output<typeof ForgeConfigSchema>;
