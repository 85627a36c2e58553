import { runBin } from '@x/mcp-core';
import { VERSION } from './version.js';

/** `forge-mcp login` / `logout`: the device-flow login shared with the forge CLI. */
const authCommand = (command: 'login' | 'logout', summary: string) => ({
  summary,
  run: async (argv: readonly string[]) => {
    const { runAuthCommand } = await import('./auth/cli.js');
    const controller = new AbortController();
    process.once('SIGINT', () => controller.abort());
    return runAuthCommand(command, argv, {
      write: (text) => process.stderr.write(text),
      env: process.env,
      signal: controller.signal,
    });
  },
});

await runBin({
  name: 'forge-mcp',
  version: VERSION,
  description:
    'Forge ticket tools for AI agents (MCP server). Users of the forge CLI who already ran `forge login` need no login.',
  commands: {
    login: authCommand('login', 'sign in to Forge in the browser (device flow); saves ~/.forge/config.json'),
    logout: authCommand('logout', 'delete the saved login'),
  },
  environment: [
    {
      name: 'FORGE_API_URL',
      description: 'Forge API base including /api (default https://www.forge-ai.dev/api)',
    },
    {
      name: 'FORGE_CONFIG_PATH',
      description: 'login file (default ~/.forge/config.json, shared with the forge CLI)',
    },
    {
      name: 'FORGE_ACCESS_TOKEN',
      description: 'use this token instead of the login file (with FORGE_TEAM_ID)',
    },
    { name: 'FORGE_TEAM_ID', description: 'team sent as x-team-id with FORGE_ACCESS_TOKEN' },
  ],
  createProvider: async () => (await import('./index.js')).createForgeProvider(),
  createSandbox: async () => (await import('./testing/index.js')).createSandbox(),
});
