import type { SandboxHandle, ToolProvider } from '@x/mcp-core';
import { z } from 'zod';

/**
 * The providers this server can compose: how to build each from its (non-secret) settings, and
 * how to start it on its local fake for `--sandbox`. Secrets come from each provider's own
 * environment variables, never from the config file.
 */
export interface CatalogEntry<Settings extends z.ZodType = z.ZodType> {
  /** Settings allowed in the config file, validated strictly. */
  settings: Settings;
  create(settings: z.output<Settings>): Promise<ToolProvider>;
  /** The provider on its local fake (`--sandbox`), from the package's `/testing` entry; settings that choose tools apply. */
  sandbox(settings: z.output<Settings>): Promise<SandboxHandle<ToolProvider>>;
}

const url = z.url({ protocol: /^https?$/ });
const path = z.string().min(1);

const entry = <Settings extends z.ZodType>(value: CatalogEntry<Settings>) => value;

export const CATALOG = {
  basecamp: entry({
    settings: z.strictObject({
      apiUrl: url.optional().describe('Basecamp API base without the account'),
      launchpadUrl: url.optional().describe('Launchpad (OAuth) base'),
      accountId: z.string().regex(/^\d+$/).optional().describe('The Basecamp account id'),
      tokenFile: path.optional().describe('The login file written by basecamp-mcp login'),
      contact: z.string().min(3).max(200).optional().describe('Contact for the User-Agent (URL or email)'),
      timeoutMs: z.int().min(1).max(120_000).optional(),
      rateLimitRequests: z.int().min(1).max(1000).optional(),
      rateLimitWindowMs: z.int().min(100).max(600_000).optional(),
      toolsets: z
        .array(z.string().regex(/^[a-z]+$/))
        .min(1)
        .max(20)
        .optional()
        .describe(
          'Basecamp toolsets: "default", "all", or names such as "todos", "cards" (default: default)',
        ),
      dynamicToolsets: z
        .boolean()
        .optional()
        .describe('Also serve list_toolsets and enable_toolset, to add toolsets while connected'),
    }),
    create: async (settings) => (await import('@x/mcp-basecamp')).createBasecampProvider(settings),
    sandbox: async (settings) =>
      (await import('@x/mcp-basecamp/testing')).createSandbox({
        ...(settings.toolsets ? { toolsets: settings.toolsets } : {}),
        ...(settings.dynamicToolsets === undefined ? {} : { dynamicToolsets: settings.dynamicToolsets }),
      }),
  }),
  forge: entry({
    settings: z.strictObject({
      apiUrl: url.optional().describe('Forge API base including /api'),
      configPath: path.optional().describe("The forge CLI's login file"),
      timeoutMs: z.int().min(1).max(120_000).optional(),
    }),
    create: async (settings) => (await import('@x/mcp-forge')).createForgeProvider(settings),
    sandbox: async () => (await import('@x/mcp-forge/testing')).createSandbox(),
  }),
  'context-forge': entry({
    settings: z.strictObject({ dataDir: path.optional().describe('Directory of projects.json') }),
    create: async (settings) => (await import('@x/mcp-context-forge')).createContextForgeProvider(settings),
    sandbox: async () => (await import('@x/mcp-context-forge/testing')).createSandbox(),
  }),
  'bbj-rag': entry({
    settings: z.strictObject({
      apiUrl: url.optional().describe('BBj RAG REST service'),
      compilerPath: path.optional().describe('The bbjcpl compiler'),
      compilerTimeoutSeconds: z.number().positive().max(50).optional(),
      requestTimeoutMs: z.int().min(1).max(120_000).optional(),
    }),
    create: async (settings) => (await import('@x/mcp-bbj-rag')).createBbjRagProvider(settings),
    sandbox: async () => (await import('@x/mcp-bbj-rag/testing')).createSandbox(),
  }),
} satisfies Record<string, CatalogEntry>;

export type ProviderId = keyof typeof CATALOG;
export const PROVIDER_IDS = Object.keys(CATALOG) as ProviderId[];
