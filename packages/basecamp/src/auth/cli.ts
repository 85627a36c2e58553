import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { LoginError, login, logout } from './login.js';

export type AuthCommand = 'login' | 'logout';

export interface AuthIo {
  /** Messages for the user (stderr). */
  write(text: string): void;
  env: Record<string, string | undefined>;
  signal?: AbortSignal;
  /** Asks the user (account choice). Default: a prompt on the terminal when stdin is one. */
  prompt?: (question: string) => Promise<string>;
}

const HELP: Record<AuthCommand, string> = {
  login: `Usage: basecamp-mcp login [--account <id>]

Signs in to Basecamp with OAuth (Launchpad): prints an address to open in a browser, waits on
a local callback server for Basecamp's answer, then saves the tokens (mode 0600) to the OS config
directory (or $BASECAMP_TOKEN_FILE). When the login reaches several Basecamp accounts it asks which
one to use, or takes --account.

Needs an OAuth app registered at https://launchpad.37signals.com/integrations (see the README).

Environment:
  BASECAMP_CLIENT_ID      the app's client id (required)
  BASECAMP_CLIENT_SECRET  the app's client secret (required)
  BASECAMP_REDIRECT_URI   the app's registered redirect URI (default http://127.0.0.1:8765/callback)
  BASECAMP_TOKEN_FILE     where the login is saved
  BASECAMP_LAUNCHPAD_URL  Launchpad base (default https://launchpad.37signals.com)
`,
  logout: `Usage: basecamp-mcp logout

Revokes the saved access token at Launchpad and deletes the saved login.
`,
};

/** `basecamp-mcp login` and `basecamp-mcp logout`. Returns the exit code. */
export async function runAuthCommand(
  command: AuthCommand,
  args: readonly string[],
  io: AuthIo,
): Promise<number> {
  let values: { help?: boolean; account?: string };
  try {
    values = parseArgs({
      args: [...args],
      options: {
        help: { type: 'boolean', short: 'h' },
        ...(command === 'login' ? { account: { type: 'string' as const } } : {}),
      },
      strict: true,
    }).values as { help?: boolean; account?: string };
  } catch (error) {
    io.write(
      `basecamp-mcp ${command}: ${(error as Error).message}\nRun basecamp-mcp ${command} --help for usage.\n`,
    );
    return 2;
  }
  if (values.help) {
    io.write(HELP[command]);
    return 0;
  }
  if (values.account !== undefined && !/^\d+$/.test(values.account.trim())) {
    io.write(
      `basecamp-mcp login: --account takes the account number (digits), got "${values.account.slice(0, 40)}".\n`,
    );
    return 2;
  }
  try {
    if (command === 'logout') {
      const { removed, revoked, tokenFile } = await logout({
        env: io.env,
        ...(io.signal ? { signal: io.signal } : {}),
      });
      if (!removed) io.write(`Not logged in (no ${tokenFile}).\n`);
      else
        io.write(
          `Logged out of Basecamp: ${revoked ? 'revoked the access token and ' : 'could not confirm the token was revoked (revoke it at https://launchpad.37signals.com if needed); '}removed ${tokenFile}\n`,
        );
      return 0;
    }
    if (io.env.BASECAMP_ACCESS_TOKEN) {
      io.write(
        'Note: BASECAMP_ACCESS_TOKEN is set; basecamp-mcp uses it instead of the saved login until you unset it.\n',
      );
    }
    const prompt = io.prompt ?? terminalPrompt();
    await login({
      env: io.env,
      write: io.write,
      ...(values.account === undefined ? {} : { accountId: values.account.trim() }),
      ...(prompt ? { prompt } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
    });
    return 0;
  } catch (error) {
    if (error instanceof LoginError || isConfigError(error)) {
      io.write(`basecamp-mcp ${command}: ${(error as Error).message}\n`);
      return 1;
    }
    io.write(`basecamp-mcp ${command} failed: ${(error as Error)?.message ?? String(error)}\n`);
    return 1;
  }
}

function isConfigError(error: unknown): boolean {
  return (error as Error | undefined)?.name === 'ConfigError';
}

/** A question on the terminal, when there is one to ask on. */
function terminalPrompt(): ((question: string) => Promise<string>) | undefined {
  if (!process.stdin.isTTY) return undefined;
  return async (question) => {
    const readline = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await readline.question(question);
    } finally {
      readline.close();
    }
  };
}
