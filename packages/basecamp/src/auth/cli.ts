import { createInterface } from 'node:readline/promises';
import { type AuthCommand, type AuthIo, runAuthCommand as runShared } from '@x/mcp-core/upstream';
import { resolveSettings } from '../settings.js';
import { VERSION } from '../version.js';
import { login, logout } from './login.js';
import { readLogin } from './token-file.js';

/** What the Basecamp auth commands get beyond the shared terminal io. */
export interface BasecampAuthIo extends AuthIo {
  /** Asks the user (account choice). Default: a prompt on the terminal when stdin is one. */
  prompt?: (question: string) => Promise<string>;
}

/** `basecamp-mcp login`, `logout` and `whoami`, run by the shared auth command skeleton. */
export function basecampAuthCommands(
  prompt?: (question: string) => Promise<string>,
): Record<'login' | 'logout' | 'whoami', AuthCommand> {
  return {
    login: {
      help: `Usage: basecamp-mcp login [--account <id>]

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
      options: { account: { type: 'string' } },
      check: (values) =>
        typeof values.account === 'string' && !/^\d+$/.test(values.account.trim())
          ? `--account takes the account number (digits), got "${values.account.slice(0, 40)}".`
          : undefined,
      run: async (values, io) => {
        if (io.env.BASECAMP_ACCESS_TOKEN) {
          io.write(
            'Note: BASECAMP_ACCESS_TOKEN is set; basecamp-mcp uses it instead of the saved login until you unset it.\n',
          );
        }
        const ask = prompt ?? terminalPrompt();
        await login({
          env: io.env,
          write: io.write,
          ...(typeof values.account === 'string' ? { accountId: values.account.trim() } : {}),
          ...(ask ? { prompt: ask } : {}),
          ...(io.signal ? { signal: io.signal } : {}),
        });
        return 0;
      },
    },
    logout: {
      help: `Usage: basecamp-mcp logout

Revokes the saved access token at Launchpad and deletes the saved login.
`,
      run: async (_values, io) => {
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
      },
    },
    whoami: {
      help: `Usage: basecamp-mcp whoami

Shows the Basecamp account basecamp-mcp uses, who signed in, when the saved access token
expires, and where the login is stored. Reads only local files; exits 1 when nobody is signed in.

Environment:
  BASECAMP_TOKEN_FILE     where the login is saved
  BASECAMP_ACCESS_TOKEN   used instead of the saved login (with BASECAMP_ACCOUNT_ID)
`,
      run: async (_values, io) => {
        const settings = resolveSettings({ env: io.env }, VERSION);
        if (settings.accessToken) {
          io.write(
            `Using BASECAMP_ACCESS_TOKEN from the environment${settings.accountId ? ` for account ${settings.accountId}` : ' (BASECAMP_ACCOUNT_ID is missing: set it too)'}; the saved login at ${settings.tokenFile} is not used.\n`,
          );
          return settings.accountId ? 0 : 1;
        }
        const saved = await readLogin(settings.tokenFile);
        if (!saved) {
          io.write(
            `Not signed in to Basecamp (no login at ${settings.tokenFile}). Run \`basecamp-mcp login\`.\n`,
          );
          return 1;
        }
        const who =
          [saved.identity?.name, saved.identity?.email].filter(Boolean).join(', ') || 'an unnamed user';
        const account = `${saved.accountName ? `"${saved.accountName}" ` : ''}(${settings.accountId ?? saved.accountId})`;
        const expires = saved.expiresAt ? Date.parse(saved.expiresAt) : Number.NaN;
        const expiry = Number.isNaN(expires)
          ? 'Access token expiry unknown'
          : `Access token ${expires > Date.now() ? 'expires' : 'expired'} ${saved.expiresAt}`;
        io.write(
          `Signed in to Basecamp as ${who}, account ${account}.\n` +
            `${expiry}${saved.refreshToken ? '; it is renewed with the saved refresh token' : '; there is no refresh token, so run `basecamp-mcp login` when it ends'}.\n` +
            `Login stored in ${settings.tokenFile}.\n`,
        );
        return 0;
      },
    },
  };
}

/** Runs one of them as `basecamp-mcp <command> [args]` would; resolves with the exit code. */
export function runAuthCommand(
  command: 'login' | 'logout' | 'whoami',
  args: readonly string[],
  io: BasecampAuthIo,
): Promise<number> {
  return runShared('basecamp-mcp', command, basecampAuthCommands(io.prompt)[command], args, io);
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
