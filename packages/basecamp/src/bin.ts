import { runBin } from '@x/mcp-core';
import { authCommands } from '@x/mcp-core/upstream';
import { ENVIRONMENT } from './environment.js';
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
  environment: ENVIRONMENT,
  createProvider: async () => (await import('./index.js')).createBasecampProvider(),
  createSandbox: async () => (await import('./testing/index.js')).createSandbox(),
});
