import {
  ConfigError,
  createLogger,
  type Logger,
  networkErrorCode,
  parseRetryAfter,
  sleep,
  TokenExpiredError,
  UpstreamError,
  UpstreamUnavailableError,
} from '@x/mcp-core';
import { type ForgeConfig, readConfig, writeConfig } from '../auth/config-file.js';
import { type ForgeSettings, type ResolvedSettings, resolveSettings } from '../settings.js';
import { VERSION } from '../version.js';
import { errorForStatus, LOGIN_COMMAND } from './errors.js';

/** Who the requests are sent as, and where that came from. */
interface Credentials {
  accessToken: string;
  teamId: string;
  source: 'settings' | 'file';
  /** Present when the login came from the config file; it holds the refresh token. */
  config?: ForgeConfig;
}

export interface RequestOptions {
  query?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
  /** The ticket the request is about, so a 404 says "Ticket not found: <id>". */
  ticketId?: string;
}

/** The longest `Retry-After` we wait before the single 5xx retry; longer ones fail at once. */
const MAX_RETRY_WAIT_MS = 5_000;

/**
 * The Forge API client: bearer token and `x-team-id` on every request, a time limit per
 * request, one refresh on 401 (shared by concurrent calls) with the new token saved, one retry
 * after a 5xx, and every failure mapped once onto the shared error vocabulary.
 */
export class ForgeClient {
  readonly #settings: ForgeSettings;
  readonly #logger: Logger;
  #resolved: ResolvedSettings | undefined;
  #credentials: Credentials | undefined;
  #refreshing: Promise<Credentials> | undefined;
  #warnedAboutMode = false;
  #memberNames: Promise<Map<string, string>> | undefined;

  constructor(settings: ForgeSettings = {}, logger: Logger = createLogger('forge')) {
    this.#settings = settings;
    this.#logger = logger;
  }

  /** Settings with their environment fallbacks, read on first use. */
  get settings(): ResolvedSettings {
    this.#resolved ??= resolveSettings(this.#settings);
    return this.#resolved;
  }

