import {
  ConfigError,
  type Logger,
  TokenExpiredError,
  UpstreamError,
  UpstreamUnavailableError,
} from '@x/mcp-core';
import type { ResolvedSettings } from '../settings.js';
import { LaunchpadError, refreshToken } from './launchpad.js';
import { LOGIN_COMMAND, loginFileMode, readLogin, type StoredLogin, writeLogin } from './token-file.js';

/** Who requests are sent as, and where that came from. */
export interface Credentials {
  accessToken: string;
  accountId: string;
  source: 'settings' | 'file';
  /** The saved login, when the token came from the login file. */
  login?: StoredLogin;
}

/**
 * Holds the current credentials: from settings / the environment (never refreshed), or from
 * the login file (refreshed shortly before expiry and after a 401, one refresh at a time for all
 * concurrent calls, saved atomically). A refresh token Launchpad calls dead is dropped from the
 * file at once, so it is never sent again.
 */
export class Session {
  #credentials: Credentials | undefined;
  #refreshing: Promise<Credentials> | undefined;
  #warnedAboutMode = false;

  constructor(
    private readonly settings: () => ResolvedSettings,
    private readonly logger: Logger,
  ) {}

  /** The credentials to send now; refreshes first when a saved token is about to expire. */
  async current(): Promise<Credentials> {
    const credentials = this.#credentials ?? (await this.#load());
    this.#credentials = credentials;
    if (credentials.source === 'file' && this.#expiresSoon(credentials.login)) {
      try {
        return await this.#refreshOnce(credentials);
      } catch (error) {
        // The old token may still have minutes left: use it, and let a 401 decide.
        if (!this.#expired(credentials.login)) {
          this.logger.warn('could not refresh the Basecamp token ahead of expiry; using the current one', {
            reason: (error as Error).message,
          });
          return credentials;
        }
        throw error;
      }
    }
    return credentials;
  }

  /** After a 401: new credentials, or `TOKEN_EXPIRED` saying how to log in again. */
  async renew(rejected: Credentials): Promise<Credentials> {
    const current = this.#credentials;
    if (current && current.accessToken !== rejected.accessToken) return current;
    if (rejected.source === 'settings') {
      this.#credentials = undefined;
      throw new TokenExpiredError(
        `Basecamp rejected BASECAMP_ACCESS_TOKEN (401): it expired or was revoked. Set a fresh token, or unset BASECAMP_ACCESS_TOKEN and run ${LOGIN_COMMAND}.`,
        { details: { hint: `Run ${LOGIN_COMMAND} in a terminal.` } },
      );
    }
    // Another process (or a new login) may have saved a newer token meanwhile.
    const onDisk = await readLogin(this.settings().tokenFile).catch(() => undefined);
    if (onDisk && onDisk.accessToken !== rejected.accessToken) {
      this.#credentials = this.#fromLogin(onDisk);
      return this.#credentials;
    }
    return this.#refreshOnce(rejected);
  }

  /** The error for a token Basecamp refuses even right after it was renewed. */
  rejected(credentials: Credentials): TokenExpiredError {
    this.#credentials = undefined;
    return new TokenExpiredError(
      credentials.source === 'settings'
        ? `Basecamp rejected BASECAMP_ACCESS_TOKEN (401). Set a fresh token, or unset it and run ${LOGIN_COMMAND}.`
        : `Basecamp rejected the renewed access token (401). Run ${LOGIN_COMMAND} in a terminal, then call the tool again.`,
      { details: { hint: `Run ${LOGIN_COMMAND} in a terminal.` } },
    );
  }

  /** Forgets the loaded credentials, e.g. after a logout in the same process. */
  reset(): void {
    this.#credentials = undefined;
  }

