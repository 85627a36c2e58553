import { runBin } from '@x/mcp-core';
import { VERSION } from './version.js';

// runBin owns the flags; login and logout are subcommands it does not know, so they are
// handled before it runs.
const subcommand = process.argv[2];
if (subcommand === 'login' || subcommand === 'logout') {
  const { runAuthCommand } = await import('./auth/cli.js');
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  process.exitCode = await runAuthCommand(subcommand, process.argv.slice(3), {
    write: (text) => process.stderr.write(text),
    env: process.env,
    signal: controller.signal,
  });
} else {
  await runBin({
    name: 'basecamp-mcp',
    version: VERSION,
    description: `Basecamp tools for AI agents (MCP server).

Commands:
  basecamp-mcp [options]                 serve the Basecamp tools over MCP (options below)
  basecamp-mcp login [--account <id>]    sign in with your Basecamp OAuth app (browser); saves a 0600 token file
  basecamp-mcp logout                    revoke the token and delete the saved login`,
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
      { name: 'BASECAMP_CONTACT', description: 'contact URL or email sent in the User-Agent' },
    ],
    createProvider: async () => (await import('./index.js')).createBasecampProvider(),
    createSandbox: async () => {
      const [{ startFakeBasecamp }, { createBasecampProvider }] = await Promise.all([
        import('./testing/index.js'),
        import('./index.js'),
      ]);
      // The fake enforces Basecamp's usual budget, so the sandbox shows the limiter at work.
      const fake = await startFakeBasecamp({ rateLimit: { requests: 50, windowMs: 10_000 } });
      return {
        provider: createBasecampProvider({
          apiUrl: fake.url,
          launchpadUrl: fake.launchpadUrl,
          accessToken: fake.accessToken,
          accountId: fake.accountId,
        }),
        description: `fake Basecamp at ${fake.url}/${fake.accountId} (nothing leaves this machine)`,
        close: fake.close,
      };
    },
  });
}
