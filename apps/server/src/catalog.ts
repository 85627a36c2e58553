import type { ProviderMetadata } from '@x/mcp-core';
import { PROVIDERS } from './providers.generated.js';

/**
 * The providers this server composes: each package's own metadata (`<package>/metadata`, the
 * light entry: zod and tables), from which the config schema, the composition and `--help` are
 * built. The list is generated from package.json (scripts/providers.mjs, run by the build):
 * adding a provider is its dependency line and nothing else here.
 */
export { PROVIDERS };

export type ProviderId = string;
export const PROVIDER_IDS: readonly ProviderId[] = PROVIDERS.map((provider) => provider.id);

/** The metadata of a provider served here, by id. */
export const CATALOG: ReadonlyMap<ProviderId, ProviderMetadata> = new Map(
  PROVIDERS.map((provider) => [provider.id, provider]),
);