  #refreshOnce(rejected: Credentials): Promise<Credentials> {
    if (!this.#refreshing) {
      this.#refreshing = this.#refresh(rejected).finally(() => {
        this.#refreshing = undefined;
      });
    }
    return this.#refreshing;
  }

  async #load(): Promise<Credentials> {
    const settings = this.settings();
    if (settings.accessToken) {
      if (!settings.accountId) {
        throw new ConfigError(
          `BASECAMP_ACCESS_TOKEN is set but BASECAMP_ACCOUNT_ID is not. Set the account number too (from https://3.basecamp.com/<id>/), or unset the token and run ${LOGIN_COMMAND}.`,
        );
      }
      return { accessToken: settings.accessToken, accountId: settings.accountId, source: 'settings' };
    }
    const login = await readLogin(settings.tokenFile);
    if (!login) {
      throw new ConfigError(
        `Not logged in to Basecamp. Run ${LOGIN_COMMAND} in a terminal, or set BASECAMP_ACCESS_TOKEN and BASECAMP_ACCOUNT_ID.`,
      );
    }
    if (!this.#warnedAboutMode) {
      const mode = await loginFileMode(settings.tokenFile);
      if (mode !== undefined && mode !== 0o600) {
        this.#warnedAboutMode = true;
        this.logger.warn(
          `The Basecamp login file is readable by others (mode ${mode.toString(8)}). Run: chmod 600 ${settings.tokenFile}`,
        );
      }
    }
    return this.#fromLogin(login);
  }

  #fromLogin(login: StoredLogin): Credentials {
    return {
      accessToken: login.accessToken,
      accountId: this.settings().accountId ?? login.accountId,
      source: 'file',
      login,
    };
  }

  #expiresSoon(login: StoredLogin | undefined): boolean {
    if (!login?.expiresAt || !login.refreshToken) return false;
    const expiresAt = Date.parse(login.expiresAt);
    return Number.isFinite(expiresAt) && expiresAt - Date.now() < this.settings().refreshMarginMs;
  }

  #expired(login: StoredLogin | undefined): boolean {
    if (!login?.expiresAt) return false;
    const expiresAt = Date.parse(login.expiresAt);
    return Number.isFinite(expiresAt) && expiresAt <= Date.now();
  }

  async #refresh(rejected: Credentials): Promise<Credentials> {
    const settings = this.settings();
    const login = rejected.login;
    if (!login?.refreshToken) {
      this.#credentials = undefined;
      throw new TokenExpiredError(
        `Your Basecamp session has expired and cannot be renewed (no refresh token). Run ${LOGIN_COMMAND} in a terminal, then call the tool again.`,
        { details: { hint: `Run ${LOGIN_COMMAND} in a terminal.` } },
      );
    }
    const clientId = settings.clientId ?? login.clientId;
    const clientSecret = settings.clientSecret ?? login.clientSecret;
    if (!clientId || !clientSecret) {
      throw new TokenExpiredError(
        `Your Basecamp session has expired and cannot be renewed without the OAuth app's BASECAMP_CLIENT_ID and BASECAMP_CLIENT_SECRET. Set them, or run ${LOGIN_COMMAND} again.`,
        { details: { hint: `Run ${LOGIN_COMMAND} in a terminal.` } },
      );
    }
    let tokens: Awaited<ReturnType<typeof refreshToken>>;
    try {
      tokens = await refreshToken(
        {
          launchpadUrl: settings.launchpadUrl,
          userAgent: settings.userAgent,
          fetch: settings.fetch,
          timeoutMs: settings.timeoutMs,
        },
        { clientId, clientSecret, refreshToken: login.refreshToken },
      );
    } catch (error) {
      if (error instanceof LaunchpadError) throw await this.#refreshFailed(error, login);
      throw error;
    }
    const updated: StoredLogin = {
      ...login,
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token ?? login.refreshToken,
      expiresAt: new Date(Date.now() + (tokens.expires_in ?? 1_209_600) * 1000).toISOString(),
    };
    await this.#save(updated, 'could not save the refreshed Basecamp token');
    this.logger.info('refreshed the Basecamp access token');
    this.#credentials = this.#fromLogin(updated);
    return this.#credentials;
  }

  async #refreshFailed(error: LaunchpadError, login: StoredLogin) {
    if (error.failure === 'invalid_grant') {
      // Launchpad bans a client after repeated failed refreshes: never send this token again.
      const { refreshToken: _dead, ...rest } = login;
      await this.#save(rest as StoredLogin, 'could not remove the dead refresh token from the login file');
      this.#credentials = undefined;
      return new TokenExpiredError(
        `Your Basecamp login is no longer valid (Launchpad refused the refresh token). Run ${LOGIN_COMMAND} in a terminal, then call the tool again.`,
        { details: { hint: `Run ${LOGIN_COMMAND} in a terminal.` } },
      );
    }
    if (error.failure === 'invalid_client') {
      return new TokenExpiredError(
        `Your Basecamp session expired and Launchpad refused the OAuth app while renewing it. Check BASECAMP_CLIENT_ID and BASECAMP_CLIENT_SECRET, or run ${LOGIN_COMMAND} again.`,
        { details: { hint: `Run ${LOGIN_COMMAND} in a terminal.` } },
      );
    }
    if (error.failure === 'unavailable') {
      return new UpstreamUnavailableError(
        `${error.message} The Basecamp session needs renewing; try again in a moment.`,
      );
    }
    return new UpstreamError(`${error.message} Try again in a moment.`, {
      retryable: true,
      details: error.status === undefined ? {} : { status: error.status },
    });
  }

  async #save(login: StoredLogin, failureMessage: string): Promise<void> {
    try {
      await writeLogin(this.settings().tokenFile, login);
    } catch (error) {
      this.logger.warn(failureMessage, { code: (error as NodeJS.ErrnoException).code });
    }
  }
}
