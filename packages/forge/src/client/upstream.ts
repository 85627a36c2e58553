import { createUpstreamClient, type UpstreamClient, type UpstreamClientOptions } from '@x/mcp-core/upstream';
import type { ResolvedSettings } from '../settings.js';
import { VERSION } from '../version.js';

/**
 * The shared upstream client pointed at Forge: its name, URL setting and User-Agent in one place
 * for the API client, the token refresh and the device-flow login.
 */
export function forgeUpstream<C = never>(
  settings: ResolvedSettings,
  extra: Partial<UpstreamClientOptions<C>> = {},
): UpstreamClient<C> {
  return createUpstreamClient<C>({
    name: 'Forge',
    baseUrl: settings.apiUrl,
    urlSetting: 'FORGE_API_URL',
    hints: { unreachable: 'Check your connection, or FORGE_API_URL for a self-hosted Forge.' },
    timeoutMs: settings.timeoutMs,
    fetch: settings.fetch,
    ...extra,
    headers: { 'user-agent': `@x/mcp-forge/${VERSION}`, ...extra.headers },
  });
}
