import { homedir } from 'node:os';
import { join } from 'node:path';
import { type CredentialSource, loadSetting, resolveHttpSettings } from '@x/mcp-core/upstream';
import type { ForgeCredentials } from './auth/credentials.js';
import { SETTINGS } from './environment.js';

/** The Forge API the `forge` CLI talks to; it includes the `/api` prefix. */
export const DEFAULT_API_URL = SETTINGS.apiUrl.default;

export interface ForgeSettings {
  /** Forge API base URL including `/api`. Default: `$FORGE_API_URL`, then `https://www.forge-ai.dev/api`. */
  apiUrl?: string;
  /**
   * Access token. Default: `$FORGE_ACCESS_TOKEN`, then the `forge` CLI's stored login. A token
   * given this way cannot be refreshed; a rejected one asks for a new one.
   */
  accessToken?: string;
  /** Team sent as `x-team-id`. Default: `$FORGE_TEAM_ID`, then the stored login's team. */
  teamId?: string;
  /** The login file. Default: `$FORGE_CONFIG_PATH`, then `~/.forge/config.json` (shared with the `forge` CLI). */
  configPath?: string;
  /**
   * Where every request's token and team come from. Default: `accessToken`/`teamId` (or their
   * variables), else the login file. A server that serves several people passes each one's own.
   */
  credentials?: CredentialSource<ForgeCredentials>;
  /** Time limit of one HTTP request, from sending to the last byte of the answer, in ms. Default 30000. */
  timeoutMs?: number;
  /** First wait before the single retry after a 429, or a 5xx on a read, in ms. Default 1000. */
  retryDelayMs?: number;
  /** Directory `get_repository_context` works in and may not leave. Default: the process's working directory. */
  cwd?: string;
  /** A `fetch` implementation, e.g. for a proxy. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Environment to read the defaults from. Default: `process.env`. */
  env?: Record<string, string | undefined>;
}

export interface ResolvedSettings {
  apiUrl: string;
  accessToken: string | undefined;
  teamId: string | undefined;
  configPath: string;
  timeoutMs: number;
  retryDelayMs: number;
  fetch: typeof fetch;
}

/** Reads settings and their environment fallbacks. Called on first use, never at import. */
export function resolveSettings(settings: ForgeSettings): ResolvedSettings {
  const env = settings.env ?? process.env;
  return {
    ...resolveHttpSettings(SETTINGS.apiUrl, settings, {
      example: `the Forge API base, e.g. ${DEFAULT_API_URL}`,
    }),
    accessToken: loadSetting({ value: settings.accessToken, env, variable: SETTINGS.accessToken.env }),
    teamId: loadSetting({ value: settings.teamId, env, variable: SETTINGS.teamId.env }),
    configPath: settings.configPath ?? defaultConfigPath(env),
    retryDelayMs: settings.retryDelayMs ?? 1_000,
  };
}

/** `$FORGE_CONFIG_PATH`, then the `forge` CLI's `~/.forge/config.json`. */
export function defaultConfigPath(env: Record<string, string | undefined> = process.env): string {
  return env[SETTINGS.configPath.env] || join(env.HOME || homedir(), '.forge', 'config.json');
}
