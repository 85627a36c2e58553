// Test fixture (not exported): the hosted auth in front of a serveHttp server, the fake
// Launchpad/Basecamp, a memory store, and per-user registries built from the stored connection.
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { createBasecampProvider } from '@x/mcp-basecamp';
import { connection as basecampConnection } from '@x/mcp-basecamp/connection';
import { type FakeBasecamp, type FakeIdentity, startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { createLogger, defineTool, ToolRegistry } from '@x/mcp-core';
import { type HttpAuth, type HttpHandle, serveHttp } from '@x/mcp-core/node';
import { closedPort, type RunningProcess, startHttpBin } from '@x/mcp-core/testing';
import { z } from 'zod';
import { Keyring } from '../crypto.js';
import { type OidcPayload, oidcKeys, REFRESH_TOKEN_REUSE_GRACE_SECONDS } from '../oidc-adapter.js';
import type { KvStore } from '../store/kv.js';
import { MemoryStore } from '../store/memory.js';
import { SealedRecords } from '../store/sealed.js';
import { type BrowserPage, OAuthBrowser, TestOAuthClient } from '../testing/oauth-browser.js';
import { createHostedAuth, type HostedAuth, type HostedAuthOptions } from './hosted-auth.js';
import { OFFLINE_WORDS } from './pages.js';

export const SECRET = 'a-test-secret-of-at-least-32-bytes-0123456789';
export const REDIRECT = 'http://127.0.0.1:9/callback';
/** What the consent page says each kind of access lets a client do (Basecamp's words, and staying connected). */
export const ACCESS_WORDS = { ...basecampConnection.access, offline: OFFLINE_WORDS };
export const quiet = createLogger('hosted-test', { level: 'silent' });

export const ALICE: FakeIdentity = {
  id: 101,
  firstName: 'Alice',
  lastName: 'Arnold',
  email: 'alice@example.com',
  accounts: [{ id: 999999999, name: 'Honcho Design' }],
};
export const BOB: FakeIdentity = {
  id: 202,
  firstName: 'Bob',
  lastName: 'Baker',
  email: 'bob@example.com',
  accounts: [{ id: 999999999, name: 'Honcho Design' }],
};
export const MALLORY: FakeIdentity = {
  id: 303,
  firstName: 'Mallory',
  lastName: 'Moss',
  email: 'mallory@example.com',
  accounts: [{ id: 555555555, name: 'Elsewhere Inc' }],
};

const whoami = defineTool({
  name: 'whoami',
  description: 'The signed-in user as the tool sees it.',
  inputSchema: z.strictObject({}),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (_input, context) => ({ user: context.request.auth?.extra?.userId ?? null }),
});

/**
 * The environment of the built `x-mcp-server --auth oauth` against a fake Basecamp: its own HOME,
 * the public URL, the store and the test secret; callers add what their providers need.
 */
export function oauthBinEnv(options: {
  home: string;
  publicUrl: string;
  store: string;
  fake: FakeBasecamp;
}): Record<string, string> {
  const { home, publicUrl, store, fake } = options;
  return {
    HOME: home,
    XDG_CONFIG_HOME: home,
    MCP_PUBLIC_URL: publicUrl,
    MCP_STORE: store,
    MCP_SECRET: SECRET,
    BASECAMP_CLIENT_ID: fake.client.id,
    BASECAMP_CLIENT_SECRET: fake.client.secret,
    BASECAMP_LAUNCHPAD_URL: fake.launchpadUrl,
    BASECAMP_API_URL: fake.url,
    BASECAMP_ALLOWED_ACCOUNTS: '999999999',
    BASECAMP_CONTACT: 'tests@example.com',
  };
}

/** A raw `tools/list` POST with a bearer token: for tests of the status code and headers. */
export const postToolsList = (url: string, token: string): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
  });

export interface Hosted {
  url: string;
  origin: string;
  fake: FakeBasecamp;
  store: MemoryStore;
  keyring: Keyring;
  hosted: HostedAuth;
  http: HttpHandle;
  close(): Promise<void>;
}

export interface Replica {
  http: HttpHandle;
  hosted: HostedAuth;
}

