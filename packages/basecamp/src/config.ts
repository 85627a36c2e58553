import { configSchemaOf } from '@x/mcp-core/upstream';
import type { z } from 'zod';
import { SETTINGS_TABLE } from './environment.js';
import type { BasecampSettings } from './settings.js';

/**
 * The settings a configuration file may give (`@x/mcp-basecamp/config`): the non-secret,
 * JSON-shaped part of {@link BasecampSettings}, validated strictly, from the settings table
 * (environment.ts). Secrets (tokens, the client secret) come from the environment or the login
 * file, never from a file a team shares. This module loads only zod and the table, so a server
 * can validate its config without loading the provider.
 */
export const BasecampConfigSchema = configSchemaOf(SETTINGS_TABLE) satisfies z.ZodType<BasecampSettings>;

export type BasecampConfig = z.output<typeof BasecampConfigSchema>;
