import { type AuthCommand, type AuthIo, runAuthCommand as runShared } from '@x/mcp-core/upstream';
import { resolveSettings } from '../settings.js';
import { readConfig } from './config-file.js';
import { login, logout } from './login.js';

const ENVIRONMENT = `Environment:
  FORGE_API_URL      Forge API base including /api (default https://www.forge-ai.dev/api)
  FORGE_CONFIG_PATH  where the login is saved (default ~/.forge/config.json)
`;

/** `forge-mcp login`, `logout` and `whoami`, run by the shared auth command skeleton. */
export const AUTH_COMMANDS: Readonly<Record<'login' | 'logout' | 'whoami', AuthCommand>> = {
  login: {
    help: `Usage: forge-mcp login

Signs in to Forge with the device flow, like \`forge login\`: prints an address and a code,
waits until you approve in the browser, then saves the login to ~/.forge/config.json
(or $FORGE_CONFIG_PATH) with mode 0600. The forge CLI and forge-mcp share that file.

${ENVIRONMENT}`,
    run: async (_values, io) => {
      if (io.env.FORGE_ACCESS_TOKEN) {
        io.write(
          'Note: FORGE_ACCESS_TOKEN is set; forge-mcp uses it instead of the saved login until you unset it.\n',
        );
      }
      await login({ env: io.env, write: io.write, ...(io.signal ? { signal: io.signal } : {}) });
      return 0;
    },
  },
  logout: {
    help: `Usage: forge-mcp logout

Signs out: deletes the saved login (~/.forge/config.json, or $FORGE_CONFIG_PATH).
`,
    run: async (_values, io) => {
      const { removed, configPath } = await logout({ env: io.env });
      io.write(
        removed ? `Logged out of Forge: removed ${configPath}\n` : `Not logged in (no ${configPath}).\n`,
      );
      return 0;
    },
  },
  whoami: {
    help: `Usage: forge-mcp whoami

Shows the Forge account and team forge-mcp uses, when the saved access token expires, and
where the login is stored. Reads only local files; exits 1 when nobody is signed in.

${ENVIRONMENT}  FORGE_ACCESS_TOKEN used instead of the saved login (with FORGE_TEAM_ID)
`,
    run: async (_values, io) => {
      const settings = resolveSettings({ env: io.env });
      if (settings.accessToken) {
        io.write(
          `Using FORGE_ACCESS_TOKEN from the environment${settings.teamId ? ` for team ${settings.teamId}` : ' (FORGE_TEAM_ID is missing: set it too)'}; the saved login at ${settings.configPath} is not used.\n`,
        );
        return settings.teamId ? 0 : 1;
      }
      const config = await readConfig(settings.configPath, (warning) => io.write(`Warning: ${warning}\n`));
      if (!config) {
        io.write(`Not signed in to Forge (no login at ${settings.configPath}). Run \`forge-mcp login\`.\n`);
        return 1;
      }
      const who = [config.user.email, config.user.displayName].filter(Boolean).join(', ') || config.userId;
      io.write(
        `Signed in to Forge as ${who}, team ${config.teamId || '(personal workspace)'}.\n` +
          `Access token expires ${config.expiresAt}${config.refreshToken ? '; it is renewed with the saved refresh token' : ''}.\n` +
          `Login stored in ${settings.configPath} (shared with the forge CLI).\n`,
      );
      return 0;
    },
  },
};

/** Runs one of them as `forge-mcp <command> [args]` would; resolves with the exit code. */
export function runAuthCommand(
  command: keyof typeof AUTH_COMMANDS,
  args: readonly string[],
  io: AuthIo,
): Promise<number> {
  return runShared('forge-mcp', command, AUTH_COMMANDS[command], args, io);
}
