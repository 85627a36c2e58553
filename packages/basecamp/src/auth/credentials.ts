import { ConfigError, type Logger, needsSignIn, TokenExpiredError, UpstreamError } from '@x/mcp-core';
import {
  type CredentialSource,
  type ExpiredReason,
  loginFileCredentials,
  RefreshRejectedError,
  staticCredentials,
} from '@x/mcp-core/upstream';
import type { ResolvedSettings } from '../settings.js';
import { LaunchpadError, refreshToken } from './launchpad.js';
import { basecampSignIn } from './sign-in.js';
import { basecampLoginFile, LOGIN_COMMAND, type StoredLogin } from './token-file.js';

/** What every Basecamp request is sent with. */
export interface BasecampCredentials {
  accessToken: string;
  /** The account requests go to (the number in `3.basecamp.com/<id>/`). */
  accountId: string;
}

const hint = { details: { hint: `Run ${LOGIN_COMMAND} in a terminal.` } };

const EXPIRED: Record<ExpiredReason, string> = {
  'no-refresh': `Your Basecamp session has expired and cannot be renewed (no refresh token). Run ${LOGIN_COMMAND} in a terminal, then call the tool again.`,
  'refresh-rejected': `Your Basecamp login is no longer valid (Launchpad refused the refresh token). Run ${LOGIN_COMMAND} in a terminal, then call the tool again.`,
  'refused-after-renewal': `Basecamp rejected the renewed access token (401). Run ${LOGIN_COMMAND} in a terminal, then call the tool again.`,
};

/**
 * The credentials a provider uses when none are given in its settings: `BASECAMP_ACCESS_TOKEN`
 * with `BASECAMP_ACCOUNT_ID` (never refreshed), else the login file, refreshed at Launchpad
 * shortly before expiry and after a 401. A refresh token Launchpad calls dead is dropped from
 * the file at once: Launchpad bans a client after repeated failed refreshes.
 */
export function defaultBasecampCredentials(
  settings: ResolvedSettings,
  logger: Logger,
): CredentialSource<BasecampCredentials> {
  if (settings.accessToken) {
    if (!settings.accountId) {
      throw new ConfigError(
        `BASECAMP_ACCESS_TOKEN is set but BASECAMP_ACCOUNT_ID is not. Set the account number too (from https://3.basecamp.com/<id>/), or unset the token and run ${LOGIN_COMMAND}.`,
      );
    }
    return staticCredentials(
      { accessToken: settings.accessToken, accountId: settings.accountId },
      () =>
        new TokenExpiredError(
          `Basecamp rejected BASECAMP_ACCESS_TOKEN (401): it expired or was revoked. Set a fresh token, or unset BASECAMP_ACCESS_TOKEN and run ${LOGIN_COMMAND}.`,
          hint,
        ),
    );
  }
  return loginFileCredentials<StoredLogin, BasecampCredentials>({
    loginFile: basecampLoginFile(settings.tokenFile),
    credentials: (login) => ({
      accessToken: login.accessToken,
      accountId: settings.accountId ?? login.accountId,
    }),
    token: (credentials) => credentials.accessToken,
    canRefresh: (login) => login.refreshToken !== undefined,
    expiresAt: (login) => (login.expiresAt === undefined ? undefined : Date.parse(login.expiresAt)),
    refreshMarginMs: settings.refreshMarginMs,
    refresh: (login) => refreshLogin(settings, login),
    forget: ({ refreshToken: _dead, ...rest }) => rest,
    // A client that can open a URL for its person signs in from the agent (see basecampSignIn).
    notLoggedIn: () =>
      needsSignIn(
        new ConfigError(
          `Not logged in to Basecamp. Run ${LOGIN_COMMAND} in a terminal, or set BASECAMP_ACCESS_TOKEN and BASECAMP_ACCOUNT_ID.`,
        ),
        basecampSignIn(settings),
      ),
    expired: (reason) => needsSignIn(new TokenExpiredError(EXPIRED[reason], hint), basecampSignIn(settings)),
    logger,
  });
}

async function refreshLogin(settings: ResolvedSettings, login: StoredLogin) {
  const clientId = settings.clientId ?? login.clientId;
  const clientSecret = settings.clientSecret ?? login.clientSecret;
  if (!clientId || !clientSecret || !login.refreshToken) {
    throw new TokenExpiredError(
      `Your Basecamp session has expired and cannot be renewed without the OAuth app's BASECAMP_CLIENT_ID and BASECAMP_CLIENT_SECRET. Set them, or run ${LOGIN_COMMAND} again.`,
      hint,
    );
  }
  try {
    const tokens = await refreshToken(
      {
        launchpadUrl: settings.launchpadUrl,
        userAgent: settings.userAgent,
        fetch: settings.fetch,
        timeoutMs: settings.timeoutMs,
      },
      { clientId, clientSecret, refreshToken: login.refreshToken },
    );
    return {
      ...login,
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token ?? login.refreshToken,
      expiresAt: new Date(Date.now() + (tokens.expires_in ?? 1_209_600) * 1000).toISOString(),
    };
  } catch (error) {
    if (!(error instanceof LaunchpadError)) throw error;
    if (error.failure === 'invalid_grant') throw new RefreshRejectedError(error.message);
    if (error.failure === 'invalid_client') {
      throw new TokenExpiredError(
        `Your Basecamp session expired and Launchpad refused the OAuth app while renewing it. Check BASECAMP_CLIENT_ID and BASECAMP_CLIENT_SECRET, or run ${LOGIN_COMMAND} again.`,
        hint,
      );
    }
    throw new UpstreamError(`${error.message} The Basecamp session needs renewing; try again in a moment.`, {
      retryable: true,
    });
  }
}
