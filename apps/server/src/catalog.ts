import { metadata as basecamp } from '@x/mcp-basecamp/metadata';
import { metadata as bbjRag } from '@x/mcp-bbj-rag/metadata';
import { metadata as contextForge } from '@x/mcp-context-forge/metadata';
import type { ProviderMetadata } from '@x/mcp-core';
import { metadata as forge } from '@x/mcp-forge/metadata';

/**
 * The providers this server composes, in this order: each package's own metadata
 * (`<package>/metadata`, the light entry: zod and tables), from which the config schema, the
 * composition and `--help` are built. Adding a provider is its dependency in package.json and its
 * line here; test/catalog.test.ts checks that the two agree. (A list, not a discovery at run
 * time: the bin is bundled, and the bundler follows only imports it can read.)
 */
export const PROVIDERS: readonly ProviderMetadata[] = [basecamp, forge, contextForge, bbjRag];

export type ProviderId = string;
export const PROVIDER_IDS: readonly ProviderId[] = PROVIDERS.map((provider) => provider.id);

/** The metadata of a provider served here, by id. */
export const CATALOG: ReadonlyMap<ProviderId, ProviderMetadata> = new Map(
  PROVIDERS.map((provider) => [provider.id, provider]),
);
