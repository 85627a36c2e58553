import type { SettingVariable } from '@x/mcp-core/upstream';

/**
 * Every environment variable template-mcp reads, described once: `--help` prints this table, and
 * the README and server.json are checked against it (environment.test.ts).
 */
export const ENVIRONMENT: readonly SettingVariable[] = [
  {
    name: 'TEMPLATE_API_URL',
    description: 'Notes API base URL (default https://notes.example.com/api)',
    default: 'https://notes.example.com/api',
  },
  {
    name: 'TEMPLATE_TOKEN',
    description: 'API token of the Notes API (required)',
    secret: true,
  },
];
