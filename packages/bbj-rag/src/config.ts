import { z } from 'zod';
import type { BbjRagSettings } from './settings.js';

/** The compiler must finish well inside the registry's default 60 s call budget. */
export const MAX_COMPILER_TIMEOUT_SECONDS = 50;
export const MAX_TIMEOUT_MS = 120_000;

/**
 * The settings a configuration file may give (`@x/mcp-bbj-rag/config`): the JSON-shaped part of
 * {@link BbjRagSettings}, validated strictly. This module loads only zod, so a server can
 * validate its config without loading the provider.
 */
export const BbjRagConfigSchema = z.strictObject({
  apiUrl: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('BBj RAG REST service'),
  compilerPath: z.string().min(1).optional().describe('The bbjcpl compiler (a path or a name on PATH)'),
  compilerTimeoutSeconds: z
    .number()
    .positive()
    .max(MAX_COMPILER_TIMEOUT_SECONDS)
    .optional()
    .describe('Seconds before a compiler run is stopped'),
  timeoutMs: z.int().min(1).max(MAX_TIMEOUT_MS).optional().describe('Time limit of one REST request, in ms'),
}) satisfies z.ZodType<BbjRagSettings>;

export type BbjRagConfig = z.output<typeof BbjRagConfigSchema>;
