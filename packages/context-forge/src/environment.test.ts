import { describeProviderConfig, describeProviderSettings } from '@x/mcp-core/testing';
import { type ContextForgeConfig, ContextForgeConfigSchema } from './config.js';
import { SETTINGS_TABLE } from './environment.js';
import type { ContextForgeSettings } from './index.js';
import { resolveDataDir } from './paths.js';

describeProviderSettings<{ env?: Record<string, string | undefined> }>({
  packageDir: new URL('..', import.meta.url),
  table: SETTINGS_TABLE,
  resolve: ({ env }) => ({ dataDir: resolveDataDir({ env: env ?? {}, platform: 'linux', home: '/home/x' }) }),
  reads: [
    {
      settings: { env: { CONTEXT_FORGE_DATA_DIR: '/srv/context-forge' } },
      read: { dataDir: '/srv/context-forge' },
    },
  ],
});

describeProviderConfig<ContextForgeConfig, ContextForgeSettings>(ContextForgeConfigSchema, {
  table: SETTINGS_TABLE,
  notInFile: ['lock'],
});
