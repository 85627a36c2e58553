import { ConfigError } from '@x/mcp-core';
import { loadNumberSetting, loadSetting, resolveHttpSettings } from '@x/mcp-core/upstream';
import { MAX_COMPILER_TIMEOUT_SECONDS, SETTINGS } from './environment.js';

export const DEFAULT_API_URL = SETTINGS.apiUrl.default;
export const DEFAULT_COMPILER_PATH = SETTINGS.compilerPath.default;
export const DEFAULT_COMPILER_TIMEOUT_SECONDS = Number(SETTINGS.compilerTimeoutSeconds.default);
export const DEFAULT_TIMEOUT_MS = Number(SETTINGS.timeoutMs.default);

export { MAX_COMPILER_TIMEOUT_SECONDS };

export interface BbjRagSettings {
  /** Base URL of the BBj RAG REST service. Default: `$BBJ_RAG_API_URL`, then `http://localhost:10800`. */
  apiUrl?: string;
  /** The BBj compiler command (a path or a name on `PATH`). Default: `$BBJ_RAG_COMPILER_PATH`, then `bbjcpl`. */
  compilerPath?: string;
  /** Seconds before a compiler run is killed (0 < n ≤ 50). Default: `$BBJ_RAG_COMPILER_TIMEOUT`, then 10. */
  compilerTimeoutSeconds?: number;
  /** Milliseconds one REST request may take, body included (1 ≤ n ≤ 120000). Default: 30000. */
  timeoutMs?: number;
  /** @deprecated The old name of `timeoutMs`, still read when `timeoutMs` is not given. */
  requestTimeoutMs?: number;
  /** A `fetch` implementation, e.g. to add a proxy. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Environment to read the defaults from. Default: `process.env`. */
  env?: Record<string, string | undefined>;
}

export interface ApiSettings {
  apiUrl: string;
  timeoutMs: number;
  fetch: typeof fetch;
}

export interface CompilerSettings {
  compilerPath: string;
  compilerTimeoutSeconds: number;
}

/** Reads settings and the environment when a tool first needs them, never at import. */
export function resolveApiSettings(settings: BbjRagSettings): ApiSettings {
  // The API base keeps any path prefix (a reverse proxy may serve the API under one).
  return resolveHttpSettings(
    SETTINGS.apiUrl,
    { ...settings, timeoutMs: settings.timeoutMs ?? settings.requestTimeoutMs },
    {
      example: `the BBj RAG REST service, e.g. ${DEFAULT_API_URL}`,
      ...(settings.timeoutMs === undefined && settings.requestTimeoutMs !== undefined
        ? { timeoutSetting: 'requestTimeoutMs' }
        : {}),
    },
  );
}

export function resolveCompilerSettings(settings: BbjRagSettings): CompilerSettings {
  const env = settings.env ?? process.env;
  const compilerPath = loadSetting({
    value: settings.compilerPath,
    env,
    variable: SETTINGS.compilerPath.env,
    fallback: DEFAULT_COMPILER_PATH,
  });
  if (compilerPath.trim() === '' || compilerPath.includes('\u0000')) {
    throw new ConfigError('compilerPath must be a non-empty path or command name.');
  }
  const compilerTimeoutSeconds = loadNumberSetting({
    value: settings.compilerTimeoutSeconds,
    env,
    variable: SETTINGS.compilerTimeoutSeconds.env,
    setting: 'compilerTimeoutSeconds',
    fallback: DEFAULT_COMPILER_TIMEOUT_SECONDS,
    integer: false,
    max: MAX_COMPILER_TIMEOUT_SECONDS,
    unit: 'seconds',
  });
  return { compilerPath, compilerTimeoutSeconds };
}
