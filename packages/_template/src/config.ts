import { configSchemaOf } from '@x/mcp-core/upstream';
import type { z } from 'zod';
import { SETTINGS_TABLE } from './environment.js';
import type { TemplateSettings } from './settings.js';

/**
 * The settings a configuration file may give (`@x/mcp-template/config`): the JSON-shaped,
 * non-secret part of {@link TemplateSettings}, validated strictly, from the settings table
 * (environment.ts). This module loads only zod and the table, so a server can validate its
 * config without loading the provider.
 */
export const TemplateConfigSchema = configSchemaOf(SETTINGS_TABLE) satisfies z.ZodType<TemplateSettings>;

export type TemplateConfig = z.output<typeof TemplateConfigSchema>;
