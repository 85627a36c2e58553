import { type BinContext, runBin } from '@x/mcp-core/node';
import packageJson from '../package.json' with { type: 'json' };
import { PROVIDERS } from './catalog.js';

/** From package.json at build time, like every provider's VERSION. */
const VERSION: string = packageJson.version;

/** `a, b and c`. */
const and = (items: readonly string[]) =>
  items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
const list = (pick: (provider: (typeof PROVIDERS)[number]) => string) => PROVIDERS.map(pick).join(', ');

/** The providers that declare a sign-in (who can be the identity with --auth oauth), each loaded: its title and variables. */
const signIns = await Promise.all(
  PROVIDERS.flatMap((provider) =>
    provider.connection?.kind === 'sign-in' ? [provider.connection.load()] : [],
  ),
);
const signInTitles = signIns.map((signIn) => signIn.title).join(' or ');

/** The config file: `--config`, else `MCP_SERVER_CONFIG`. */
const configFile = ({ flags }: BinContext) =>
  typeof flags.config === 'string' ? flags.config : process.env.MCP_SERVER_CONFIG || undefined;

/** The config file, read once for the providers and the surface. */
let config: ReturnType<typeof loadConfigOnce> | undefined;
function readConfig(file: string) {
  config ??= loadConfigOnce(file);
  return config;
}
async function loadConfigOnce(file: string) {
  const { loadConfig } = await import('./config.js');
  return loadConfig(file);
}

async function options(context: BinContext) {
  const { flags } = context;
  const file = configFile(context);
  const only =
    typeof flags.providers === 'string'
      ? flags.providers
          .split(',')
          .map((id) => id.trim())
          .filter(Boolean)
      : undefined;
  return {
    ...(file ? { config: await readConfig(file) } : {}),
    ...(only ? { only } : {}),
    noPrefix: flags['no-prefix'] === true,
  };
}

