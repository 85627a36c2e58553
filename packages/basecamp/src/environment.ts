import type { SettingVariable } from '@x/mcp-core/upstream';

/**
 * Every environment variable basecamp-mcp reads, described once: `--help` prints this table,
 * and the README and server.json are checked against it.
 */
export const ENVIRONMENT: readonly SettingVariable[] = [
  { name: 'BASECAMP_CLIENT_ID', description: 'OAuth app client id (login, refresh)' },
  { name: 'BASECAMP_CLIENT_SECRET', description: 'OAuth app client secret (login, refresh)', secret: true },
  {
    name: 'BASECAMP_REDIRECT_URI',
    description: 'registered redirect URI (default http://127.0.0.1:8765/callback)',
    default: 'http://127.0.0.1:8765/callback',
  },
  {
    name: 'BASECAMP_ACCESS_TOKEN',
    description: 'use this token instead of the saved login (with BASECAMP_ACCOUNT_ID)',
    secret: true,
  },
  { name: 'BASECAMP_ACCOUNT_ID', description: 'the account number (https://3.basecamp.com/<id>/)' },
  {
    name: 'BASECAMP_TOKEN_FILE',
    description: 'login file (default basecamp-mcp/token.json in the OS config dir)',
    // A path, but the registry treats a variable named like a token as a secret.
    secret: true,
  },
  {
    name: 'BASECAMP_API_URL',
    description: 'API base (default https://3.basecampapi.com)',
    default: 'https://3.basecampapi.com',
  },
  {
    name: 'BASECAMP_LAUNCHPAD_URL',
    description: 'OAuth base (default https://launchpad.37signals.com)',
    default: 'https://launchpad.37signals.com',
  },
  {
    name: 'BASECAMP_RATE_LIMIT_REQUESTS',
    description: 'client-side limit per account (default 50)',
    default: '50',
  },
  {
    name: 'BASECAMP_RATE_LIMIT_WINDOW_MS',
    description: 'its window in ms (default 10000)',
    default: '10000',
  },
  {
    name: 'BASECAMP_TOOLSETS',
    description: 'toolsets to serve, comma-separated (default: default; all: every tool)',
    default: 'default',
  },
  {
    name: 'BASECAMP_DYNAMIC_TOOLSETS',
    description: '1: serve list_toolsets and enable_toolset to add toolsets at run time (default off)',
  },
  {
    name: 'BASECAMP_PROJECTS',
    description: 'only these project IDs, comma-separated: others are hidden and refused (default: all)',
  },
  { name: 'BASECAMP_CONTACT', description: 'contact URL or email sent in the User-Agent' },
  {
    name: 'BASECAMP_UPLOAD_DIR',
    description: 'absolute folder whose files the upload tools may send by path (unset: base64 only)',
  },
];
