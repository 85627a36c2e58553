import { environmentOf, indexSettings, type SettingRow, TIMEOUT_SETTING } from '@x/mcp-core/upstream';
import { z } from 'zod';

/**
 * Every setting of template-mcp, declared once (one row each: the settings field, its variable,
 * flag, type, default, whether it is a secret, one line of description, and its config-file
 * schema when a config file may give it). The reader (settings.ts) takes each variable and
 * default from here; `--help`, the config-file schema (config.ts), server.json's variables and
 * the README's table are derived from it (`node scripts/server-json.mjs --write`).
 */
export const SETTINGS_TABLE = [
  {
    setting: 'apiUrl',
    env: 'TEMPLATE_API_URL',
    type: 'url',
    default: 'https://notes.example.com/api',
    description: 'Notes API base URL (default https://notes.example.com/api)',
    config: z.url({ protocol: /^https?$/ }),
  },
  {
    setting: 'token',
    env: 'TEMPLATE_TOKEN',
    type: 'string',
    secret: true,
    description: 'API token of the Notes API (required)',
  },
  TIMEOUT_SETTING,
] as const satisfies readonly SettingRow[];

export const SETTINGS = indexSettings(SETTINGS_TABLE);

/** Its environment variables, for `--help`. */
export const ENVIRONMENT = environmentOf(SETTINGS_TABLE);
