import { environmentOf, indexSettings, type SettingRow } from '@x/mcp-core/upstream';
import { z } from 'zod';

/**
 * Every setting of context-forge-mcp, declared once: the reader (paths.ts) takes the variable
 * from here; `--help`, the config-file schema (config.ts), server.json's variables and the
 * README's table are derived from it (`node scripts/server-json.mjs --write`).
 */
export const SETTINGS_TABLE = [
  {
    setting: 'dataDir',
    env: 'CONTEXT_FORGE_DATA_DIR',
    type: 'path',
    description: 'Directory of projects.json (default: the Context Forge app’s config directory)',
    config: z.string().min(1),
  },
] as const satisfies readonly SettingRow[];

export const SETTINGS = indexSettings(SETTINGS_TABLE);

/** Its environment variables, for `--help`. */
export const ENVIRONMENT = environmentOf(SETTINGS_TABLE);
