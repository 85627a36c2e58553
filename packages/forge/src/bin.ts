import { runBin } from '@x/mcp-core/node';
import { authCommands } from '@x/mcp-core/upstream';
import { ENVIRONMENT } from './environment.js';
import { VERSION } from './version.js';

await runBin({
  name: 'forge-mcp',
  version: VERSION,
  description:
    'Forge ticket tools for AI agents (MCP server). Users of the forge CLI who already ran `forge login` need no login.',
  // The device-flow login shared with the forge CLI; loaded only when one of these runs.
  commands: authCommands(
    'forge-mcp',
    {
      login: 'sign in to Forge in the browser (device flow); saves ~/.forge/config.json',
      logout: 'delete the saved login',
      whoami: 'show the account, token expiry and where the login is stored (exit 1 when signed out)',
    },
    async () => (await import('./auth/cli.js')).AUTH_COMMANDS,
  ),
  environment: ENVIRONMENT,
  createProvider: async () => (await import('./index.js')).createForgeProvider(),
  createSandbox: async () => (await import('./testing/index.js')).createSandbox(),
});
