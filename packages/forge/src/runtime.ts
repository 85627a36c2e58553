import { createLogger, type Logger } from '@x/mcp-core';
import {
  type CredentialSource,
  type SettingsOnFirstUse,
  settingsOnFirstUse,
  type UpstreamClient,
} from '@x/mcp-core/upstream';
import { defaultForgeCredentials, type ForgeCredentials } from './auth/credentials.js';
import { forgeStatusErrors } from './client/errors.js';
import { forgeUpstream } from './client/upstream.js';
import { type ForgeSettings, type ResolvedSettings, resolveSettings } from './settings.js';

export interface RequestOptions {
  query?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
  /** The ticket the request is about, so a 404 says "Ticket not found: <id>". */
  ticketId?: string;
}

/** The longest `Retry-After` waited inside one call; a longer 429 fails at once with `retry_after_ms`. */
const MAX_RETRY_WAIT_MS = 5_000;

/**
 * The Forge API client: the shared upstream client (time limit over the whole exchange, bounded
 * bodies, no redirected writes, one retry after a 429 or, for reads only, a 5xx) with Forge's
 * bearer token and `x-team-id` from one credential source, renewed once on a 401.
 */
export class ForgeClient {
  readonly #lazy: SettingsOnFirstUse<ResolvedSettings, ForgeCredentials>;
  #upstream: UpstreamClient<ForgeCredentials> | undefined;
  #memberNames: Promise<Map<string, string>> | undefined;
  readonly credentials: CredentialSource<ForgeCredentials>;

  constructor(settings: ForgeSettings = {}, logger: Logger = createLogger('forge')) {
    this.#lazy = settingsOnFirstUse(settings, resolveSettings, (resolved) =>
      defaultForgeCredentials(resolved, logger),
    );
    this.credentials = this.#lazy.credentials;
  }

  /** Settings with their environment fallbacks, read on first use. */
  get settings(): ResolvedSettings {
    return this.#lazy.settings;
  }

  /** The team requests are made for (loads the login if needed). */
  async teamId(signal?: AbortSignal): Promise<string> {
    return (await this.credentials.current(signal)).teamId;
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
    const upstream = this.#client();
    let teamId = '';
    const answer = await upstream.request<T>(
      method,
      (credentials) => {
        teamId = credentials.teamId;
        return path;
      },
      {
        ...(options.query ? { query: options.query } : {}),
        ...(options.body === undefined ? {} : { json: options.body }),
        ...(options.signal ? { signal: options.signal } : {}),
        statusError: (failure) =>
          forgeStatusErrors({ teamId, ...(options.ticketId ? { ticketId: options.ticketId } : {}) })(failure),
      },
    );
    return answer.data;
  }

  #client(): UpstreamClient<ForgeCredentials> {
    if (this.#upstream) return this.#upstream;
    const { retryDelayMs } = this.settings;
    this.#upstream = forgeUpstream<ForgeCredentials>(this.settings, {
      // JSON on every request, as the forge CLI sends it.
      headers: { 'content-type': 'application/json' },
      retry: { maxRetries: 1, baseDelayMs: retryDelayMs, maxDelayMs: MAX_RETRY_WAIT_MS },
      auth: {
        source: this.credentials,
        // A login without a team (Forge can issue one) uses the personal workspace: no header at all.
        headers: (credentials) => ({
          authorization: `Bearer ${credentials.accessToken}`,
          ...(credentials.teamId ? { 'x-team-id': credentials.teamId } : {}),
        }),
      },
    });
    return this.#upstream;
  }
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