/**
 * One server (serveHttp + createHostedAuth) on `store`; its public URL is `publicUrl` (e.g. a
 * proxy in front of several replicas) or its own origin.
 */
export async function startReplica(options: {
  fake: FakeBasecamp;
  store: KvStore;
  keyring: Keyring;
  publicUrl?: string;
  overrides?: Partial<HostedAuthOptions>;
}): Promise<Replica> {
  const { fake } = options;
  let hosted: HostedAuth | undefined;
  const auth: HttpAuth = {
    handle: (req, res) => (hosted as HostedAuth).auth.handle?.(req, res) ?? Promise.resolve(false),
    authenticate: (request) => (hosted as HostedAuth).auth.authenticate(request),
    registryFor: (info: AuthInfo) => (hosted as HostedAuth).auth.registryFor?.(info) as Promise<ToolRegistry>,
    accessFor: (info, request) => (hosted as HostedAuth).auth.accessFor?.(info, request) ?? [],
  };
  const http = await serveHttp({
    name: 'hosted-test',
    version: '1.0.0',
    registry: new ToolRegistry({ logger: quiet }),
    port: 0,
    auth,
    logger: quiet,
  });
  hosted = await createHostedAuth({
    publicUrl: options.publicUrl ?? new URL(http.url).origin,
    store: options.store,
    keyring: options.keyring,
    signIn: {
      connection: basecampConnection,
      clientId: fake.client.id,
      clientSecret: fake.client.secret,
      url: fake.launchpadUrl,
    },
    allowedAccounts: ['999999999'],
    logger: quiet,
    registryFor: async (userId) => {
      const basecamp = createBasecampProvider({
        credentials: (hosted as HostedAuth).connections.credentialSource(userId),
        apiUrl: fake.url,
        contact: 'tests@example.com',
        env: {},
      });
      return new ToolRegistry({ logger: quiet })
        .use(basecamp, { prefix: 'basecamp_' })
        .use({ id: 'self', version: '1.0.0', tools: [whoami] });
    },
    ...options.overrides,
  });
  const closeHttp = http.close.bind(http);
  // Closing the server also stops its periodic signing key check.
  return {
    http: {
      ...http,
      close: async () => {
        hosted?.close();
        await closeHttp();
      },
    },
    hosted,
  };
}

export async function startHosted(overrides: Partial<HostedAuthOptions> = {}): Promise<Hosted> {
  const fake = await startFakeBasecamp();
  const store = new MemoryStore();
  const keyring = Keyring.fromSecrets({ secret: SECRET });
  const { http, hosted } = await startReplica({ fake, store, keyring, overrides });
  return {
    url: http.url,
    origin: new URL(http.url).origin,
    fake,
    store,
    keyring,
    hosted,
    http,
    close: async () => {
      await http.close();
      await fake.close();
      await store.close();
    },
  };
}

export interface SignedIn {
  client: Client;
  oauth: TestOAuthClient;
  browser: OAuthBrowser;
  close(): Promise<void>;
}

/**
 * The whole flow as a real client does it: 401 → discovery → DCR → /authorize in the headless
 * browser (consent, fake Launchpad, callback) → the client's redirect → finishAuth → connect.
 */