  /** The team requests are made for (loads the login if needed). */
  async teamId(): Promise<string> {
    return (await this.#currentCredentials()).teamId;
  }

  /**
   * The team's members as user id → display name (`GET /teams/:teamId/members`), read once and
   * kept for the life of the client; a failed read is not kept, so the next call tries again.
   */
  teamMemberNames(): Promise<Map<string, string>> {
    this.#memberNames ??= this.teamId()
      .then((teamId) =>
        teamId
          ? this.request<unknown>('GET', `/teams/${encodeURIComponent(teamId)}/members`)
          : { members: [] },
      )
      .then(memberNamesOf);
    this.#memberNames.catch(() => {
      this.#memberNames = undefined;
    });
    return this.#memberNames;
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const settings = this.settings;
    let credentials = await this.#currentCredentials();
    const url = new URL(`${settings.apiUrl}${path}`);
    for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
    let renewed = false;
    let retried = false;
    for (;;) {
      const response = await this.#send(method, url, credentials, options);
      if (response.status === 401) {
        await response.body?.cancel().catch(() => {});
        if (renewed) throw this.#expired(credentials);
        renewed = true;
        credentials = await this.#renew(credentials);
        continue;
      }
      if (response.status >= 500 && !retried) {
        await response.body?.cancel().catch(() => {});
        retried = true;
        const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
        const wait =
          retryAfter !== undefined && retryAfter <= MAX_RETRY_WAIT_MS ? retryAfter : settings.retryDelayMs;
        await sleep(wait, options.signal);
        continue;
      }
      const body = await this.#readBody(response, method, path, options.signal);
      if (response.ok) return body as T;
      throw errorForStatus(response.status, response.headers, body, {
        method,
        path,
        teamId: credentials.teamId,
        ...(options.ticketId === undefined ? {} : { ticketId: options.ticketId }),
      });
    }
  }

  async #send(
    method: string,
    url: URL,
    credentials: Credentials,
    options: RequestOptions,
  ): Promise<Response> {
    const { timeoutMs, fetch } = this.settings;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const headers: Record<string, string> = {
      authorization: `Bearer ${credentials.accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': `@x/mcp-forge/${VERSION}`,
    };
    // A login without a team (Forge can issue one) uses the personal workspace: no header at all.
    if (credentials.teamId) headers['x-team-id'] = credentials.teamId;
    try {
      return await fetch(url, {
        method,
        headers,
        signal,
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      });
    } catch (error) {
      throw this.#networkError(error, options.signal, timeout);
    }
  }

  async #readBody(response: Response, method: string, path: string, signal?: AbortSignal): Promise<unknown> {
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw this.#networkError(error, signal, undefined);
    }
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text);
    } catch {
      if (!response.ok) return undefined;
      throw new UpstreamError(`Forge answered ${method} ${path} with a body that is not JSON.`);
    }
  }

  #networkError(error: unknown, callerSignal: AbortSignal | undefined, timeout: AbortSignal | undefined) {
    // The caller's cancellation or time budget: let the core report it as such.
    if (callerSignal?.aborted) return callerSignal.reason ?? error;
    const base = this.settings.apiUrl;
    if (timeout?.aborted || (error as Error | undefined)?.name === 'TimeoutError') {
      return new UpstreamUnavailableError(
        `Forge at ${base} did not answer within ${this.settings.timeoutMs} ms. Try again in a moment.`,
      );
    }
    const code = networkErrorCode(error);
    return new UpstreamUnavailableError(
      `Cannot reach the Forge server at ${base}${code ? ` (${code})` : ''}. Check your connection, or FORGE_API_URL for a self-hosted Forge.`,
    );
  }

  async #currentCredentials(): Promise<Credentials> {
    if (this.#credentials) return this.#credentials;
    const settings = this.settings;
    if (settings.accessToken || settings.teamId) {
      if (!settings.accessToken) {
        throw new ConfigError(
          `FORGE_TEAM_ID is set but FORGE_ACCESS_TOKEN is not. Set both, or unset FORGE_TEAM_ID and run ${LOGIN_COMMAND}.`,
        );
      }
      if (!settings.teamId) {
        throw new ConfigError(
          `FORGE_ACCESS_TOKEN is set but FORGE_TEAM_ID is not. Set both, or unset FORGE_ACCESS_TOKEN and run ${LOGIN_COMMAND}.`,
        );
      }
      this.#credentials = { accessToken: settings.accessToken, teamId: settings.teamId, source: 'settings' };
      return this.#credentials;
    }
    const config = await readConfig(settings.configPath, (warning) => {
      if (this.#warnedAboutMode) return;
      this.#warnedAboutMode = true;
      this.#logger.warn(warning);
    });
    if (!config) {
      throw new ConfigError(
        `Not logged in to Forge. Run ${LOGIN_COMMAND} in a terminal, or set FORGE_ACCESS_TOKEN and FORGE_TEAM_ID.`,
      );
    }
    this.#credentials = fromConfig(config);
    return this.#credentials;
  }

  /** A fresh token after a 401. Concurrent calls that hit the same expired token share one refresh. */
  async #renew(rejected: Credentials): Promise<Credentials> {
    const current = this.#credentials;
    if (current && current.accessToken !== rejected.accessToken) return current;
    if (!this.#refreshing) {
      this.#refreshing = this.#refresh(rejected).finally(() => {
        this.#refreshing = undefined;
      });
    }
    return this.#refreshing;
  }

  async #refresh(rejected: Credentials): Promise<Credentials> {
    if (rejected.source === 'settings' || !rejected.config) throw this.#expired(rejected);
    const { configPath } = this.settings;
    // Someone may have logged in again (here or with the forge CLI) since we read the file.
    const onDisk = await readConfig(configPath).catch(() => undefined);
    if (onDisk && onDisk.accessToken !== rejected.accessToken) {
      this.#credentials = fromConfig(onDisk);
      return this.#credentials;
    }
    const config = rejected.config;
    if (!config.refreshToken) throw this.#expired(rejected);
    const { accessToken, expiresAt } = await this.#refreshToken(config.refreshToken, rejected);
    const updated: ForgeConfig = { ...config, accessToken, expiresAt };
    try {
      await writeConfig(configPath, updated);
    } catch (error) {
      // The new token still works for this process; the next start refreshes again.
      this.#logger.warn('could not save the refreshed Forge token', {
        code: (error as NodeJS.ErrnoException).code,
      });
    }
    this.#credentials = fromConfig(updated);
    return this.#credentials;
  }

  async #refreshToken(
    refreshToken: string,
    rejected: Credentials,
  ): Promise<{ accessToken: string; expiresAt: string }> {
    const { apiUrl, fetch, timeoutMs } = this.settings;
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await fetch(`${apiUrl}/auth/refresh`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'user-agent': `@x/mcp-forge/${VERSION}`,
        },
        body: JSON.stringify({ refreshToken }),
        signal: timeout,
      });
    } catch (error) {
      throw this.#networkError(error, undefined, timeout);
    }
    const body = await this.#readBody(response, 'POST', '/auth/refresh');
    if (response.status >= 500) {
      throw new UpstreamError(
        `Forge failed with ${response.status} while refreshing the session. Try again in a moment.`,
        { retryable: true, details: { status: response.status } },
      );
    }
    if (!response.ok) throw this.#expired(rejected);
    const record = (body ?? {}) as Record<string, unknown>;
    if (typeof record.accessToken !== 'string' || record.accessToken === '') {
      throw new UpstreamError('Forge answered the session refresh without an access token.');
    }
    const expiresAt =
      typeof record.expiresAt === 'string'
        ? record.expiresAt
        : new Date(Date.now() + 3_600_000).toISOString();
    return { accessToken: record.accessToken, expiresAt };
  }

  /** The session cannot be renewed. Forget it, so a login made meanwhile is picked up by the next call. */
  #expired(credentials: Credentials) {
    this.#credentials = undefined;
    if (credentials.source === 'settings') {
      return new TokenExpiredError(
        `Forge rejected the access token (401). Set a fresh FORGE_ACCESS_TOKEN, or unset FORGE_ACCESS_TOKEN and FORGE_TEAM_ID and run ${LOGIN_COMMAND}.`,
      );
    }
    return new TokenExpiredError(
      `Your Forge session has expired and could not be renewed. Run ${LOGIN_COMMAND} in a terminal, then call the tool again.`,
    );
  }
}

function fromConfig(config: ForgeConfig): Credentials {
  return { accessToken: config.accessToken, teamId: config.teamId, source: 'file', config };
}

/** Reads `{ members: [{ userId, displayName }] }`, tolerating `id` / `name` and unknown fields. */
function memberNamesOf(body: unknown): Map<string, string> {
  const members = (body as { members?: unknown } | null)?.members;
  const names = new Map<string, string>();
  for (const member of Array.isArray(members) ? members : []) {
    const record = (member ?? {}) as Record<string, unknown>;
    const id = record.userId ?? record.id;
    const name = record.displayName ?? record.name;
    if (typeof id === 'string' && typeof name === 'string' && name.trim() !== '') names.set(id, name.trim());
  }
  return names;
}
