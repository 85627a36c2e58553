import type { SettingVariable } from '@x/mcp-core/upstream';

/** Every environment variable context-forge-mcp reads, described once: `--help` prints this table. */
export const ENVIRONMENT: readonly SettingVariable[] = [
  {
    name: 'CONTEXT_FORGE_DATA_DIR',
    description: 'Directory of projects.json (default: the Context Forge app’s config directory)',
  },
];