export async function signIn(
  env: Pick<Hosted, 'url' | 'fake'>,
  identity: FakeIdentity,
  options: {
    authMethod?: 'none' | 'client_secret_post';
    oauth?: TestOAuthClient;
    browser?: OAuthBrowser;
    /**
     * How the fake Launchpad learns who signs in: `global` (`fake.signInAs`, the default) or
     * `browser` (a Launchpad session cookie in this browser only, so sign-ins can run in parallel).
     */
    identityVia?: 'global' | 'browser';
    /** The consent page's button: `approve` (everything asked for, the default) or `read` (read only). */
    decision?: 'approve' | 'read';
    /** The client's redirect URI (default {@link REDIRECT}); `oauth` must use it. */
    redirect?: string;
  } = {},
): Promise<SignedIn> {
  const target = options.redirect ?? REDIRECT;
  const oauth = options.oauth ?? new TestOAuthClient(target, options.authMethod ?? 'none');
  const browser = options.browser ?? new OAuthBrowser({ stopAt: (url) => url.href.startsWith(target) });
  const first = new StreamableHTTPClientTransport(new URL(env.url), { authProvider: oauth });
  const probe = new Client({ name: 'hosted-test', version: '1.0.0' });
  await probe.connect(first).then(
    () => {
      throw new Error('expected the first connect to need authorization');
    },
    (error: unknown) => {
      if (!(error instanceof UnauthorizedError)) throw error;
    },
  );
  if (!oauth.authorizationUrl) throw new Error('the client was not sent to /authorize');
  if (options.identityVia === 'browser') {
    const session = env.fake.sessionCookie(identity);
    browser.cookies.push({ ...session, origin: new URL(env.fake.launchpadUrl).origin, path: '/' });
  } else {
    env.fake.signInAs(identity);
  }
  const redirect = await approve(browser, await browser.open(oauth.authorizationUrl), options.decision);
  if (!redirect.url.href.startsWith(target)) {
    throw new Error(
      `sign-in did not reach the client: ${redirect.status} ${redirect.url.href} ${redirect.body.slice(0, 300)}`,
    );
  }
  await first.finishAuth(redirect.url.searchParams);
  const client = new Client({ name: 'hosted-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(env.url), { authProvider: oauth }));
  return { client, oauth, browser, close: () => client.close() };
}

/**
 * Links the fake Forge account at `/connect/forge` in the browser `user` signed in with (the
 * device flow the fake approves), as a person does.
 */
export async function linkForge(user: Pick<SignedIn, 'browser'>, origin: string): Promise<void> {
  const step = (page: BrowserPage, status: number, text: string) => {
    if (page.status !== status || !page.body.includes(text)) {
      throw new Error(
        `linking Forge: expected ${status} "${text}", got ${page.status} ${page.body.slice(0, 300)}`,
      );
    }
    return page;
  };
  const overview = step(await user.browser.open(new URL('/connect/forge', origin)), 200, '<form');
  const code = await user.browser.submit(overview, {});
  const pending = step(await user.browser.submit(code, {}), 200, 'not approved this sign-in yet');
  step(await user.browser.submit(pending, {}), 200, 'Forge linked');
}

/**
 * A scope step-up as a real client does it: calling `tool` answers 403 insufficient_scope, so
 * the SDK's transport sends the client to `/authorize` with the wider scope; the user's browser
 * opens that, presses `decision` on the page it shows, and the transport redeems the code.
 * Returns the authorization URL and the page the browser was shown, for the caller's checks.
 */
export async function stepUp(
  env: Pick<Hosted, 'url'>,
  user: SignedIn,
  tool: { name: string; arguments: Record<string, unknown> },
  decision: 'approve' | 'read' = 'approve',
): Promise<{ url: URL; page: BrowserPage }> {
  const transport = new StreamableHTTPClientTransport(new URL(env.url), { authProvider: user.oauth });
  const client = new Client({ name: 'hosted-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    user.oauth.authorizationUrl = undefined;
    const refused = await client.callTool(tool).then(
      () => undefined,
      (error: unknown) => error,
    );
    const url = user.oauth.authorizationUrl as URL | undefined;
    if (!refused || !url) throw new Error(`calling ${tool.name} did not send the client to /authorize`);
    user.browser.stoppedAt = undefined;
    const page = await user.browser.open(url);
    const redirect = await approve(user.browser, page, decision);
    if (!redirect.url.href.startsWith(REDIRECT)) {
      throw new Error(`step-up did not reach the client: ${redirect.status} ${redirect.url.href}`);
    }
    await transport.finishAuth(redirect.url.searchParams);
    return { url, page };
  } finally {
    await client.close();
  }
}

/** Approves the consent page when there is one (`read`: read only). */
export async function approve(
  browser: OAuthBrowser,
  page: BrowserPage,
  decision: 'approve' | 'read' = 'approve',
): Promise<BrowserPage> {
  if (page.status === 200 && page.body.includes('name="decision"')) {
    return browser.submit(page, { decision });
  }
  return page;
}

export interface RoundRobinProxy {
  origin: string;
  /** Where the proxy forwards, in turn (replicas may be added after it starts). */
  upstreams: string[];
  /** Requests forwarded to each upstream. */
  counts: number[];
  close(): Promise<void>;
}

/** A load balancer for the replica tests: each request goes to the next upstream in turn. */
export async function startRoundRobinProxy(): Promise<RoundRobinProxy> {
  const upstreams: string[] = [];
  const counts: number[] = [];
  let next = 0;
  const proxy = createServer((incoming, outgoing) => {
    const index = next++ % upstreams.length;
    counts[index] = (counts[index] ?? 0) + 1;
    const target = new URL(incoming.url ?? '/', upstreams[index]);
    const forwarded = request(target, { method: incoming.method, headers: incoming.headers }, (response) => {
      outgoing.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(outgoing);
    });
    forwarded.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    upstreams,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}

/**
 * Makes a used (rotated) refresh token look used long ago, past
 * {@link REFRESH_TOKEN_REUSE_GRACE_SECONDS}, as time would: presenting it again is then a replay.
 */
export async function ageConsumedRefreshToken(
  store: KvStore,
  keyring: Keyring,
  refreshToken: string,
): Promise<void> {
  const records = new SealedRecords(store, keyring);
  const key = oidcKeys.record('RefreshToken', refreshToken);
  const entry = await records.get<OidcPayload>(key);
  if (typeof entry?.value.consumed !== 'number') throw new Error('the refresh token was not used');
  const written = await records.set(
    key,
    { ...entry.value, consumed: entry.value.consumed - REFRESH_TOKEN_REUSE_GRACE_SECONDS - 60 },
    {
      ifVersion: entry.version,
      ...(entry.expiresAt === undefined ? {} : { ttlMs: Math.max(1, entry.expiresAt - Date.now()) }),
    },
  );
  if (written === undefined) throw new Error('the refresh token changed meanwhile');
}

/** The built composed server (`pnpm build`), which the replica tests run as real processes. */
export const SERVER_BIN = fileURLToPath(new URL('../../../../apps/server/dist/bin.js', import.meta.url));

export interface ReplicaBins {
  /** The replicas, in the proxy's order. */
  servers: Array<RunningProcess & { url: string }>;
  /** The round-robin proxy in front of them; its origin is their public URL. */
  proxy: RoundRobinProxy;
  /**
   * For `afterEach`: after the first failed test, each replica's stderr (which check refused,
   * which refresh failed), so that an intermittent failure leaves its evidence. Once per file.
   */
  showLogsOnFailure(context: { task: { result?: { state?: string } } }): void;
  /** Stops the replicas and the proxy. */
  stop(): Promise<void>;
}

/**
 * `count` (default 2) processes of the built server (`--http --auth oauth --providers basecamp`)
 * on one store, each with its own HOME, behind a new round-robin proxy whose origin is their
 * public URL. `env` is added to each one's environment.
 */
export async function startReplicaBins(options: {
  store: string;
  fake: FakeBasecamp;
  count?: number;
  env?: Record<string, string>;
}): Promise<ReplicaBins> {
  if (!existsSync(SERVER_BIN))
    throw new Error(`Build apps/server first (pnpm build): ${SERVER_BIN} is missing.`);
  const proxy = await startRoundRobinProxy();
  const servers: ReplicaBins['servers'] = [];
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await proxy.close();
  };
  try {
    for (let index = 0; index < (options.count ?? 2); index++) {
      const home = await mkdtemp(join(tmpdir(), 'hosted-replica-'));
      const port = await closedPort();
      const server = await startHttpBin({
        command: process.execPath,
        args: [SERVER_BIN, '--http', '--port', String(port), '--auth', 'oauth', '--providers', 'basecamp'],
        env: {
          ...oauthBinEnv({ home, publicUrl: proxy.origin, store: options.store, fake: options.fake }),
          ...options.env,
        },
      });
      servers.push(server);
      proxy.upstreams.push(new URL(server.url).origin);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  let logsShown = false;
  return {
    servers,
    proxy,
    stop,
    showLogsOnFailure: (context) => {
      if (logsShown || context.task.result?.state !== 'fail') return;
      logsShown = true;
      for (const [index, server] of servers.entries()) {
        process.stderr.write(`\n--- replica ${index + 1} stderr ---\n${server.stderr().slice(-20_000)}\n`);
      }
    },
  };
}
