import { BasecampConfigSchema } from '@x/mcp-basecamp/config';
import { BbjRagConfigSchema } from '@x/mcp-bbj-rag/config';
import { ContextForgeConfigSchema } from '@x/mcp-context-forge/config';
import type { ToolProvider } from '@x/mcp-core';
import type { SandboxHandle } from '@x/mcp-core/node';
import { ForgeConfigSchema } from '@x/mcp-forge/config';
import type { z } from 'zod';

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

const entry = <Settings extends z.ZodType>(value: CatalogEntry<Settings>) => value;

// Each provider's config-file schema comes from its light `./config` entry (zod only), so
// validating a config loads no provider; the provider itself is imported when it is built.
export const CATALOG = {
  basecamp: entry({
    settings: BasecampConfigSchema,
    create: async (settings) => (await import('@x/mcp-basecamp/load')).loadBasecampProvider(settings),
    sandbox: async (settings) =>
      (await import('@x/mcp-basecamp/testing')).createSandbox({
        ...(settings.toolsets ? { toolsets: settings.toolsets } : {}),
        ...(settings.dynamicToolsets === undefined ? {} : { dynamicToolsets: settings.dynamicToolsets }),
      }),
  }),
  forge: entry({
    settings: ForgeConfigSchema,
    create: async (settings) => (await import('@x/mcp-forge')).createForgeProvider(settings),
    sandbox: async () => (await import('@x/mcp-forge/testing')).createSandbox(),
  }),
  'context-forge': entry({
    settings: ContextForgeConfigSchema,
    create: async (settings) => (await import('@x/mcp-context-forge')).createContextForgeProvider(settings),
    sandbox: async () => (await import('@x/mcp-context-forge/testing')).createSandbox(),
  }),
  'bbj-rag': entry({
    settings: BbjRagConfigSchema,
    create: async (settings) => (await import('@x/mcp-bbj-rag')).createBbjRagProvider(settings),
    sandbox: async () => (await import('@x/mcp-bbj-rag/testing')).createSandbox(),
  }),
} satisfies Record<string, CatalogEntry>;

export type ProviderId = keyof typeof CATALOG;
export const PROVIDER_IDS = Object.keys(CATALOG) as ProviderId[];
