import { parseArgs } from 'node:util';
import { LoginError, login, logout } from './login.js';

export const AUTH_COMMANDS = ['login', 'logout'] as const;
export type AuthCommand = (typeof AUTH_COMMANDS)[number];

export function isAuthCommand(value: string | undefined): value is AuthCommand {
  return (AUTH_COMMANDS as readonly string[]).includes(value ?? '');
}

export interface AuthIo {
  /** Messages for the user (stderr). */
  write(text: string): void;
  env: Record<string, string | undefined>;
  signal?: AbortSignal;
}

const HELP: Record<AuthCommand, string> = {
  login: `Usage: forge-mcp login

Signs in to Forge with the device flow, like \`forge login\`: prints an address and a code,
waits until you approve in the browser, then saves the login to ~/.forge/config.json
(or $FORGE_CONFIG_PATH) with mode 0600. The forge CLI and forge-mcp share that file.

Environment:
  FORGE_API_URL      Forge API base including /api (default https://www.forge-ai.dev/api)
  FORGE_CONFIG_PATH  where the login is saved (default ~/.forge/config.json)
`,
  logout: `Usage: forge-mcp logout

Signs out: deletes the saved login (~/.forge/config.json, or $FORGE_CONFIG_PATH).
`,
};

/** `forge-mcp login` and `forge-mcp logout`. Returns the exit code. */
export async function runAuthCommand(
  command: AuthCommand,
  args: readonly string[],
  io: AuthIo,
): Promise<number> {
  let help = false;
  try {
    help =
      parseArgs({ args: [...args], options: { help: { type: 'boolean', short: 'h' } }, strict: true }).values
        .help === true;
  } catch (error) {
    io.write(
      `forge-mcp ${command}: ${(error as Error).message}\nRun forge-mcp ${command} --help for usage.\n`,
    );
    return 2;
  }
  if (help) {
    io.write(HELP[command]);
    return 0;
  }
  try {
    if (command === 'logout') {
      const { removed, configPath } = await logout({ env: io.env });
      io.write(
        removed ? `Logged out of Forge: removed ${configPath}\n` : `Not logged in (no ${configPath}).\n`,
      );
      return 0;
    }
    if (io.env.FORGE_ACCESS_TOKEN) {
      io.write(
        'Note: FORGE_ACCESS_TOKEN is set; forge-mcp uses it instead of the saved login until you unset it.\n',
      );
    }
    await login({ env: io.env, write: io.write, ...(io.signal ? { signal: io.signal } : {}) });
    return 0;
  } catch (error) {
    if (error instanceof LoginError || (error as Error | undefined)?.name === 'ConfigError') {
      io.write(`forge-mcp ${command}: ${(error as Error).message}\n`);
      return 1;
    }
    io.write(`forge-mcp ${command} failed: ${(error as Error)?.message ?? String(error)}\n`);
    return 1;
  }
}
