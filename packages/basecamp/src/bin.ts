import { runBin } from '@x/mcp-core';
import { VERSION } from './version.js';

/** `basecamp-mcp login` / `logout`: the logic lives in auth/, loaded only when asked for. */
async function authCommand(command: 'login' | 'logout', argv: readonly string[]): Promise<number> {
  const { runAuthCommand } = await import('./auth/cli.js');
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  return runAuthCommand(command, argv, {
    write: (text) => process.stderr.write(text),
    env: process.env,
    signal: controller.signal,
  });
}

// Kept in step with TOOLSETS by a test; listed here so --help does not load the tools.
const TOOLSET_LIST =
  'projects, todos, messages, docs, schedule, cards, checkins, chat, clients, activity, admin';

/** `--toolsets` wins over `BASECAMP_TOOLSETS`, which the provider reads itself. */
function toolsets(flag: string | boolean | undefined): { toolsets: string } | undefined {
  return typeof flag === 'string' ? { toolsets: flag } : undefined;
}

await runBin({
  name: 'basecamp-mcp',
  version: VERSION,
  description: 'Basecamp tools for AI agents (MCP server)',
  commands: {
    login: {
      summary:
        'sign in with your Basecamp OAuth app in the browser ([--account <id>]); saves a 0600 token file',
      run: (argv) => authCommand('login', argv),
    },
    logout: {
      summary: 'revoke the saved token at Launchpad and delete the saved login',
      run: (argv) => authCommand('logout', argv),
    },
  },
  environment: [
    { name: 'BASECAMP_CLIENT_ID', description: 'OAuth app client id (login, refresh)' },
    { name: 'BASECAMP_CLIENT_SECRET', description: 'OAuth app client secret (login, refresh)' },
    {
      name: 'BASECAMP_REDIRECT_URI',
      description: 'registered redirect URI (default http://127.0.0.1:8765/callback)',
    },
    {
      name: 'BASECAMP_ACCESS_TOKEN',
      description: 'use this token instead of the saved login (with BASECAMP_ACCOUNT_ID)',
    },
    { name: 'BASECAMP_ACCOUNT_ID', description: 'the account number (https://3.basecamp.com/<id>/)' },
    {
      name: 'BASECAMP_TOKEN_FILE',
      description: 'login file (default basecamp-mcp/token.json in the OS config dir)',
    },
    { name: 'BASECAMP_API_URL', description: 'API base (default https://3.basecampapi.com)' },
    { name: 'BASECAMP_LAUNCHPAD_URL', description: 'OAuth base (default https://launchpad.37signals.com)' },
    { name: 'BASECAMP_RATE_LIMIT_REQUESTS', description: 'client-side limit per account (default 50)' },
    { name: 'BASECAMP_RATE_LIMIT_WINDOW_MS', description: 'its window in ms (default 10000)' },
    {
      name: 'BASECAMP_TOOLSETS',
      description: 'toolsets to serve, comma-separated (default: default; all: every tool)',
    },
    { name: 'BASECAMP_CONTACT', description: 'contact URL or email sent in the User-Agent' },
  ],
  flags: {
    toolsets: {
      type: 'string',
      value: '<a,b>',
      description: `tools to serve: default, all, or ${TOOLSET_LIST} (env BASECAMP_TOOLSETS)`,
    },
  },
  createProvider: async ({ flags }) =>
    (await import('./index.js')).createBasecampProvider(toolsets(flags.toolsets) ?? {}),
  createSandbox: async ({ flags }) =>
    (await import('./testing/index.js')).createSandbox({
      toolsets: toolsets(flags.toolsets)?.toolsets ?? process.env.BASECAMP_TOOLSETS,
    }),
});
