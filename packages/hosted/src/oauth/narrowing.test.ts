import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { errorBody } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, type Hosted, postToolsList, type SignedIn, signIn, startHosted } from './fixture.js';
import { isNarrowedResource } from './narrowed-resource.js';

let env: Hosted;
const sessions: SignedIn[] = [];
beforeAll(async () => {
  env = await startHosted();
});
afterAll(async () => {
  await Promise.all(sessions.map((session) => session.close()));
  await env.close();
});

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);

describe('narrowed connector URLs in oauth mode', () => {
  it('signs in through a narrowed URL as a real client does, and serves only that narrowing', async () => {
    const todos = `${env.origin}/mcp/x/basecamp.todos`;
    // The 401 points at the narrowed URL's own metadata, whose resource is that URL.
    const challenge = await fetch(todos, { method: 'POST' });
    expect(challenge.status).toBe(401);
    const prm = `${env.origin}/.well-known/oauth-protected-resource/mcp/x/basecamp.todos`;
    expect(challenge.headers.get('www-authenticate')).toContain(`resource_metadata="${prm}"`);
    const metadata = (await (await fetch(prm)).json()) as {
      resource: string;
      authorization_servers: string[];
    };
    expect(metadata.resource).toBe(todos);
    expect(metadata.authorization_servers).toEqual([env.origin]);

    // The whole flow with resource=<narrowed URL>: the authorization server accepts it.
    const session = await signIn({ url: todos, fake: env.fake }, ALICE);
    sessions.push(session);
    const listed = await names(session.client);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((name) => name.startsWith('basecamp_') && /todo/.test(name))).toBe(true);
    const refused = await session.client.callTool({ name: 'whoami', arguments: {} });
    expect(errorBody(refused)).toMatchObject({
      error_code: 'PERMISSION_DENIED',
      refused_by: "this connection's URL",
    });

    // Its token is bound to the server (<public>/mcp), so it serves the endpoint too.
    const token = session.oauth.tokens()?.access_token as string;
    const whole = await postToolsList(env.url, token);
    expect(whole.status).toBe(200);
  });

  it('serves a token issued for <public>/mcp on every narrowed URL', async () => {
    const session = await signIn(env, BOB);
    sessions.push(session);
    const all = await names(session.client);
    expect(all).toContain('whoami');
    const readonly = new Client({ name: 'narrowed', version: '1.0.0' });
    await readonly.connect(
      new StreamableHTTPClientTransport(new URL(`${env.origin}/mcp/readonly`), {
        authProvider: session.oauth,
      }),
    );
    try {
      const listed = await names(readonly);
      expect(listed.length).toBeLessThan(all.length);
      expect(listed).toContain('whoami');
      expect(listed).not.toContain('basecamp_create_todo');
    } finally {
      await readonly.close();
    }
    const token = session.oauth.tokens()?.access_token as string;
    expect((await postToolsList(`${env.origin}/mcp/x/self`, token)).status).toBe(200);
    const unknown = await postToolsList(`${env.origin}/mcp/x/jira`, token);
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain(
      'The toolsets are: basecamp, basecamp.',
    );
  });

  it('has metadata for narrowed paths only: no traversal, nothing malformed', async () => {
    const wellKnown = `${env.origin}/.well-known/oauth-protected-resource`;
    expect((await fetch(`${wellKnown}/mcp/readonly`)).status).toBe(200);
    expect(((await (await fetch(`${wellKnown}/mcp/readonly`)).json()) as { resource: string }).resource).toBe(
      `${env.origin}/mcp/readonly`,
    );
    for (const path of [
      '/mcp/x/../admin',
      '/mcp/x/',
      '/mcp/x/a,,b',
      '/mcp/admin',
      '/mcp/x/a/b/c',
      '/other',
    ]) {
      expect([path, (await fetch(`${wellKnown}${path}`)).status]).toEqual([path, 404]);
    }
  });

  it('accepts as resource indicators only this server’s narrowed URLs', () => {
    const resource = 'https://mcp.example.com/mcp';
    expect(isNarrowedResource(resource, 'https://mcp.example.com/mcp/x/basecamp.todos,forge')).toBe(true);
    expect(isNarrowedResource(resource, 'https://mcp.example.com/mcp/x/basecamp/readonly')).toBe(true);
    expect(isNarrowedResource(resource, 'https://mcp.example.com/mcp/readonly')).toBe(true);
    for (const indicator of [
      'https://mcp.example.com/mcp',
      'https://evil.example.com/mcp/x/basecamp',
      'http://mcp.example.com/mcp/x/basecamp',
      'https://mcp.example.com/mcp/x/basecamp?x=1',
      'https://mcp.example.com/mcp/x/basecamp#f',
      'https://mcp.example.com/mcp/admin',
      'https://mcp.example.com/mcp/x/../admin',
      'https://mcp.example.com/mcp/x/a,,b',
      'not a url',
    ]) {
      expect([indicator, isNarrowedResource(resource, indicator)]).toEqual([indicator, false]);
    }
  });
});
