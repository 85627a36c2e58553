import { environmentOf, indexSettings, type SettingRow, TIMEOUT_SETTING } from '@x/mcp-core/upstream';
import { z } from 'zod';

/**
 * Every setting of forge-mcp, declared once: the reader (settings.ts) takes each variable and
 * default from here; `--help`, the config-file schema (config.ts), server.json's variables and
 * the README's table are derived from it (`node scripts/server-json.mjs --write`).
 */
export const SETTINGS_TABLE = [
  {
    setting: 'apiUrl',
    env: 'FORGE_API_URL',
    type: 'url',
    default: 'https://www.forge-ai.dev/api',
    description: 'Forge API base including /api (default https://www.forge-ai.dev/api)',
    config: z.url({ protocol: /^https?$/ }),
  },
  {
    setting: 'configPath',
    env: 'FORGE_CONFIG_PATH',
    type: 'path',
    description: 'login file (default ~/.forge/config.json, shared with the forge CLI)',
    config: z.string().min(1),
  },
  {
    setting: 'accessToken',
    env: 'FORGE_ACCESS_TOKEN',
    type: 'string',
    secret: true,
    description: 'use this token instead of the login file (with FORGE_TEAM_ID)',
  },
  {
    setting: 'teamId',
    env: 'FORGE_TEAM_ID',
    type: 'string',
    description: 'team sent as x-team-id with FORGE_ACCESS_TOKEN',
  },
  TIMEOUT_SETTING,
] as const satisfies readonly SettingRow[];

export const SETTINGS = indexSettings(SETTINGS_TABLE);

/** Its environment variables, for `--help`. */
export const ENVIRONMENT = environmentOf(SETTINGS_TABLE);
