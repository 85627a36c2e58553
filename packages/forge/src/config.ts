import { z } from 'zod';
import type { ForgeSettings } from './settings.js';

/**
 * The settings a configuration file may give (`@x/mcp-forge/config`): the non-secret,
 * JSON-shaped part of {@link ForgeSettings}, validated strictly. The token comes from the
 * environment or the `forge` CLI's login file, never from a file a team shares. This module
 * loads only zod, so a server can validate its config without loading the provider.
 */
export const ForgeConfigSchema = z.strictObject({
  apiUrl: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Forge API base including /api'),
  configPath: z.string().min(1).optional().describe("The forge CLI's login file"),
  timeoutMs: z.int().min(1).max(120_000).optional().describe('Time limit of one HTTP request, in ms'),
}) satisfies z.ZodType<ForgeSettings>;

export type ForgeConfig = z.output<typeof ForgeConfigSchema>;
