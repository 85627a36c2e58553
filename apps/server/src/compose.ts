import { ConfigError, type ProviderMetadata, type ToolProvider } from '@x/mcp-core';
import type { ProviderEntry, SandboxHandle } from '@x/mcp-core/node';
import { CATALOG, PROVIDER_IDS, type ProviderId } from './catalog.js';
import type { ProviderConfig, ServerConfig } from './config.js';

export interface CompositionOptions {
  config?: ServerConfig;
  /** `--providers`: serve only these (their config still applies). */
  only?: readonly string[];
  /** `--no-prefix`: no default prefixes (a provider's explicit prefix still applies). */
  noPrefix?: boolean;
  /** Settings laid over the config's, per provider (e.g. one signed-in user's credentials). */
  settings?: Partial<Record<ProviderId, Record<string, unknown>>>;
}

/** The metadata of a provider served here (the ids come from `selectProviders`). */
function metadata(id: ProviderId): ProviderMetadata {
  const provider = CATALOG.get(id);
  if (!provider) throw new ConfigError(`Unknown provider ${id}. Known: ${PROVIDER_IDS.join(', ')}.`);
  return provider;
}

/** The default prefix of a provider, from its metadata, e.g. `team_chat_`. */
export const defaultPrefix = (id: ProviderId): string => metadata(id).prefix;

/** Which providers to serve, in catalog order. */
export function selectProviders({ config, only }: CompositionOptions): ProviderId[] {
  if (only) {
    const unknown = only.filter((id) => !PROVIDER_IDS.includes(id));
    if (unknown.length > 0) {
      throw new ConfigError(
        `Unknown provider(s) ${unknown.join(', ')} in --providers. Known: ${PROVIDER_IDS.join(', ')}.`,
      );
    }
    return PROVIDER_IDS.filter((id) => only.includes(id));
  }
  const configured = config?.providers;
  return configured ? PROVIDER_IDS.filter((id) => configured[id] !== undefined) : [...PROVIDER_IDS];
}

function useOptions(id: ProviderId, options: CompositionOptions): ProviderEntry['use'] {
  const own: ProviderConfig = options.config?.providers?.[id] ?? {};
  const prefixesOn = !options.noPrefix && options.config?.prefix !== false;
  const prefix = own.prefix === false ? '' : (own.prefix ?? (prefixesOn ? defaultPrefix(id) : ''));
  return {
    prefix,
    ...(own.include ? { include: own.include } : {}),
    ...(own.exclude ? { exclude: own.exclude } : {}),
    readOnly: (own.readOnly ?? false) || (options.config?.readOnly ?? false),
    // Over HTTP, a provider that is down (an upstream every replica shares, a service nobody set up)
    // fails its own tools and is named in /readyz; the server stays ready while any provider is
    // (decision 0027). Taking every replica out of rotation would stop the providers that work too.
    readiness: 'reported',
  };
}

/** The providers with their settings from the config, each with its prefix and filters. */
export async function compose(options: CompositionOptions): Promise<ProviderEntry[]> {
  const ids = selectProviders(options);
  if (ids.length === 0) throw new ConfigError('No provider to serve: the config lists none.');
  return Promise.all(
    ids.map(async (id) => {
      const settings = { ...(options.config?.providers?.[id]?.settings ?? {}), ...options.settings?.[id] };
      const provider = await metadata(id).create(settings);
      return { provider, use: useOptions(id, options) };
    }),
  );
}

/** The same composition, each provider on its local fake (`--sandbox`). */
export async function composeSandbox(options: CompositionOptions): Promise<SandboxHandle> {
  const ids = selectProviders(options);
  const started: SandboxHandle<ToolProvider>[] = [];
  const close = async () => {
    await Promise.all(started.map((sandbox) => sandbox.close().catch(() => {})));
  };
  try {
    for (const id of ids) {
      const settings = options.config?.providers?.[id]?.settings ?? {};
      started.push(await metadata(id).sandbox(settings));
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    provider: started.map((sandbox, index) => ({
      provider: sandbox.provider,
      use: useOptions(ids[index] as ProviderId, options),
    })),
    description: started.map((sandbox, index) => `${ids[index]}: ${sandbox.description}`).join('; '),
    close,
  };
}
