import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { ConfigError } from '@x/mcp-core';
import {
  type CredentialSource,
  loadNumberSetting,
  loadSetting,
  loadTimeoutSetting,
  loadUrlRow,
} from '@x/mcp-core/upstream';
import type { BasecampCredentials } from './auth/credentials.js';
import { type ProjectAllowlist, parseProjects } from './client/projects.js';
import { SETTINGS } from './environment.js';

export const DEFAULT_API_URL = SETTINGS.apiUrl.default;
export const DEFAULT_LAUNCHPAD_URL = SETTINGS.launchpadUrl.default;
/** Must be registered, exactly, as the app's redirect URI at launchpad.37signals.com/integrations. */
export const DEFAULT_REDIRECT_URI = SETTINGS.BASECAMP_REDIRECT_URI.default;
export const DEFAULT_CONTACT = 'https://www.npmjs.com/package/@x/mcp-basecamp';

export interface BasecampSettings {
  /** API base without the account. Default: `$BASECAMP_API_URL`, then `https://3.basecampapi.com`. */
  apiUrl?: string;
  /** Launchpad (OAuth) base. Default: `$BASECAMP_LAUNCHPAD_URL`, then `https://launchpad.37signals.com`. */
  launchpadUrl?: string;
  /**
   * An access token to use instead of the login file. Default: `$BASECAMP_ACCESS_TOKEN`. Needs
   * `accountId`. It cannot be refreshed: when Basecamp rejects it, the tool says so.
   */
  accessToken?: string;
  /** The Basecamp account (the number in `3.basecamp.com/<id>/`). Default: `$BASECAMP_ACCOUNT_ID`, then the login's. */
  accountId?: string;
  /** OAuth app client id, for refreshing. Default: `$BASECAMP_CLIENT_ID`, then the one saved at login. */
  clientId?: string;
  /** OAuth app client secret, for refreshing. Default: `$BASECAMP_CLIENT_SECRET`, then the one saved at login. */
  clientSecret?: string;
  /** The login file. Default: `$BASECAMP_TOKEN_FILE`, then `basecamp-mcp/token.json` in the OS config directory. */
  tokenFile?: string;
  /** Contact in the User-Agent (URL or email), as Basecamp asks. Default: `$BASECAMP_CONTACT`, then the package page. */
  contact?: string;
  /**
   * Where every request's token and account come from. Default: `accessToken`/`accountId` (or
   * their variables), else the login file. A server that serves several people passes each one's own.
   */
  credentials?: CredentialSource<BasecampCredentials>;
  /** Time limit of one HTTP request, from sending to the last byte of the answer, in ms. Default 30000. */
  timeoutMs?: number;
  /** Client-side limit per account: requests per window. Default `$BASECAMP_RATE_LIMIT_REQUESTS`, then 50. */
  rateLimitRequests?: number;
  /** Client-side limit per account: the window in ms. Default `$BASECAMP_RATE_LIMIT_WINDOW_MS`, then 10000. */
  rateLimitWindowMs?: number;
  /** Longest `Retry-After` (or backoff) waited inside one call; longer ones fail as `RATE_LIMITED`. Default 30000. */
  maxRetryWaitMs?: number;
  /** Retries after a 429, or a 500/502/503/504 on an idempotent request (GET, PUT, DELETE). Default 3. */
  maxRetries?: number;
  /** First backoff after a 5xx, doubled each time, with jitter. Default 500. */
  retryBaseMs?: number;
  /** Responses kept for `If-None-Match` (an LRU). Default 500. */
  cacheEntries?: number;
  /** Largest JSON text a tool returns before it trims; results say `truncated: true`. Default 80000 characters. */
  maxResponseChars?: number;
  /** Refresh a saved token this long before it expires. Default 10 minutes. */
  refreshMarginMs?: number;
  /** How long sign-in from the agent waits for the browser to come back. Default 5 minutes. */
  signInWaitMs?: number;
  /** How long a project's dock (tool IDs) is reused without asking again. Default 5 minutes. */
  dockCacheMs?: number;
  /**
   * How long `create_project_from_template`, run as a task, waits between two looks at the
   * construction it follows to the end. Default 2000 ms.
   */
  constructionPollMs?: number;
  /**
   * Which tools to serve: `default` (a small set), `all`, or toolset names (`todos`, `cards`, ...),
   * as a list or comma-separated. Default: `$BASECAMP_TOOLSETS`, then `default`. Read by the provider.
   */
  toolsets?: string | readonly string[];
  /**
   * A directory whose files the upload tools may read by `path` (relative to it, or absolute inside
   * it). Default: `$BASECAMP_UPLOAD_DIR`; unset, files are sent only as base64 `content_base64`, so a
   * shared server never reads its own disk for a caller.
   */
  uploadDir?: string;
  /**
   * Serve `list_toolsets` and `enable_toolset`, so a model can add a toolset while connected.
   * Default: `$BASECAMP_DYNAMIC_TOOLSETS` (`1`, `true`), then off. Read by the provider.
   */
  dynamicToolsets?: boolean;
  /**
   * Only these projects (IDs): list tools show only them, and every request about another project
   * (or about an item whose project is not given) is refused before it is sent. Default:
   * `$BASECAMP_PROJECTS` (comma-separated), then every project the login can see.
   */
  projects?: readonly number[];
  /** A `fetch` implementation, e.g. for a proxy. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Environment to read the defaults from. Default: `process.env`. */
  env?: Record<string, string | undefined>;
}

