import { z } from 'zod';
import type { TemplateSettings } from './settings.js';

export const MAX_TIMEOUT_MS = 120_000;

/**
 * The settings a configuration file may give (`@x/mcp-template/config`): the JSON-shaped,
 * non-secret part of {@link TemplateSettings}, validated strictly. This module loads only zod, so
 * a server can validate its config without loading the provider.
 */
export const TemplateConfigSchema = z.strictObject({
  apiUrl: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Notes API base URL'),
  timeoutMs: z.int().min(1).max(MAX_TIMEOUT_MS).optional().describe('Time limit of one request, in ms'),
}) satisfies z.ZodType<TemplateSettings>;

export type TemplateConfig = z.output<typeof TemplateConfigSchema>;
