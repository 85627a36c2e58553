import { ConfigError, TokenExpiredError } from '@x/mcp-core';
import {
  type CredentialSource,
  loadSetting,
  resolveHttpSettings,
  staticCredentials,
} from '@x/mcp-core/upstream';
import { SETTINGS } from './environment.js';

export const DEFAULT_API_URL = SETTINGS.apiUrl.default;

export interface TemplateSettings {
  /** Base URL of the Notes API. Default: `$TEMPLATE_API_URL`, then `https://notes.example.com/api`. */
  apiUrl?: string;
  /** The API token. Default: `$TEMPLATE_TOKEN`. Ignored when `credentials` is given. */
  token?: string;
  /** Where the tools get the token (a hosted server passes each user's own). Default: `token` / `$TEMPLATE_TOKEN`. */
  credentials?: CredentialSource<string>;
  /** Milliseconds one request may take, body included (1 ≤ n ≤ 120000). Default: 30000. */
  timeoutMs?: number;
  /** A `fetch` implementation, e.g. to add a proxy. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Environment to read the defaults from. Default: `process.env`. */
  env?: Record<string, string | undefined>;
}

export interface ResolvedSettings {
  apiUrl: string;
  timeoutMs: number;
  fetch: typeof fetch;
  credentials: CredentialSource<string>;
}

/** Reads settings and the environment when a tool first needs them, never at import. */
export function resolveSettings(settings: TemplateSettings): ResolvedSettings {
  return {
    ...resolveHttpSettings(SETTINGS.apiUrl, settings, { example: `the Notes API, e.g. ${DEFAULT_API_URL}` }),
    credentials: settings.credentials ?? tokenCredentials(settings, settings.env ?? process.env),
  };
}

function tokenCredentials(
  settings: TemplateSettings,
  env: Record<string, string | undefined>,
): CredentialSource<string> {
  const token = loadSetting({ value: settings.token, env, variable: SETTINGS.token.env, setting: 'token' });
  if (!token) {
    throw new ConfigError('No Notes API token: set TEMPLATE_TOKEN (or the token setting).');
  }
  return staticCredentials(
    token,
    () =>
      new TokenExpiredError('The Notes API refused the token (401). Replace TEMPLATE_TOKEN and try again.'),
  );
}
