import { describeProviderConfig, describeProviderSettings } from '@x/mcp-core/testing';
import { type ForgeConfig, ForgeConfigSchema } from './config.js';
import { SETTINGS_TABLE } from './environment.js';
import { type ForgeSettings, resolveSettings } from './settings.js';

describeProviderSettings<ForgeSettings>({
  packageDir: new URL('..', import.meta.url),
  table: SETTINGS_TABLE,
  resolve: resolveSettings,
  reads: [
    {
      settings: {
        env: {
          FORGE_API_URL: 'https://forge.internal.example/api/',
          FORGE_CONFIG_PATH: '/tmp/forge.json',
          FORGE_ACCESS_TOKEN: 'token',
          FORGE_TEAM_ID: 'team',
        },
      },
      read: {
        apiUrl: 'https://forge.internal.example/api',
        configPath: '/tmp/forge.json',
        accessToken: 'token',
        teamId: 'team',
      },
    },
  ],
  refuses: [
    {
      settings: { env: { FORGE_API_URL: 'ftp://x' } },
      message:
        'FORGE_API_URL must be an http(s) URL, got "ftp://x". Set it to the Forge API base, e.g. https://www.forge-ai.dev/api.',
    },
  ],
});

describeProviderConfig<ForgeConfig, ForgeSettings>(ForgeConfigSchema, { table: SETTINGS_TABLE });
