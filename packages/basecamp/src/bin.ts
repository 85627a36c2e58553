import { runBin } from '@x/mcp-core';
import { authCommands } from '@x/mcp-core/upstream';
import { VERSION } from './version.js';

await runBin({
  name: 'basecamp-mcp',
  version: VERSION,
  description: 'Basecamp tools for AI agents (MCP server)',
  // The logic lives in auth/, loaded only when one of these runs.
  commands: authCommands(
    'basecamp-mcp',
    {
      login:
        'sign in with your Basecamp OAuth app in the browser ([--account <id>]); saves a 0600 token file',
      logout: 'revoke the saved token at Launchpad and delete the saved login',
      whoami: 'show the account, token expiry and where the login is stored (exit 1 when signed out)',
    },
    async () => (await import('./auth/cli.js')).basecampAuthCommands(),
  ),
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
  createSandbox: async () => (await import('./testing/index.js')).createSandbox(),
});
