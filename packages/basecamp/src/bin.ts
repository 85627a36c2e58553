import { runBin } from '@x/mcp-core/node';
import { authCommands } from '@x/mcp-core/upstream';
import { ENVIRONMENT } from './environment.js';
import { VERSION } from './version.js';

// Kept in step with TOOLSETS by a test; listed here so --help does not load the tools.
const TOOLSET_LIST =
  'projects, todos, messages, docs, schedule, cards, checkins, chat, clients, activity, admin';

/**
 * `--toolsets` wins over `BASECAMP_TOOLSETS`, which the provider reads itself. The names of
 * connection URLs are accepted too: `basecamp.todos` is `todos`, `basecamp` is `all`.
 */
function toolsets(flag: string | boolean | undefined): { toolsets: string } | undefined {
  if (typeof flag !== 'string') return undefined;
  const names = flag.split(',').map((name) => {
    const trimmed = name.trim();
    return trimmed === 'basecamp' ? 'all' : trimmed.replace(/^basecamp\./, '');
  });
  return { toolsets: names.join(',') };
}

/** `--dynamic-toolsets` switches it on; otherwise the provider reads `BASECAMP_DYNAMIC_TOOLSETS`. */
function dynamic(flag: string | boolean | undefined): { dynamicToolsets: true } | undefined {
  return flag === true ? { dynamicToolsets: true } : undefined;
}

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
  flags: {
    toolsets: {
      type: 'string',
      value: '<a,b>',
      description: `tools to serve: default, all, or ${TOOLSET_LIST}; basecamp.todos means todos (env BASECAMP_TOOLSETS)`,
    },
    'dynamic-toolsets': {
      type: 'boolean',
      description:
        'also serve list_toolsets and enable_toolset, to add toolsets while connected (env BASECAMP_DYNAMIC_TOOLSETS=1)',
    },
  },
  // Only the served toolsets' tool code is loaded (src/load.ts).
  createProvider: async ({ flags }) =>
    (await import('./load.js')).loadBasecampProvider({
      ...toolsets(flags.toolsets),
      ...dynamic(flags['dynamic-toolsets']),
    }),
  createSandbox: async ({ flags }) => {
    // The sandbox's provider reads no environment; its projects are 2085958504, 2085958505, 2085958506.
    const projects = (await import('./client/projects.js')).parseProjects(
      undefined,
      process.env.BASECAMP_PROJECTS,
    );
    return (await import('./testing/index.js')).createSandbox({
      toolsets: toolsets(flags.toolsets)?.toolsets ?? process.env.BASECAMP_TOOLSETS,
      dynamicToolsets:
        flags['dynamic-toolsets'] === true ||
        /^(1|true|yes|on)$/i.test(process.env.BASECAMP_DYNAMIC_TOOLSETS ?? ''),
      ...(projects ? { projects: [...projects.ids] } : {}),
    });
  },
});
