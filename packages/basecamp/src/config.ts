import { z } from 'zod';
import type { BasecampSettings } from './settings.js';

const url = z.url({ protocol: /^https?$/ });

/**
 * The settings a configuration file may give (`@x/mcp-basecamp/config`): the non-secret,
 * JSON-shaped part of {@link BasecampSettings}, validated strictly. Secrets (tokens, the client
 * secret) come from the environment or the login file, never from a file a team shares. This
 * module loads only zod, so a server can validate its config without loading the provider.
 */
export const BasecampConfigSchema = z.strictObject({
  apiUrl: url.optional().describe('Basecamp API base without the account'),
  launchpadUrl: url.optional().describe('Launchpad (OAuth) base'),
  accountId: z
    .string()
    .regex(/^\d{1,20}$/)
    .optional()
    .describe('The Basecamp account id (the number in 3.basecamp.com/<id>/)'),
  tokenFile: z.string().min(1).optional().describe('The login file written by basecamp-mcp login'),
  contact: z.string().min(3).max(200).optional().describe('Contact for the User-Agent (URL or email)'),
  timeoutMs: z.int().min(1).max(120_000).optional().describe('Time limit of one HTTP request, in ms'),
  rateLimitRequests: z.int().min(1).max(1000).optional().describe('Requests per window, per account'),
  rateLimitWindowMs: z.int().min(100).max(600_000).optional().describe('The rate-limit window, in ms'),
  uploadDir: z
    .string()
    .regex(/^(\/|[A-Za-z]:[\\/])/, 'an absolute path')
    .optional()
    .describe('Absolute folder whose files the upload tools may send by path (default: none, base64 only)'),
  toolsets: z
    .array(z.string().regex(/^[a-z]+$/))
    .min(1)
    .max(20)
    .optional()
    .describe('Basecamp toolsets: "default", "all", or names such as "todos", "cards" (default: default)'),
  projects: z
    .array(z.int().min(1).max(Number.MAX_SAFE_INTEGER))
    .max(1000)
    .optional()
    .describe('Only these Basecamp project IDs: other projects are hidden and refused'),
  dynamicToolsets: z
    .boolean()
    .optional()
    .describe('Also serve list_toolsets and enable_toolset, to add toolsets while connected'),
}) satisfies z.ZodType<BasecampSettings>;

export type BasecampConfig = z.output<typeof BasecampConfigSchema>;
