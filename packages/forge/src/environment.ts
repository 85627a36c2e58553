import type { SettingVariable } from '@x/mcp-core/upstream';

/**
 * Every environment variable forge-mcp reads, described once: `--help` prints this table,
 * and the README and server.json are checked against it.
 */
export const ENVIRONMENT: readonly SettingVariable[] = [
  {
    name: 'FORGE_API_URL',
    description: 'Forge API base including /api (default https://www.forge-ai.dev/api)',
    default: 'https://www.forge-ai.dev/api',
  },
  {
    name: 'FORGE_CONFIG_PATH',
    description: 'login file (default ~/.forge/config.json, shared with the forge CLI)',
  },
  {
    name: 'FORGE_ACCESS_TOKEN',
    description: 'use this token instead of the login file (with FORGE_TEAM_ID)',
    secret: true,
  },
  { name: 'FORGE_TEAM_ID', description: 'team sent as x-team-id with FORGE_ACCESS_TOKEN' },
];