await runBin({
  name: 'x-mcp-server',
  version: VERSION,
  description: `${and(PROVIDERS.map((provider) => provider.title))} tools in one MCP server, composed by config`,
  flags: {
    config: {
      type: 'string',
      value: '<file>',
      description: 'JSON config: providers, prefixes, filters, settings',
    },
    providers: {
      type: 'string',
      value: '<a,b>',
      description: `serve only these providers (${list((provider) => provider.id)})`,
    },
    'no-prefix': {
      type: 'boolean',
      description: `no default name prefixes (${list((provider) => provider.prefix)})`,
    },
    auth: {
      type: 'string',
      value: '<mode>',
      description: `HTTP auth: none, token (MCP_HTTP_TOKEN) or oauth (multi-user ${signInTitles} sign-in, Node 22.12+; with --sandbox against local fakes, no account needed)`,
    },
    'public-url': {
      type: 'string',
      value: '<url>',
      description: 'with --auth oauth: the public origin, e.g. https://mcp.example.com',
    },
    store: {
      type: 'string',
      value: '<url>',
      description: 'with --auth oauth: sqlite:<path> (default), redis://host:port or memory:',
    },
  },
  environment: [
    { name: 'MCP_SERVER_CONFIG', description: 'config file when --config is not given' },
    { name: 'MCP_AUTH, MCP_PUBLIC_URL, MCP_STORE', description: '--auth, --public-url, --store' },
    {
      name: 'MCP_SECRET',
      description: 'with --auth oauth: master secret, at least 32 bytes (or MCP_SECRET_FILE)',
    },
    ...signIns.map((signIn) => ({
      name: signIn.env.allowedAccounts,
      description: `with --auth oauth: ${signIn.title} account ids a user must belong to`,
    })),
    {
      name: 'MCP_ALLOWED_EMAIL_DOMAINS, MCP_OAUTH_DCR',
      description:
        'with --auth oauth: email domains a user must have; dynamic client registration on (default) or off',
    },
    {
      name: 'MCP_OAUTH_CIMD, MCP_OAUTH_CIMD_HOSTS',
      description:
        'with --auth oauth: Client ID Metadata Documents on (default off), hosts to fetch them from',
    },
    {
      name: 'MCP_OAUTH_REDIRECT_HOSTS, MCP_OAUTH_ACCESS_TTL, MCP_OAUTH_REFRESH_TTL, MCP_OAUTH_CLIENT_TTL',
      description: 'client redirect hosts; token and unused-client lifetimes in seconds',
    },
    {
      name: 'MCP_OAUTH_REDIRECT_SCHEMES',
      description:
        'with --auth oauth: private-use URI schemes native clients may register (e.g. cursor); default none',
    },
    {
      name: 'MCP_POLICY',
      description: `with --auth oauth: the policy file (JSON): who may use which toolsets, read-only, ${signInTitles} projects, rate limits, deny; re-read when it changes and on SIGHUP`,
    },
    {
      name: 'MCP_RATE_LIMIT',
      description:
        'with --auth oauth: tool calls per user where the policy sets none, <count>/<unit> (e.g. 120/min, 10/s, 1000/h) or off (default)',
    },
    {
      name: 'MCP_TRUST_PROXY',
      description:
        'with --auth oauth: proxies in front (a number of hops, or their addresses/CIDRs) whose X-Forwarded-For names the client; default 0',
    },
    {
      name: 'MCP_LIMIT_AUTHORIZE, MCP_LIMIT_TOKEN, MCP_LIMIT_INTERACTION, MCP_LIMIT_REGISTER',
      description: 'with --auth oauth: requests per client address, <requests>/<seconds> or off',
    },
    {
      name: 'MCP_AUDIT',
      description:
        'the audit log: off, file:<path>, redis (the store’s, --auth oauth) or stdout (HTTP); with --auth oauth default audit.jsonl next to a sqlite: store, redis with a redis:// store; else off',
    },
    {
      name: 'MCP_AUDIT_MAX_BYTES, MCP_AUDIT_KEEP, MCP_AUDIT_MAXLEN',
      description:
        'audit file size before rotation (default 64 MiB) and rotated files kept (10); records kept in the redis stream (about 1000000)',
    },
    {
      name: list((provider) => `${provider.id.replace(/-/g, '_').toUpperCase()}_*`),
      description: 'each provider’s own settings and secrets',
    },
  ],
  surface: async (context) => {
    const file = configFile(context);
    return file ? (await readConfig(file)).surface : undefined;
  },
  createProvider: async (context) => {
    await (await import('./local-audit.js')).startLocalAudit(context);
    return (await import('./compose.js')).compose(await options(context));
  },
  createSandbox: async (context) => {
    await (await import('./local-audit.js')).startLocalAudit(context);
    return (await import('./compose.js')).composeSandbox(await options(context));
  },
  commands: {
    users: {
      summary:
        'users list | revoke <user> | forget <user> [--store <url>]: who signed in (--auth oauth); sign one out everywhere; delete all about one',
      run: async (argv) => (await import('./hosted.js')).usersCommand(argv),
    },
    policy: {
      summary:
        'policy explain <email> [--account <id>] | check [<file>]: the rule of MCP_POLICY that applies to a person, and from which line; validate a policy file',
      run: async (argv) => (await import('./hosted.js')).policyCommand(argv),
    },
    audit: {
      summary:
        'audit verify | tail [--user] [--since] [--tool] [-n] [--sink <sink>] [--store <url>]: check the audit log’s hash chain; its last records',
      run: async (argv) => (await import('./hosted.js')).auditCommand(argv),
    },
    keys: {
      summary:
        'keys rotate [--store <url>]: seal the store with MCP_SECRET from now on (old one in MCP_SECRET_PREVIOUS), new signing key',
      run: async (argv) => (await import('./hosted.js')).keysCommand(argv),
    },
  },
  createHttpAuth: async (context) =>
    (await import('./hosted-sandbox.js')).createOAuthOrSandboxSetup(context, await options(context)),
});
