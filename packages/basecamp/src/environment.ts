import { environmentOf, indexSettings, type SettingRow, TIMEOUT_SETTING } from '@x/mcp-core/upstream';
import { z } from 'zod';

const url = z.url({ protocol: /^https?$/ });

/**
 * Every setting of basecamp-mcp, declared once: the reader (settings.ts) takes each variable and
 * default from here; `--help`, the config-file schema (config.ts), server.json's variables and
 * the README's table are derived from it (`node scripts/server-json.mjs --write`).
 */
export const SETTINGS_TABLE = [
  {
    setting: 'clientId',
    env: 'BASECAMP_CLIENT_ID',
    type: 'string',
    description: 'OAuth app client id (login, refresh)',
  },
  {
    setting: 'clientSecret',
    env: 'BASECAMP_CLIENT_SECRET',
    type: 'string',
    secret: true,
    description: 'OAuth app client secret (login, refresh)',
  },
  {
    env: 'BASECAMP_REDIRECT_URI',
    type: 'url',
    default: 'http://127.0.0.1:8765/callback',
    description: 'registered redirect URI (default http://127.0.0.1:8765/callback)',
  },
  {
    setting: 'accessToken',
    env: 'BASECAMP_ACCESS_TOKEN',
    type: 'string',
    secret: true,
    description: 'use this token instead of the saved login (with BASECAMP_ACCOUNT_ID)',
  },
  {
    setting: 'accountId',
    env: 'BASECAMP_ACCOUNT_ID',
    type: 'string',
    description: 'the account number (https://3.basecamp.com/<id>/)',
    config: z.string().regex(/^\d{1,20}$/),
  },
  {
    setting: 'tokenFile',
    env: 'BASECAMP_TOKEN_FILE',
    type: 'path',
    // A path, but the registry treats a variable named like a token as a secret.
    secret: true,
    description: 'login file (default basecamp-mcp/token.json in the OS config dir)',
    config: z.string().min(1),
  },
  {
    setting: 'apiUrl',
    env: 'BASECAMP_API_URL',
    type: 'url',
    default: 'https://3.basecampapi.com',
    description: 'API base (default https://3.basecampapi.com)',
    config: url,
  },
  {
    setting: 'launchpadUrl',
    env: 'BASECAMP_LAUNCHPAD_URL',
    type: 'url',
    default: 'https://launchpad.37signals.com',
    description: 'OAuth base (default https://launchpad.37signals.com)',
    config: url,
  },
  {
    setting: 'rateLimitRequests',
    env: 'BASECAMP_RATE_LIMIT_REQUESTS',
    type: 'integer',
    default: '50',
    description: 'client-side limit per account (default 50)',
    config: z.int().min(1).max(1000),
  },
  {
    setting: 'rateLimitWindowMs',
    env: 'BASECAMP_RATE_LIMIT_WINDOW_MS',
    type: 'integer',
    default: '10000',
    description: 'its window in ms (default 10000)',
    config: z.int().min(100).max(600_000),
  },
  {
    setting: 'toolsets',
    env: 'BASECAMP_TOOLSETS',
    flag: '--toolsets',
    type: 'list',
    default: 'default',
    description: 'toolsets to serve, comma-separated (default: default; all: every tool)',
    config: z
      .array(z.string().regex(/^[a-z]+$/))
      .min(1)
      .max(20),
  },
  {
    setting: 'dynamicToolsets',
    env: 'BASECAMP_DYNAMIC_TOOLSETS',
    flag: '--dynamic-toolsets',
    type: 'boolean',
    description: '1: serve list_toolsets and enable_toolset to add toolsets at run time (default off)',
    config: z.boolean(),
  },
  {
    setting: 'projects',
    env: 'BASECAMP_PROJECTS',
    type: 'list',
    description: 'only these project IDs, comma-separated: others are hidden and refused (default: all)',
    config: z.array(z.int().min(1).max(Number.MAX_SAFE_INTEGER)).max(1000),
  },
  {
    setting: 'contact',
    env: 'BASECAMP_CONTACT',
    type: 'string',
    description: 'contact URL or email sent in the User-Agent',
    config: z.string().min(3).max(200),
  },
  {
    setting: 'uploadDir',
    env: 'BASECAMP_UPLOAD_DIR',
    type: 'path',
    description: 'absolute folder whose files the upload tools may send by path (unset: base64 only)',
    config: z.string().regex(/^(\/|[A-Za-z]:[\\/])/, 'an absolute path'),
  },
  TIMEOUT_SETTING,
] as const satisfies readonly SettingRow[];

export const SETTINGS = indexSettings(SETTINGS_TABLE);

/** Its environment variables, for `--help`. */
export const ENVIRONMENT = environmentOf(SETTINGS_TABLE);
