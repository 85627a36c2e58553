// A multi-user MCP server of your own (Node 22.12+): MCP authorization for Claude.ai, ChatGPT and
// other remote clients, each person signing in with their own Basecamp account (Launchpad) and
// getting Basecamp tools that use only their own token. apps/server does this, and more, for you.
// Install: npm install @x/mcp-hosted @x/mcp-core @x/mcp-basecamp @modelcontextprotocol/server
import { createBasecampProvider } from '@x/mcp-basecamp';
import { connection as basecampSignIn } from '@x/mcp-basecamp/connection';
import { ConfigError, ToolRegistry } from '@x/mcp-core';
import { serveHttp } from '@x/mcp-core/node';
import { createHostedAuth, createStore, Keyring, listFromEnv } from '@x/mcp-hosted';

const required = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new ConfigError(`Set ${name}.`);
  return value;
};

const keyring = Keyring.fromEnv(); // MCP_SECRET (at least 32 bytes); MCP_SECRET_PREVIOUS while rotating
const store = await createStore(process.env.MCP_STORE ?? 'sqlite:/var/lib/my-mcp/store.db');
const perUser = new Map<string, ToolRegistry>(); // bound it (an LRU) on a server with many users

const hosted = await createHostedAuth({
  publicUrl: 'https://mcp.example.com', // the issuer; the MCP resource is <publicUrl>/mcp
  store,
  keyring,
  // Basecamp's declared sign-in (Launchpad); the app's redirect URI is
  // https://mcp.example.com/oauth/callback/basecamp (`/oauth/callback/<provider id>`).
  signIn: {
    connection: basecampSignIn,
    clientId: required('BASECAMP_CLIENT_ID'),
    clientSecret: required('BASECAMP_CLIENT_SECRET'),
  },
  allowedAccounts: listFromEnv(process.env.BASECAMP_ALLOWED_ACCOUNTS), // e.g. "999999999"
  // Each signed-in user's tools, built once; every request's token is the user's current one.
  registryFor: async (userId) => {
    let registry = perUser.get(userId);
    if (!registry) {
      const credentials = hosted.connections.credentialSource(userId);
      registry = new ToolRegistry().use(createBasecampProvider({ credentials }), { prefix: 'basecamp_' });
      perUser.set(userId, registry);
    }
    return registry;
  },
});

await serveHttp({
  name: 'my-hosted-server',
  version: '1.0.0',
  registry: new ToolRegistry(), // what a caller without a registry of their own would see
  auth: hosted.auth,
  host: '0.0.0.0',
  port: 8080,
  allowedHosts: ['mcp.example.com'],
});
