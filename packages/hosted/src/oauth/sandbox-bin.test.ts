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
