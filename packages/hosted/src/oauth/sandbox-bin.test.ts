import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { SANDBOX_PEOPLE } from '@x/mcp-basecamp/testing';
import { closedPort, type RunningProcess, startHttpBin, startProcess } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthBrowser, TestOAuthClient } from '../testing/oauth-browser.js';
import { approve, linkForge, SERVER_BIN } from './fixture.js';

// `x-mcp-server --http --auth oauth --sandbox` (the built bin): the whole hosted server against
// the shipped fakes of Launchpad and Basecamp, no Launchpad app, no secret, no store given. A
// client signs in as a real one does: DCR, /authorize, our consent page, the fake Launchpad's
// page where the person picks who they are, the token, tools/call.
const REDIRECT = 'http://127.0.0.1:53682/callback';
const [VICTOR, SHARON, OUTSIDER] = SANDBOX_PEOPLE;
const environment = (home: string): Record<string, string | undefined> => ({
  HOME: home,
  XDG_CONFIG_HOME: home,
  XDG_STATE_HOME: home,
  // Nothing of a real deployment: the sandbox fills it.
  MCP_SECRET: undefined,
  MCP_SECRET_FILE: undefined,
  MCP_STORE: undefined,
  MCP_PUBLIC_URL: undefined,
  BASECAMP_CLIENT_ID: undefined,
  BASECAMP_CLIENT_SECRET: undefined,
  BASECAMP_LAUNCHPAD_URL: undefined,
  BASECAMP_ALLOWED_ACCOUNTS: undefined,
  BASECAMP_CONTACT: undefined,
});

/** The command "Try it offline" in docs/deployment.md shows, as this test runs it (with a free port). */
const DOCUMENTED = ['--http', '--auth', 'oauth', '--sandbox'];

let server: RunningProcess & { url: string };
let origin: string;
let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'hosted-sandbox-'));
  const port = await closedPort();
  server = await startHttpBin({
    command: process.execPath,
    // Every provider, as the documented command: Basecamp and Forge per user on their fakes, BBj
    // RAG shared on its fake, Context Forge (the server's files) not served.
    args: [SERVER_BIN, ...DOCUMENTED, '--port', String(port)],
    env: environment(home),
  });
  origin = new URL(server.url).origin;
});
afterAll(async () => {
  await server?.stop();
});

/** DCR, /authorize, consent, the fake Launchpad's page, the pick: where the browser ends. */
async function signInAs(personId: number, authMethod: 'none' | 'client_secret_post' = 'none') {
  const oauth = new TestOAuthClient(REDIRECT, authMethod, 'Sandbox test');
  // A native client: registers its loopback callback without a port, listens on one of its own.
  oauth.registeredRedirectUris = ['http://127.0.0.1/callback'];
  const browser = new OAuthBrowser({ stopAt: (url) => url.href.startsWith(REDIRECT) });
  const first = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: oauth });
  await new Client({ name: 'sandbox-test', version: '1.0.0' }).connect(first).then(
    () => {
      throw new Error('expected the first connect to need authorization');
    },
    (error: unknown) => {
      if (!(error instanceof UnauthorizedError)) throw error;
    },
  );
  if (!oauth.authorizationUrl) throw new Error('the client was not sent to /authorize');
  const launchpad = await approve(browser, await browser.open(oauth.authorizationUrl));
  // The fake Launchpad's sign-in page: every sample person, to pick from.
  expect(launchpad.status).toBe(200);
  expect(launchpad.body).toContain('Fake Launchpad');
  for (const { identity } of SANDBOX_PEOPLE) expect(launchpad.body).toContain(identity.email);
  const end = await browser.submit(launchpad, { person: String(personId) });
  return { oauth, first, end, browser };
}

