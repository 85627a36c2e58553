import {
  environmentOf,
  indexSettings,
  MAX_TIMEOUT_MS,
  type SettingRow,
  TIMEOUT_SETTING,
} from '@x/mcp-core/upstream';
import { z } from 'zod';

/** The compiler must finish well inside the registry's default 60 s call budget. */
export const MAX_COMPILER_TIMEOUT_SECONDS = 50;
export { MAX_TIMEOUT_MS };

/**
 * Every setting of bbj-mcp, declared once: the reader (settings.ts) takes each variable and
 * default from here; `--help`, the config-file schema (config.ts), server.json's variables and
 * the README's table are derived from it (`node scripts/server-json.mjs --write`).
 */
export const SETTINGS_TABLE = [
  {
    setting: 'apiUrl',
    env: 'BBJ_RAG_API_URL',
    type: 'url',
    default: 'http://localhost:10800',
    description: 'BBj RAG REST service (default http://localhost:10800)',
    config: z.url({ protocol: /^https?$/ }),
  },
  {
    setting: 'compilerPath',
    env: 'BBJ_RAG_COMPILER_PATH',
    type: 'path',
    default: 'bbjcpl',
    description: 'BBj compiler for validate_bbj_syntax (default bbjcpl on PATH)',
    config: z.string().min(1),
  },
  {
    setting: 'compilerTimeoutSeconds',
    env: 'BBJ_RAG_COMPILER_TIMEOUT',
    type: 'number',
    default: '10',
    description: `seconds before a compiler run is stopped (default 10, at most ${MAX_COMPILER_TIMEOUT_SECONDS})`,
    config: z.number().positive().max(MAX_COMPILER_TIMEOUT_SECONDS),
  },
  TIMEOUT_SETTING,
] as const satisfies readonly SettingRow[];

export const SETTINGS = indexSettings(SETTINGS_TABLE);

/** Its environment variables, for `--help`. */
export const ENVIRONMENT = environmentOf(SETTINGS_TABLE);
