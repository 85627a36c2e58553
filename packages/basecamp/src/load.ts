import type { ToolProvider } from '@x/mcp-core';
import { buildBasecampProvider, servedToolsets } from './provider.js';
import type { BasecampSettings } from './settings.js';
import { loadToolSpecs } from './tools/lazy.js';

/**
 * The Basecamp tools, as `createBasecampProvider` builds them, with only the code of the served
 * toolsets loaded (all of it with dynamic toolsets, which can add any toolset while connected).
 * The bin and the composed server start this way (`@x/mcp-basecamp/load`: this module without
 * the complete tool list).
 */
export async function loadBasecampProvider(settings: BasecampSettings = {}): Promise<ToolProvider> {
  const { selection, dynamic } = servedToolsets(settings);
  return buildBasecampProvider(settings, await loadToolSpecs(dynamic ? 'all' : selection));
}
