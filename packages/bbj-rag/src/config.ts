import { configSchemaOf } from '@x/mcp-core/upstream';
import type { z } from 'zod';
import { MAX_COMPILER_TIMEOUT_SECONDS, MAX_TIMEOUT_MS, SETTINGS_TABLE } from './environment.js';
import type { BbjRagSettings } from './settings.js';

export { MAX_COMPILER_TIMEOUT_SECONDS, MAX_TIMEOUT_MS };

/**
 * The settings a configuration file may give (`@x/mcp-bbj-rag/config`): the JSON-shaped part of
 * {@link BbjRagSettings}, validated strictly, from the settings table (environment.ts). This
 * module loads only zod and the table, so a server can validate its config without loading the
 * provider.
 */
export const BbjRagConfigSchema = configSchemaOf(SETTINGS_TABLE) satisfies z.ZodType<BbjRagSettings>;

export type BbjRagConfig = z.output<typeof BbjRagConfigSchema>;
