import { describeProviderConfig } from '@x/mcp-core/testing';
import { type BasecampConfig, BasecampConfigSchema } from './config.js';
import { SETTINGS_TABLE } from './environment.js';
import type { BasecampSettings } from './settings.js';

describeProviderConfig<BasecampConfig, BasecampSettings>(BasecampConfigSchema, {
  table: SETTINGS_TABLE,
  accepts: [{ uploadDir: '/srv/files' }],
  refuses: [{ uploadDir: 'files' }],
});
