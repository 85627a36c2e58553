import { describeProviderConfig } from '@x/mcp-core/testing';
import { type BbjRagConfig, BbjRagConfigSchema } from './config.js';
import { SETTINGS_TABLE } from './environment.js';
import type { BbjRagSettings } from './settings.js';

describeProviderConfig<BbjRagConfig, BbjRagSettings>(BbjRagConfigSchema, {
  table: SETTINGS_TABLE,
  notInFile: ['fetch'],
});
