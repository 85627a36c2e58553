import { describeProviderConfig } from '@x/mcp-core/testing';
import { type ForgeConfig, ForgeConfigSchema } from './config.js';
import { SETTINGS_TABLE } from './environment.js';
import type { ForgeSettings } from './settings.js';

describeProviderConfig<ForgeConfig, ForgeSettings>(ForgeConfigSchema, { table: SETTINGS_TABLE });
