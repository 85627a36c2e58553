import type { SettingVariable } from '@x/mcp-core/upstream';

/**
 * Every environment variable bbj-mcp reads, described once: `--help` prints this table, and
 * the README and server.json are checked against it.
 */
export const ENVIRONMENT: readonly SettingVariable[] = [
  {
    name: 'BBJ_RAG_API_URL',
    description: 'BBj RAG REST service (default http://localhost:10800)',
    default: 'http://localhost:10800',
  },
  {
    name: 'BBJ_RAG_COMPILER_PATH',
    description: 'BBj compiler for validate_bbj_syntax (default bbjcpl on PATH)',
    default: 'bbjcpl',
  },
  {
    name: 'BBJ_RAG_COMPILER_TIMEOUT',
    description: 'seconds before a compiler run is stopped (default 10, at most 50)',
    default: '10',
  },
];