export interface ResolvedSettings {
  apiUrl: string;
  launchpadUrl: string;
  accessToken: string | undefined;
  accountId: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
  tokenFile: string;
  userAgent: string;
  timeoutMs: number;
  rateLimitRequests: number;
  rateLimitWindowMs: number;
  maxRetryWaitMs: number;
  maxRetries: number;
  retryBaseMs: number;
  cacheEntries: number;
  maxResponseChars: number;
  refreshMarginMs: number;
  /** `$BASECAMP_REDIRECT_URI`, then the default; checked when a login starts. */
  redirectUri: string;
  signInWaitMs: number;
  dockCacheMs: number;
  constructionPollMs: number;
  /** Absolute; undefined: no file is read by path. */
  uploadDir: string | undefined;
  /** Undefined: every project. */
  projects: ProjectAllowlist | undefined;
  fetch: typeof fetch;
}

/** Reads settings and their environment fallbacks. Called on first use, never at import. */
export function resolveSettings(settings: BasecampSettings, version: string): ResolvedSettings {
  const env = settings.env ?? process.env;
  const accountId = loadSetting({ value: settings.accountId, env, variable: SETTINGS.accountId.env });
  if (accountId !== undefined && !/^\d{1,20}$/.test(accountId.trim())) {
    throw new ConfigError(
      `BASECAMP_ACCOUNT_ID must be the account number (digits, as in https://3.basecamp.com/<id>/), got "${accountId.slice(0, 40)}".`,
    );
  }
  const contact = loadSetting({
    value: settings.contact,
    env,
    variable: SETTINGS.contact.env,
    fallback: DEFAULT_CONTACT,
  }).replace(/[\r\n()]/g, ' ');
  const count = (value: number | undefined, variable: string, setting: string, fallback: number) =>
    loadNumberSetting({ value, env, variable, setting, fallback });
  return {
    apiUrl: loadUrlRow(SETTINGS.apiUrl, {
      value: settings.apiUrl,
      env,
      example: `the API base without the account, e.g. ${DEFAULT_API_URL}`,
    }),
    launchpadUrl: loadUrlRow(SETTINGS.launchpadUrl, {
      value: settings.launchpadUrl,
      env,
      example: DEFAULT_LAUNCHPAD_URL,
    }),
    accessToken: loadSetting({ value: settings.accessToken, env, variable: SETTINGS.accessToken.env }),
    accountId: accountId?.trim(),
    clientId: loadSetting({ value: settings.clientId, env, variable: SETTINGS.clientId.env }),
    clientSecret: loadSetting({ value: settings.clientSecret, env, variable: SETTINGS.clientSecret.env }),
    tokenFile: settings.tokenFile ?? defaultTokenFile(env),
    userAgent: `@x/mcp-basecamp/${version} (${contact.trim()})`,
    timeoutMs: loadTimeoutSetting(settings.timeoutMs),
    rateLimitRequests: count(
      settings.rateLimitRequests,
      SETTINGS.rateLimitRequests.env,
      'rateLimitRequests',
      Number(SETTINGS.rateLimitRequests.default),
    ),
    rateLimitWindowMs: count(
      settings.rateLimitWindowMs,
      SETTINGS.rateLimitWindowMs.env,
      'rateLimitWindowMs',
      Number(SETTINGS.rateLimitWindowMs.default),
    ),
    maxRetryWaitMs: settings.maxRetryWaitMs ?? 30_000,
    maxRetries: settings.maxRetries ?? 3,
    retryBaseMs: settings.retryBaseMs ?? 500,
    cacheEntries: settings.cacheEntries ?? 500,
    maxResponseChars: settings.maxResponseChars ?? 80_000,
    refreshMarginMs: settings.refreshMarginMs ?? 10 * 60_000,
    redirectUri: env[SETTINGS.BASECAMP_REDIRECT_URI.env] || DEFAULT_REDIRECT_URI,
    signInWaitMs: settings.signInWaitMs ?? 5 * 60_000,
    dockCacheMs: settings.dockCacheMs ?? 5 * 60_000,
    constructionPollMs: settings.constructionPollMs ?? 2_000,
    uploadDir: uploadDirectory(
      loadSetting({ value: settings.uploadDir, env, variable: SETTINGS.uploadDir.env }),
    ),
    projects: parseProjects(settings.projects, env[SETTINGS.projects.env]),
    fetch: settings.fetch ?? globalThis.fetch,
  };
}

/**
 * `$BASECAMP_TOKEN_FILE`, then `basecamp-mcp/token.json` in the OS config directory:
 * `%APPDATA%` on Windows, `~/Library/Application Support` on macOS, `$XDG_CONFIG_HOME` or `~/.config` elsewhere.
 */
export function defaultTokenFile(
  env: Record<string, string | undefined> = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  const configured = env[SETTINGS.tokenFile.env];
  if (configured) return configured;
  const home = (platform === 'win32' ? env.USERPROFILE : env.HOME) || homedir();
  let base: string;
  if (platform === 'win32') base = env.APPDATA || join(home, 'AppData', 'Roaming');
  else if (platform === 'darwin') base = join(home, 'Library', 'Application Support');
  else base = env.XDG_CONFIG_HOME || join(home, '.config');
  return join(base, 'basecamp-mcp', 'token.json');
}

function uploadDirectory(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (!isAbsolute(value.trim())) {
    throw new ConfigError(
      `BASECAMP_UPLOAD_DIR must be an absolute directory path, got "${value.slice(0, 80)}".`,
    );
  }
  return resolve(value.trim());
}
