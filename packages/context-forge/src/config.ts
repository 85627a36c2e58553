import { z } from 'zod';
import type { ContextForgeSettings } from './index.js';

/**
 * The settings a configuration file may give (`@x/mcp-context-forge/config`), validated
 * strictly. This module loads only zod, so a server can validate its config without loading the
 * provider.
 */
export const ContextForgeConfigSchema = z.strictObject({
  dataDir: z.string().min(1).optional().describe('Directory of projects.json'),
}) satisfies z.ZodType<ContextForgeSettings>;

export type ContextForgeConfig = z.output<typeof ContextForgeConfigSchema>;
