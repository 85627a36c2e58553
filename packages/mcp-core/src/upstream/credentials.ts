import { type McpToolError, TokenExpiredError } from '../errors.js';
import type { Logger } from '../logger.js';
import { untilAborted } from './helpers.js';
import type { LoginFile } from './login-file.js';

/**
 * The one seam through which a provider's tools get upstream credentials. A local bin reads
 * them from settings, the environment or a login file; a hosted server hands each user's own
 * credentials to the provider through its `credentials` setting, without touching tool code.
 */
export interface CredentialSource<C> {
  /** The credentials to send now. Throws a tool error (`TOOL_NOT_ENABLED`, `TOKEN_EXPIRED`) when there are none. */
  current(signal?: AbortSignal): Promise<C>;
  /**
   * New credentials after the upstream refused `rejected` (a 401): a newer login saved meanwhile,
   * or a refreshed token. Throws `TOKEN_EXPIRED`, saying how to sign in again, when it cannot.
   */
  renew(rejected: C, signal?: AbortSignal): Promise<C>;
  /** The error when even renewed credentials are refused. Default: a `TOKEN_EXPIRED` naming the service. */
  refused?(credentials: C): McpToolError;
}

/** What a provider's runtime reads on first use: its settings, and where its credentials come from. */
export interface SettingsOnFirstUse<Resolved, C> {
  /** The settings resolved from what the provider was given and the environment; a throw is not kept. */
  readonly settings: Resolved;
  /** The given `credentials`, else the default source built from the settings when first asked. */
  readonly credentials: CredentialSource<C>;
}

/**
 * The lazy part every provider runtime with credentials has: settings resolved when first read
 * (a configuration error goes to the calling tool, and the next call tries again) and the
 * credentials a hosted server gave (`settings.credentials`), else `defaults` of the settings.
 */
export function settingsOnFirstUse<Given, Resolved, C>(
  given: Given & { credentials?: CredentialSource<C> },
  resolve: (given: Given) => Resolved,
  defaults: (settings: Resolved) => CredentialSource<C>,
): SettingsOnFirstUse<Resolved, C> {
  let resolved: Resolved | undefined;
  const runtime: SettingsOnFirstUse<Resolved, C> = {
    get settings() {
      resolved ??= resolve(given);
      return resolved;
    },
    credentials: given.credentials ?? lazyCredentials(() => defaults(runtime.settings)),
  };
  return runtime;
}

/**
 * A source resolved on first use, so building a provider reads no settings or files. A
 * configuration error is thrown to the call and resolution is tried again on the next one.
 */
export function lazyCredentials<C>(resolve: () => CredentialSource<C>): CredentialSource<C> {
  let source: CredentialSource<C> | undefined;
  const get = () => {
    source ??= resolve();
    return source;
  };
  return {
    current: (signal) => get().current(signal),
    renew: (rejected, signal) => get().renew(rejected, signal),
    refused: (credentials) =>
      get().refused?.(credentials) ??
      new TokenExpiredError(
        'The renewed credentials were refused too (401). Sign in again, then call the tool again.',
      ),
  };
}

/**
 * Credentials given as settings or environment variables: never refreshed, so a 401 is final
 * and `expired` says which setting to replace.
 */
export function staticCredentials<C>(
  credentials: C,
  expired: (credentials: C) => McpToolError,
): CredentialSource<C> {
  return {
    current: async () => credentials,
    renew: async (rejected) => {
      throw expired(rejected);
    },
    refused: expired,
  };
}

/** A refresh the upstream refused for good (OAuth `invalid_grant`): the refresh token is dead. */
export class RefreshRejectedError extends Error {
  constructor(message = 'The refresh token was refused.') {
    super(message);
    this.name = 'RefreshRejectedError';
  }
}

export type ExpiredReason =
  /** The access token was refused and there is no way to renew it (no refresh token, no refresher). */
  | 'no-refresh'
  /** The upstream called the refresh token dead. */
  | 'refresh-rejected'
  /** Freshly renewed credentials were refused too. */
  | 'refused-after-renewal';

export interface LoginFileCredentialsOptions<L, C> {
  loginFile: LoginFile<L>;
  /** The credentials a saved login stands for. */
  credentials(login: L): C;
  /** The secret compared to tell a renewed login from the rejected one. */
  token(credentials: C): string;
  /**
   * Exchanges the login's refresh token for a new login (saved by the source). Throws
   * `RefreshRejectedError` when the refresh token is dead, or a tool error for anything else.
   * It gets no caller's signal: one refresh serves every waiting call, so one call giving up
   * must not cancel it for the others (each waiting call still stops at its own signal).
   */
  refresh?: (login: L) => Promise<L>;
  /** Whether `refresh` can be tried for this login (it has a refresh token). Default: when `refresh` is given. */
  canRefresh?: (login: L) => boolean;
  /** When the login's access token expires (epoch ms), to refresh ahead of it. */
  expiresAt?: (login: L) => number | undefined;
  /** Refresh this long before expiry. Default 10 minutes. */
  refreshMarginMs?: number;
  /**
   * What to save after the upstream called the refresh token dead, so it is never sent again
   * (e.g. the login without its refresh token); `undefined` leaves the file as it is.
   */
  forget?: (login: L) => L | undefined;
  /** `TOOL_NOT_ENABLED` saying how to sign in, when there is no login. */
  notLoggedIn(): McpToolError;
  /** `TOKEN_EXPIRED` saying how to sign in again. */
  expired(reason: ExpiredReason, login: L | undefined): McpToolError;
  logger?: Logger;
}