describe('x-mcp-server --http --auth oauth --sandbox', () => {
  it('is the command docs/deployment.md starts with', () => {
    const page = readFileSync(
      fileURLToPath(new URL('../../../../docs/deployment.md', import.meta.url)),
      'utf8',
    );
    const offline = page.slice(page.indexOf('## Try it offline'), page.indexOf('## One server'));
    expect(offline).toContain(`pnpm -s x-mcp-server ${DOCUMENTED.join(' ')}`);
    // The page's first section.
    expect(/^## (.*)$/m.exec(page)?.[1]).toBe('Try it offline (`--sandbox`)');
  });

  it('says it is a sandbox: the banner names who can sign in, /healthz says sandbox', async () => {
    const health = (await (await fetch(new URL('/healthz', origin))).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ status: 'ok', sandbox: true });
    expect((await fetch(new URL('/readyz', origin))).status).toBe(200);
    const stderr = server.stderr();
    expect(stderr).toContain('SANDBOX: not a production server');
    expect(stderr).toContain(`${origin}/mcp`);
    expect(stderr).toContain('MCP_SECRET: made for this run');
    expect(stderr).toContain('Store: memory');
    expect(stderr, stderr).toContain('fake Forge');
    for (const { identity, allowed } of SANDBOX_PEOPLE) {
      const line = stderr.split('\n').find((text) => text.includes(identity.email)) ?? '';
      expect(line).toContain(allowed ? 'signs in' : 'refused');
    }
  });

  it('a client signs in as a person of an allowed account and calls a tool on the fake Basecamp', async () => {
    const { oauth, first, end, browser } = await signInAs(VICTOR?.identity.id as number);
    expect(end.url.href.startsWith(REDIRECT), `${end.status} ${end.url.href} ${end.body.slice(0, 300)}`).toBe(
      true,
    );
    await first.finishAuth(end.url.searchParams);
    const client = new Client({ name: 'sandbox-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: oauth }));
    try {
      const who = await client.callTool({ name: 'hosted_whoami', arguments: {} });
      expect(JSON.stringify(who.structuredContent ?? who.content)).toContain('victor@honchodesign.com');
      const projects = await client.callTool({ name: 'basecamp_list_projects', arguments: {} });
      expect(projects.isError).toBeFalsy();
      expect(JSON.stringify(projects.content)).toContain('The Leto Laptop');
      // Forge is served: linked at /connect/forge against the fake Forge, as the banner says.
      await linkForge({ browser }, origin);
      const tickets = await client.callTool({ name: 'forge_list_tickets', arguments: {} });
      expect(tickets.isError, JSON.stringify(tickets.content)).toBeFalsy();
      const rag = await client.callTool({
        name: 'bbj_rag_search_bbj_knowledge',
        arguments: { query: 'window button event', limit: 3 },
      });
      expect(rag.isError, JSON.stringify(rag.content)).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('a confidential client (client_secret_post, as Claude registers) signs in as the other person', async () => {
    const { oauth, first, end } = await signInAs(SHARON?.identity.id as number, 'client_secret_post');
    await first.finishAuth(end.url.searchParams);
    expect((oauth.clientInformation() as { client_secret?: string }).client_secret).toBeTruthy();
    const client = new Client({ name: 'sandbox-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: oauth }));
    try {
      const who = await client.callTool({ name: 'hosted_whoami', arguments: {} });
      expect(JSON.stringify(who.structuredContent ?? who.content)).toContain('sharon@honchodesign.com');
    } finally {
      await client.close();
    }
  });

  it('a person of an account not allowed is refused by the allowlist', async () => {
    const { end } = await signInAs(OUTSIDER?.identity.id as number);
    expect(end.url.href.startsWith(REDIRECT)).toBe(true);
    expect(end.url.searchParams.get('error')).toBe('access_denied');
    expect(end.url.searchParams.get('error_description')).toContain('not admitted');
    // The operator's log names the accounts the refused login had (the values the allowlist would need).
    const logged = await server.waitForStderr('sign-in refused: no allowed Basecamp account');
    expect(logged).toContain('555555555');
  });

  it('refuses --sandbox with a real Launchpad app', async () => {
    const refused = startProcess({
      command: process.execPath,
      args: [SERVER_BIN, '--http', '--port', '0', '--auth', 'oauth', '--sandbox', '--providers', 'basecamp'],
      env: { ...environment(home), BASECAMP_CLIENT_ID: 'a-real-launchpad-app' },
    });
    expect(await refused.exited).toBe(2);
    expect(refused.stderr()).toContain(
      '--sandbox signs people in at a local fake Launchpad, never a real one',
    );
  });
});

// Three kinds of client, each through the whole flow as it really runs it, with plain HTTP where
// the SDK client would hide what the client sends: the 401's challenge, the metadata, its own
// registration body, /authorize with PKCE, our consent page, the fake Launchpad's page (a sample
// person picked), the code at its redirect URI (with `state` and `iss`), /token, a refresh, then
// tools/list and tools/call over /mcp with the bearer token.
interface ClientStyle {
  name: string;
  /** Its registration body, given what it discovered (VS Code derives grant_types and scope from it). */
  registration(discovered: { scopes: string[]; grantTypes: string[] | undefined }): Record<string, unknown>;
  /** Where it has the browser sent back. */
  redirectUri: string;
}

const STYLES: ClientStyle[] = [
  {
    // The MCP Inspector's web client (2.12.0): a public native client on its loopback callback.
    // Its own metadata has `scope: ''`; its SDK replaces that with the discovered scopes.
    name: 'Inspector',
    redirectUri: 'http://localhost:6274/oauth/callback',
    registration: ({ scopes }) => ({
      redirect_uris: ['http://localhost:6274/oauth/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      client_name: 'MCP Inspector',
      client_uri: 'https://github.com/modelcontextprotocol/inspector',
      scope: scopes.join(' '),
      application_type: 'native',
    }),
  },
  {
    // VS Code's fetchDynamicRegistration: its web relays and loopback (the default port 33418),
    // grant types the server advertises among its own three, the challenge's scopes.
    name: 'VS Code',
    redirectUri: 'https://vscode.dev/redirect',
    registration: ({ scopes, grantTypes }) => ({
      client_name: 'Visual Studio Code',
      client_uri: 'https://code.visualstudio.com',
      grant_types: (grantTypes ?? ['authorization_code', 'refresh_token']).filter((type) =>
        ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'].includes(
          type,
        ),
      ),
      response_types: ['code'],
      redirect_uris: [
        'https://insiders.vscode.dev/redirect',
        'https://vscode.dev/redirect',
        'http://127.0.0.1/',
        'http://127.0.0.1:33418/',
      ],
      scope: scopes.join(' '),
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    }),
  },
  {
    // Claude.ai / Claude Desktop connectors: a confidential client_secret_post client on
    // Anthropic's callback (docs/clients.md), by DCR since the server does not offer CIMD.
    name: 'Claude',
    redirectUri: 'https://claude.ai/api/mcp/auth_callback',
    registration: () => ({
      client_name: 'Claude',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    }),
  },
];

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

async function postForm(url: string, form: Record<string, string>) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

/** tools/list and one tools/call with a bearer token, as any client does once it holds one. */
async function callWithToken(accessToken: string) {
  const client = new Client({ name: 'bearer', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    }),
  );
  try {
    const { tools } = await client.listTools();
    const projects = await client.callTool({ name: 'basecamp_list_projects', arguments: {} });
    return { names: tools.map((tool) => tool.name), projects };
  } finally {
    await client.close();
  }
}

describe('sign-in from three client styles, as each one runs it, against the sandbox', () => {
  for (const style of STYLES) {
    it(`${style.name}: registers, authorizes with PKCE, signs in as a sample person, refreshes, calls tools`, async () => {
      // 1. The challenge and the metadata it points to.
      const challenge = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
      expect(challenge.status).toBe(401);
      const header = challenge.headers.get('www-authenticate') ?? '';
      const resourceMetadata = /resource_metadata="([^"]+)"/.exec(header)?.[1] ?? '';
      const scopes = (/scope="([^"]+)"/.exec(header)?.[1] ?? '').split(' ');
      expect(scopes).toEqual(['mcp:read', 'mcp:write']);
      const prm = (await (await fetch(resourceMetadata)).json()) as {
        resource: string;
        authorization_servers: string[];
      };
      expect(prm.resource).toBe(`${origin}/mcp`);
      const issuer = prm.authorization_servers[0] as string;
      const as = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as {
        issuer: string;
        registration_endpoint: string;
        authorization_endpoint: string;
        token_endpoint: string;
        grant_types_supported?: string[];
        code_challenge_methods_supported: string[];
        client_id_metadata_document_supported?: boolean;
      };
      expect(as.code_challenge_methods_supported).toContain('S256');
      // No CIMD by default: Claude (which prefers it when offered) registers by DCR.
      expect(as.client_id_metadata_document_supported ?? false).toBe(false);

      // 2. Its registration, as it sends it.
      const body = style.registration({ scopes, grantTypes: as.grant_types_supported });
      const registered = await fetch(as.registration_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const client = (await registered.json()) as { client_id: string; client_secret?: string };
      expect(registered.status, JSON.stringify(client)).toBe(201);
      const secret =
        body.token_endpoint_auth_method === 'client_secret_post' ? client.client_secret : undefined;
      if (body.token_endpoint_auth_method === 'client_secret_post') expect(secret).toBeTruthy();

      // 3. /authorize with PKCE and resource, in a browser that stops at the client's redirect.
      const authorize = async (redirectUri: string, browser: OAuthBrowser) => {
        const verifier = randomBytes(32).toString('base64url');
        const state = randomBytes(16).toString('base64url');
        const url = new URL(as.authorization_endpoint);
        url.search = new URLSearchParams({
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: redirectUri,
          scope: scopes.join(' '),
          state,
          code_challenge: s256(verifier),
          code_challenge_method: 'S256',
          resource: prm.resource,
        }).toString();
        const shown: string[] = [];
        let page = await browser.open(url);
        if (page.status === 200 && page.body.includes('name="decision"')) {
          shown.push('consent');
          page = await approve(browser, page);
        }
        if (page.body.includes('Fake Launchpad')) {
          shown.push('launchpad');
          page = await browser.submit(page, { person: String(SHARON?.identity.id) });
        }
        expect(
          page.url.href.startsWith(redirectUri),
          `${page.status} ${page.url.href} ${page.body.slice(0, 300)}`,
        ).toBe(true);
        expect(page.url.searchParams.get('state')).toBe(state);
        expect(page.url.searchParams.get('iss')).toBe(as.issuer);
        const code = page.url.searchParams.get('code') ?? '';
        const token = await postForm(as.token_endpoint, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          code_verifier: verifier,
          client_id: client.client_id,
          resource: prm.resource,
          ...(secret ? { client_secret: secret } : {}),
        });
        expect(token.status, JSON.stringify(token.body)).toBe(200);
        return { token: token.body, shown };
      };
      const browser = new OAuthBrowser({ stopAt: (url) => url.href.startsWith(style.redirectUri) });
      const { token, shown } = await authorize(style.redirectUri, browser);
      expect(shown).toEqual(['consent', 'launchpad']);
      expect(token).toMatchObject({ token_type: 'Bearer', scope: 'mcp:read mcp:write' });
      expect(token.refresh_token).toBeTruthy();

      // 4. The tools, with the token.
      const first = await callWithToken(token.access_token as string);
      expect(first.names).toEqual(expect.arrayContaining(['basecamp_list_projects', 'hosted_whoami']));
      expect(first.projects.isError, JSON.stringify(first.projects.content)).toBeFalsy();
      expect(JSON.stringify(first.projects.content)).toContain('The Leto Laptop');

      // 5. A refresh (every one of them stays connected past the hour this way).
      const refreshed = await postForm(as.token_endpoint, {
        grant_type: 'refresh_token',
        refresh_token: token.refresh_token as string,
        client_id: client.client_id,
        resource: prm.resource,
        ...(secret ? { client_secret: secret } : {}),
      });
      expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
      expect((await callWithToken(refreshed.body.access_token as string)).names).toContain(
        'basecamp_list_projects',
      );

      if (style.name === 'VS Code') {
        // VS Code desktop's own loopback callback: the same client, the same browser, no page
        // to approve again (the consent is remembered), straight back with a code.
        const loopback = new OAuthBrowser({
          stopAt: (url) => url.href.startsWith('http://127.0.0.1:33418/'),
        });
        loopback.cookies.push(...browser.cookies);
        const again = await authorize('http://127.0.0.1:33418/', loopback);
        expect(again.shown).toEqual([]);
        expect((await callWithToken(again.token.access_token as string)).names).toContain(
          'basecamp_list_projects',
        );
      }
    }, 60_000);
  }
});
