import { createUpstreamClient, type UpstreamClient } from '@x/mcp-core/upstream';
import { resolveSettings, type TemplateSettings } from './settings.js';
import { VERSION } from './version.js';

/** A note as the Notes API sends it. */
export interface Note {
  id: number;
  title: string;
  body: string;
  created_at: string;
}

/**
 * What the tools share, resolved from the settings and the environment on first use (building
 * the provider reads nothing). A configuration error is thrown to the calling tool, where it
 * becomes `TOOL_NOT_ENABLED`, and resolution is tried again on the next call.
 */
export class TemplateRuntime {
  #client: UpstreamClient<string> | undefined;

  constructor(private readonly settings: TemplateSettings) {}

  client(): UpstreamClient<string> {
    if (this.#client) return this.#client;
    const resolved = resolveSettings(this.settings);
    this.#client = createUpstreamClient<string>({
      name: 'The Notes API',
      baseUrl: resolved.apiUrl,
      urlSetting: 'TEMPLATE_API_URL',
      headers: { 'user-agent': `template-mcp/${VERSION}` },
      timeoutMs: resolved.timeoutMs,
      fetch: resolved.fetch,
      auth: { source: resolved.credentials, headers: (token) => ({ authorization: `Bearer ${token}` }) },
    });
    return this.#client;
  }
}
