import { ConfigError, type Logger, needsSignIn, TokenExpiredError } from '@x/mcp-core';
import {
  type CredentialSource,
  loginFileCredentials,
  RefreshRejectedError,
  staticCredentials,
} from '@x/mcp-core/upstream';
import { forgeUpstream } from '../client/upstream.js';
import type { ResolvedSettings } from '../settings.js';
import { type ForgeConfig, forgeLoginFile, LOGIN_COMMAND } from './config-file.js';
import { forgeSignIn } from './sign-in.js';

/** What every Forge request is sent with. */
export interface ForgeCredentials {
  accessToken: string;
  /** Sent as `x-team-id`; empty for a login without a team (the personal workspace). */
  teamId: string;
}

/**
 * The credentials a provider uses when none are given in its settings: `FORGE_ACCESS_TOKEN` and
 * `FORGE_TEAM_ID` (never refreshed), else the `forge` CLI's login file, refreshed through
 * `POST /auth/refresh` after a 401 and saved back for the CLI too.
 */
export function defaultForgeCredentials(
  settings: ResolvedSettings,
  logger: Logger,
): CredentialSource<ForgeCredentials> {
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
    return staticCredentials(
      { accessToken: settings.accessToken, teamId: settings.teamId },
      () =>
        new TokenExpiredError(
          `Forge rejected the access token (401). Set a fresh FORGE_ACCESS_TOKEN, or unset FORGE_ACCESS_TOKEN and FORGE_TEAM_ID and run ${LOGIN_COMMAND}.`,
        ),
    );
  }
  const refresher = forgeUpstream(settings);
  return loginFileCredentials<ForgeConfig, ForgeCredentials>({
    loginFile: forgeLoginFile(settings.configPath),
    credentials: (config) => ({ accessToken: config.accessToken, teamId: config.teamId }),
    token: (credentials) => credentials.accessToken,
    canRefresh: (config) => config.refreshToken !== '',
    refresh: async (config) => {
      const answer = await refresher.request<Record<string, unknown> | undefined>('POST', '/auth/refresh', {
        json: { refreshToken: config.refreshToken },
        secrets: [config.refreshToken],
        accept: [400, 401, 403],
      });
      if (answer.status >= 400)
        throw new RefreshRejectedError(`Forge answered ${answer.status} to the refresh.`);
      const accessToken = answer.data?.accessToken;
      if (typeof accessToken !== 'string' || accessToken === '') {
        throw new TokenExpiredError('Forge answered the session refresh without an access token.');
      }
      const expiresAt =
        typeof answer.data?.expiresAt === 'string'
          ? answer.data.expiresAt
          : new Date(Date.now() + 3_600_000).toISOString();
      return { ...config, accessToken, expiresAt };
    },
    // The file is shared with the forge CLI: it is left as it is, and read again on the next call.
    // A client that can open a URL for its person signs in from the agent (see forgeSignIn).
    notLoggedIn: () =>
      needsSignIn(
        new ConfigError(
          `Not logged in to Forge. Run ${LOGIN_COMMAND} in a terminal, or set FORGE_ACCESS_TOKEN and FORGE_TEAM_ID.`,
        ),
        forgeSignIn(settings),
      ),
    expired: () =>
      needsSignIn(
        new TokenExpiredError(
          `Your Forge session has expired and could not be renewed. Run ${LOGIN_COMMAND} in a terminal, then call the tool again.`,
        ),
        forgeSignIn(settings),
      ),
    logger,
  });
}
