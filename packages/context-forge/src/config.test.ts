import { describeProviderConfig } from '@x/mcp-core/testing';
import { type ContextForgeConfig, ContextForgeConfigSchema } from './config.js';
import { SETTINGS_TABLE } from './environment.js';
import type { ContextForgeSettings } from './index.js';

describeProviderConfig<ContextForgeConfig, ContextForgeSettings>(ContextForgeConfigSchema, {
  table: SETTINGS_TABLE,
  notInFile: ['lock'],
});