interface Held<L, C> {
  login: L;
  credentials: C;
}

/**
 * Credentials from a login file: read on first use (a warning when others can read it),
 * refreshed shortly before expiry and after a 401, one refresh at a time for all concurrent
 * calls, the file re-read first (another process may have logged in or refreshed), the result
 * saved atomically with mode 0600, and forgotten at once when the upstream calls the refresh
 * token dead.
 */
export function loginFileCredentials<L, C>(options: LoginFileCredentialsOptions<L, C>): CredentialSource<C> {
  const { loginFile, logger } = options;
  const canRefresh = (login: L) =>
    options.refresh !== undefined && (options.canRefresh ? options.canRefresh(login) : true);
  const margin = options.refreshMarginMs ?? 10 * 60_000;
  let held: Held<L, C> | undefined;
  let refreshing: Promise<Held<L, C>> | undefined;
  let warnedAboutMode = false;

  const hold = (login: L): Held<L, C> => {
    held = { login, credentials: options.credentials(login) };
    return held;
  };

  const load = async (): Promise<Held<L, C>> => {
    const login = await loginFile.read();
    if (login === undefined) throw options.notLoggedIn();
    if (!warnedAboutMode) {
      warnedAboutMode = true;
      const warning = await loginFile.modeWarning();
      if (warning) logger?.warn(warning);
    }
    return hold(login);
  };

  const save = async (login: L, failure: string) => {
    try {
      await loginFile.write(login);
    } catch (error) {
      // The new token still works for this process; the next start refreshes again.
      logger?.warn(failure, { code: (error as NodeJS.ErrnoException).code });
    }
  };

  const refresh = async (rejected: Held<L, C>): Promise<Held<L, C>> => {
    if (!options.refresh || !canRefresh(rejected.login)) {
      held = undefined;
      throw options.expired('no-refresh', rejected.login);
    }
    let updated: L;
    try {
      updated = await options.refresh(rejected.login);
    } catch (error) {
      if (error instanceof RefreshRejectedError) {
        held = undefined;
        const kept = options.forget?.(rejected.login);
        if (kept !== undefined)
          await save(kept, `could not remove the dead refresh token from ${loginFile.label}`);
        throw options.expired('refresh-rejected', rejected.login);
      }
      throw error;
    }
    await save(updated, `could not save the refreshed token to ${loginFile.label}`);
    logger?.info(`refreshed the access token in ${loginFile.label}`);
    return hold(updated);
  };

  const refreshOnce = (rejected: Held<L, C>, signal?: AbortSignal): Promise<Held<L, C>> => {
    refreshing ??= refresh(rejected).finally(() => {
      refreshing = undefined;
    });
    return untilAborted(refreshing, signal);
  };

  const expiresSoon = (login: L) => {
    const at = options.expiresAt?.(login);
    return at !== undefined && Number.isFinite(at) && at - Date.now() < margin && canRefresh(login);
  };

  return {
    async current(signal) {
      const current = held ?? (await load());
      if (!expiresSoon(current.login)) return current.credentials;
      try {
        return (await refreshOnce(current, signal)).credentials;
      } catch (error) {
        const at = options.expiresAt?.(current.login);
        // The old token may still have minutes left: use it, and let a 401 decide.
        if (at !== undefined && at > Date.now()) {
          logger?.warn('could not refresh the access token ahead of expiry; using the current one', {
            reason: (error as Error).message,
          });
          return current.credentials;
        }
        throw error;
      }
    },

    async renew(rejected, signal) {
      const token = options.token(rejected);
      if (held && options.token(held.credentials) !== token) return held.credentials;
      // Another process (or a new login) may have saved a newer token meanwhile.
      const onDisk = await loginFile.read().catch(() => undefined);
      if (onDisk !== undefined && options.token(options.credentials(onDisk)) !== token) {
        return hold(onDisk).credentials;
      }
      const base = held ?? (onDisk === undefined ? undefined : { login: onDisk, credentials: rejected });
      if (base === undefined) {
        held = undefined;
        throw options.notLoggedIn();
      }
      return (await refreshOnce(base, signal)).credentials;
    },

    refused() {
      const login = held?.login;
      held = undefined;
      return options.expired('refused-after-renewal', login);
    },
  };
}
