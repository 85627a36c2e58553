import { describeProviderConfig, describeProviderSettings } from '@x/mcp-core/testing';
import { expect, it } from 'vitest';
import { type TemplateConfig, TemplateConfigSchema } from './config.js';
import { SETTINGS_TABLE } from './environment.js';
import { resolveSettings, type TemplateSettings } from './settings.js';

// The checks every provider makes of its settings table, reader and config schema
// (@x/mcp-core/testing); below them, this provider's own cases.
describeProviderSettings<TemplateSettings>({
  packageDir: new URL('..', import.meta.url),
  table: SETTINGS_TABLE,
  resolve: resolveSettings,
  defaults: { env: { TEMPLATE_TOKEN: 't' } },
  reads: [
    {
      settings: { env: { TEMPLATE_API_URL: 'http://notes.internal:8080/api/', TEMPLATE_TOKEN: ' secret ' } },
      read: { apiUrl: 'http://notes.internal:8080/api' },
    },
  ],
  refuses: [
    { settings: { env: { TEMPLATE_API_URL: 'ftp://x', TEMPLATE_TOKEN: 't' } }, message: 'TEMPLATE_API_URL' },
    { settings: { env: {} }, message: 'TEMPLATE_TOKEN' },
    { settings: { env: { TEMPLATE_TOKEN: 't' }, timeoutMs: 0 }, message: 'timeoutMs' },
  ],
});

describeProviderConfig<TemplateConfig, TemplateSettings>(TemplateConfigSchema, { table: SETTINGS_TABLE });

it('hands the tools the token of TEMPLATE_TOKEN, trimmed', async () => {
  const resolved = resolveSettings({ env: { TEMPLATE_TOKEN: ' secret ' } });
  expect(await resolved.credentials.current()).toBe('secret');
});
