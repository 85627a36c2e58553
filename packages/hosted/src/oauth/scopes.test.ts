// Issue #24 behaviour 3: scopes `mcp:read` and `mcp:write`, the consent page's read-only choice,
// refresh and step-up, against the real authorization server and a signed-in browser.
import { createHash, randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { IDS } from '@x/mcp-basecamp/testing';
import { decodeJwt, importJWK, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OidcPayload, oidcKeys } from '../oidc-adapter.js';
import { loadSigningKeys } from '../signing-keys.js';
import { SealedRecords } from '../store/sealed.js';
import type { BrowserPage, OAuthBrowser } from '../testing/oauth-browser.js';
import {
  ACCESS_WORDS,
  ALICE,
  BOB,
  type Hosted,
  REDIRECT,
  type SignedIn,
  signIn,
  startHosted,
  stepUp,
} from './fixture.js';

let env: Hosted;
let alice: SignedIn;
beforeAll(async () => {
  env = await startHosted();
  alice = await signIn(env, ALICE);
});
afterAll(async () => {
  await alice.close();
  await env.close();
});

interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  scope?: string;
  error?: string;
  error_description?: string;
}

async function register(metadata: Record<string, unknown> = {}): Promise<Response> {
  return fetch(new URL('/register', env.origin), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      ...metadata,
    }),
  });
}

async function registered(metadata: Record<string, unknown> = {}): Promise<string> {
  const response = await register(metadata);
  expect(response.status).toBe(201);
  return ((await response.json()) as { client_id: string }).client_id;
}

/** One authorization request of `clientId` (PKCE S256), and what redeems its code. */
function authorization(clientId: string, scope: string | undefined) {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL('/authorize', env.origin);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource: `${env.origin}/mcp`,
    ...(scope === undefined ? {} : { scope }),
  }).toString();
  return {
    url,
    redeem: async (code: string): Promise<TokenResponse> => {
      const response = await token({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: verifier,
        resource: `${env.origin}/mcp`,
      });
      expect(response.status).toBe(200);
      return (await response.json()) as TokenResponse;
    },
  };
}

function token(fields: Record<string, string>): Promise<Response> {
  return fetch(new URL('/token', env.origin), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

/** Where the browser ended: the client's redirect (code or error), or a page of ours. */
function outcome(browser: OAuthBrowser, page: BrowserPage) {
  const back = page.status === 0 ? browser.stoppedAt : undefined;
  return {
    page,
    code: back?.searchParams.get('code') ?? undefined,
    error: back?.searchParams.get('error') ?? undefined,
  };
}

/** Opens `url` in Alice's signed-in browser. */
async function open(url: URL) {
  alice.browser.stoppedAt = undefined;
  return outcome(alice.browser, await alice.browser.open(url));
}

/** Presses a consent page button. */
async function press(page: BrowserPage, decision: string, extra: Record<string, string> = {}) {
  alice.browser.stoppedAt = undefined;
  return outcome(alice.browser, await alice.browser.submit(page, { decision, ...extra }));
}

const scopeOf = (accessToken: string) => String(decodeJwt(accessToken).scope).split(' ').sort();

describe('the consent page', () => {
  it('lists in words what the client asks for and offers read only', async () => {
    // It may refresh (its grant types say so), as every client registered here may.
    const client = await registered();
    const { page, code } = await open(authorization(client, 'mcp:read mcp:write offline_access').url);
    expect(code).toBeUndefined();
    expect(page.status).toBe(200);
    expect(page.body).toContain(ACCESS_WORDS.read);
    expect(page.body).toContain(ACCESS_WORDS.write);
    expect(page.body).toContain(ACCESS_WORDS.offline);
    expect(page.body).toContain('value="approve">Allow read and write</button>');
    expect(page.body).toContain('value="read">Allow read only</button>');
    expect(page.body).toContain('value="deny">Deny</button>');
  });

  it('asks nothing about writing when the client asks to read only', async () => {
    const client = await registered();
    const { page } = await open(authorization(client, 'mcp:read').url);
    expect(page.body).toContain(ACCESS_WORDS.read);
    expect(page.body).not.toContain(ACCESS_WORDS.write);
    expect(page.body).not.toContain('value="read"');
    expect(page.body).toContain('value="approve">Allow</button>');
    const noRefresh = await registered({ grant_types: ['authorization_code'] });
    expect((await open(authorization(noRefresh, 'mcp:read').url)).page.body).not.toContain(
      ACCESS_WORDS.offline,
    );
  });

  it('offers read only to a client that asks for `mcp` alone (or for no scope)', async () => {
    for (const scope of ['mcp', undefined]) {
      const client = await registered();
      const flow = authorization(client, scope);
      const { page } = await open(flow.url);
      expect(page.body).toContain(ACCESS_WORDS.write);
      const read = await press(page, 'read');
      expect(read.code).toBeTruthy();
      const tokens = await flow.redeem(read.code as string);
      expect(scopeOf(tokens.access_token)).toEqual(['mcp:read']);
      expect(tokens.scope?.split(' ').sort()).toEqual(['mcp:read']);
    }
  });

  it('grants `mcp` with `mcp:read` and `mcp:write` to a client that asks for `mcp` and is allowed all', async () => {
    const client = await registered();
    const flow = authorization(client, 'mcp');
    const { code } = await press((await open(flow.url)).page, 'approve');
    expect(scopeOf((await flow.redeem(code as string)).access_token)).toEqual([
      'mcp',
      'mcp:read',
      'mcp:write',
    ]);
  });
});

describe('read only', () => {
  let client: string;
  let tokens: TokenResponse;
  beforeAll(async () => {
    client = await registered();
    const flow = authorization(client, 'mcp:read mcp:write offline_access');
    const { code } = await press((await open(flow.url)).page, 'read');
    tokens = await flow.redeem(code as string);
  });

  it('is what the token carries, with a refresh token as before (offline_access unchanged)', () => {
    expect(scopeOf(tokens.access_token)).toEqual(['mcp:read']);
    expect(tokens.refresh_token).toBeTruthy();
  });

  it('is kept by a refresh, which never widens it', async () => {
    const refreshed = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: client,
    });
    expect(refreshed.status).toBe(200);
    const body = (await refreshed.json()) as TokenResponse;
    expect(scopeOf(body.access_token)).toEqual(['mcp:read']);
    for (const scope of ['mcp:write', 'mcp', 'mcp:read mcp:write']) {
      const widened = await token({
        grant_type: 'refresh_token',
        refresh_token: body.refresh_token as string,
        client_id: client,
        scope,
      });
      expect(widened.status).toBe(400);
      expect(((await widened.json()) as TokenResponse).error).toBe('invalid_scope');
    }
    tokens = body;
  });

  it('is asked about again when the client steps up to `mcp:write`; then remembered', async () => {
    const stepUp = authorization(client, 'mcp:read mcp:write offline_access');
    const again = await open(stepUp.url);
    // The browser is signed in and consented for this client, but to read only: the page again.
    expect(again.code).toBeUndefined();
    expect(again.page.body).toContain('value="read">Allow read only</button>');
    const approved = await press(again.page, 'approve');
    expect(scopeOf((await stepUp.redeem(approved.code as string)).access_token)).toEqual([
      'mcp:read',
      'mcp:write',
    ]);
    // Approved now: the next authorization needs no page.
    const next = authorization(client, 'mcp:read mcp:write offline_access');
    const silent = await open(next.url);
    expect(silent.code).toBeTruthy();
    expect(scopeOf((await next.redeem(silent.code as string)).access_token)).toEqual([
      'mcp:read',
      'mcp:write',
    ]);
    // The earlier read-only refresh token still refreshes to read only.
    const refreshed = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: client,
    });
    expect(scopeOf(((await refreshed.json()) as TokenResponse).access_token)).toEqual(['mcp:read']);
  });
});

describe('hostile requests', () => {
  it('refuses `mcp:write` (and `mcp`) to a client registered for `mcp:read`; no scope means its own', async () => {
    const client = await registered({ scope: 'mcp:read offline_access' });
    for (const scope of ['mcp:read mcp:write', 'mcp:write', 'mcp']) {
      const refused = await open(authorization(client, scope).url);
      expect(refused.error).toBe('invalid_scope');
      expect(refused.code).toBeUndefined();
    }
    const flow = authorization(client, undefined);
    const { page } = await open(flow.url);
    expect(page.body).not.toContain(ACCESS_WORDS.write);
    // Even a forged `read`/`approve` cannot get more than the request (and registration) allow.
    const { code } = await press(page, 'approve', { scope: 'mcp:write' });
    const tokens = await flow.redeem(code as string);
    expect(scopeOf(tokens.access_token)).toEqual(['mcp:read']);
    const widened = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: client,
      scope: 'mcp:write',
    });
    expect(((await widened.json()) as TokenResponse).error).toBe('invalid_scope');
  });

  it('grants read only when the person chose it, whatever else the form carries', async () => {
    const client = await registered();
    const flow = authorization(client, 'mcp:read mcp:write');
    const { page } = await open(flow.url);
    const { code } = await press(page, 'read', { scope: 'mcp:write', access: 'write', granted: 'mcp:write' });
    expect(scopeOf((await flow.redeem(code as string)).access_token)).toEqual(['mcp:read']);
  });

  it('refuses a form carrying two decisions, or a foreign CSRF token, and grants nothing', async () => {
    const client = await registered();
    const flow = authorization(client, 'mcp:read mcp:write');
    const { page } = await open(flow.url);
    const action = new URL(/action="([^"]+)"/.exec(page.body)?.[1] as string, env.origin);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] as string;
    const cookie = alice.browser.cookies
      .filter((entry) => entry.origin === env.origin && action.pathname.startsWith(entry.path))
      .map((entry) => `${entry.name}=${entry.value}`)
      .join('; ');
    const post = (body: string) =>
      fetch(action, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: env.origin, cookie },
        body,
      });
    for (const body of [
      `csrf=${encodeURIComponent(csrf)}&decision=read&decision=approve`,
      `csrf=${encodeURIComponent(csrf)}&decision=approve&decision=read`,
      `csrf=${encodeURIComponent(csrf)}`,
    ]) {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(await response.text()).toContain('Choose one of the buttons');
    }
    const forged = await post('csrf=forged&decision=approve');
    expect(forged.status).toBe(403);
    // The page still works: nothing was decided by the refused posts.
    const { code } = await press(page, 'read');
    expect(scopeOf((await flow.redeem(code as string)).access_token)).toEqual(['mcp:read']);
  });

  it('never grants or shows an unknown scope, and refuses one at registration', async () => {
    const refused = await register({ scope: 'mcp:read mcp:admin' });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_client_metadata');
    const client = await registered();
    for (const [scope, expected] of [
      ['mcp:read mcp:admin', ['mcp:read']],
      // No MCP scope among them: the default, read and write.
      ['mcp:admin', ['mcp', 'mcp:read', 'mcp:write']],
    ] as const) {
      const flow = authorization(client, scope);
      const { page } = await open(flow.url);
      expect(page.body).not.toContain('mcp:admin');
      const { code } = await press(page, 'approve');
      const tokens = await flow.redeem(code as string);
      expect(scopeOf(tokens.access_token)).toEqual(expected);
      expect(tokens.scope).not.toContain('mcp:admin');
    }
    // A malformed scope is oidc-provider's invalid_scope, as before.
    expect((await open(authorization(client, 'mcp:read  mcp:write').url)).error).toBe('invalid_scope');
  });
});

describe('clients and consent from before scopes', () => {
  it('lets a client registered for `mcp` (as the SDK registered) ask for `mcp:read mcp:write`', async () => {
    const client = await registered({ scope: 'mcp offline_access' });
    const flow = authorization(client, 'mcp:read mcp:write offline_access');
    const { page } = await open(flow.url);
    const { code } = await press(page, 'read');
    expect(scopeOf((await flow.redeem(code as string)).access_token)).toEqual(['mcp:read']);
  });

  it('refreshes a grant from before scopes to `mcp` (read and write), never wider', async () => {
    const client = await registered();
    const flow = authorization(client, 'mcp');
    const { code } = await press((await open(flow.url)).page, 'approve');
    const tokens = await flow.redeem(code as string);
    // Rewrite the grant and its refresh token as this server wrote them before scopes.
    const records = new SealedRecords(env.store, env.keyring);
    const rewrite = async (key: string, change: (payload: OidcPayload) => OidcPayload) => {
      const entry = await records.get<OidcPayload>(key);
      if (!entry) throw new Error(`no record ${key}`);
      const ttl = entry.expiresAt === undefined ? {} : { ttlMs: entry.expiresAt - Date.now() };
      expect(await records.set(key, change(entry.value), { ifVersion: entry.version, ...ttl })).toBeDefined();
    };
    const grantId = String(decodeJwt(tokens.access_token).gid);
    await rewrite(oidcKeys.record('Grant', grantId), ({ rejected: _rejected, ...grant }) => ({
      ...grant,
      openid: { scope: 'mcp' },
      resources: Object.fromEntries(
        Object.keys(grant.resources as object).map((indicator) => [indicator, 'mcp']),
      ),
    }));
    await rewrite(oidcKeys.record('RefreshToken', tokens.refresh_token as string), (token) => ({
      ...token,
      scope: 'mcp',
    }));
    const widened = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: client,
      scope: 'mcp:write',
    });
    expect(((await widened.json()) as TokenResponse).error).toBe('invalid_scope');
    const refreshed = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: client,
    });
    expect(refreshed.status).toBe(200);
    const legacy = ((await refreshed.json()) as TokenResponse).access_token;
    expect(scopeOf(legacy)).toEqual(['mcp']);
    const call = await rpc(legacy, 'tools/call', COMPLETE);
    expect(call.status).toBe(200);
    expect((await resultOf(call)).isError).toBeFalsy();
  });

  it('takes a consent remembered before scopes as consent to read and write', async () => {
    const client = await registered();
    const user = String(decodeJwt((alice.oauth.tokens() as { access_token: string }).access_token).sub);
    await env.store.set(`consent:${user}:${client}`, String(Date.now()));
    const flow = authorization(client, 'mcp:read mcp:write');
    // No grant for this client in the browser session yet: the interaction runs, and finds the record.
    const { code, page } = await open(flow.url);
    expect(page.status).toBe(0);
    expect(scopeOf((await flow.redeem(code as string)).access_token)).toEqual(['mcp:read', 'mcp:write']);
  });
});

/** Every tool `client` is shown. */
async function listAll(client: Client) {
  const tools: Awaited<ReturnType<Client['listTools']>>['tools'] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/** One raw JSON-RPC POST to the MCP endpoint (or a narrowed one: `/mcp/readonly`) with `bearer`. */
function rpc(bearer: string, method: string, params: Record<string, unknown> = {}, url = env.url) {
  return fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${bearer}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
}

/** A JSON-RPC result from a JSON or an SSE answer. */
async function resultOf(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
  return (JSON.parse(json) as { result: Record<string, unknown> }).result;
}

const COMPLETE = { name: 'basecamp_complete_todo', arguments: { todo_id: IDS.assignedTodo } };
const writeTools = (tools: Awaited<ReturnType<typeof listAll>>) =>
  tools.filter((tool) => tool.annotations?.readOnlyHint !== true).map((tool) => tool.name);

describe('over MCP with a real client', () => {
  let bob: SignedIn;
  let readToken: string;
  beforeAll(async () => {
    bob = await signIn(env, BOB, { decision: 'read' });
    readToken = (bob.oauth.tokens() as { access_token: string }).access_token;
  });
  afterAll(async () => {
    await bob.close();
  });

  it('lists no write tool to a token without mcp:write, and every tool to one with it', async () => {
    expect(scopeOf(readToken)).toEqual(['mcp:read']);
    const read = await listAll(bob.client);
    expect(read.map((tool) => tool.name)).toEqual(expect.arrayContaining(['whoami', 'basecamp_list_todos']));
    expect(writeTools(read)).toEqual([]);
    const all = await listAll(alice.client);
    expect(writeTools(all)).toContain('basecamp_complete_todo');
    expect(all.length).toBeGreaterThan(read.length);
  });

  it('answers a write call with 403 insufficient_scope naming every scope it needs, in one challenge', async () => {
    const response = await rpc(readToken, 'tools/call', COMPLETE);
    expect(response.status).toBe(403);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer error="insufficient_scope", /);
    expect(challenge).toContain(' scope="mcp:read mcp:write"');
    expect(challenge).toContain(`resource_metadata="${env.origin}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenge.match(/Bearer /g)).toHaveLength(1);
    expect(challenge.match(/ scope=/g)).toHaveLength(1);
    // Nothing reached Basecamp; a read tool works with the same token.
    const read = await rpc(readToken, 'tools/call', { name: 'whoami', arguments: {} });
    expect(read.status).toBe(200);
    expect((await resultOf(read)).isError).toBeFalsy();
  });

  it('challenges on a narrowed URL with its own metadata; where the URL refuses too, a tool error', async () => {
    const narrowed = await rpc(readToken, 'tools/call', COMPLETE, `${env.origin}/mcp/x/basecamp.todos`);
    expect(narrowed.status).toBe(403);
    expect(narrowed.headers.get('www-authenticate')).toContain(
      `scope="mcp:read mcp:write", resource_metadata="${env.origin}/.well-known/oauth-protected-resource/mcp/x/basecamp.todos"`,
    );
    // `/mcp/readonly` refuses the write whatever the token: a step-up cannot help, so no 403.
    const readonly = await rpc(readToken, 'tools/call', COMPLETE, `${env.origin}/mcp/readonly`);
    expect(readonly.status).toBe(200);
    const result = await resultOf(readonly);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).toContain('PERMISSION_DENIED');
  });

  it('steps up: the client re-authorizes with mcp:write, the person is asked again, the write goes through', async () => {
    const { url, page } = await stepUp(env, bob, COMPLETE);
    expect(url.searchParams.get('scope')?.split(' ')).toEqual(
      expect.arrayContaining(['mcp:read', 'mcp:write']),
    );
    // Signed in and consented to read only: the consent page again, not a silent narrower token.
    expect(page.status).toBe(200);
    expect(page.body).toContain(ACCESS_WORDS.write);
    expect(scopeOf((bob.oauth.tokens() as { access_token: string }).access_token)).toEqual([
      'mcp:read',
      'mcp:write',
    ]);
    const after = new Client({ name: 'scopes-test', version: '1.0.0' });
    await after.connect(new StreamableHTTPClientTransport(new URL(env.url), { authProvider: bob.oauth }));
    try {
      expect(writeTools(await listAll(after))).toContain('basecamp_complete_todo');
      const result = await after.callTool(COMPLETE);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ id: IDS.assignedTodo, completed: true });
    } finally {
      await after.close();
    }
  });

  it('serves a token from before scopes (`mcp`) read and write', async () => {
    const [key] = await loadSigningKeys(env.store, env.keyring);
    const claims = decodeJwt((alice.oauth.tokens() as { access_token: string }).access_token);
    const legacy = await new SignJWT({ ...claims, scope: 'mcp' } satisfies JWTPayload)
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', ...(key?.kid ? { kid: key.kid } : {}) })
      .sign(await importJWK(key as never, 'ES256'));
    const list = await rpc(legacy, 'tools/list');
    expect(list.status).toBe(200);
    const names = ((await resultOf(list)).tools as Array<{ name: string }>).map((tool) => tool.name);
    expect(names).toContain('basecamp_complete_todo');
    const call = await rpc(legacy, 'tools/call', COMPLETE);
    expect(call.status).toBe(200);
    expect((await resultOf(call)).isError).toBeFalsy();
  });

  it('answers a token with no MCP scope 403 insufficient_scope asking for mcp:read', async () => {
    const [key] = await loadSigningKeys(env.store, env.keyring);
    const claims = decodeJwt(readToken);
    const none = await new SignJWT({ ...claims, scope: 'offline_access mcp:admin' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', ...(key?.kid ? { kid: key.kid } : {}) })
      .sign(await importJWK(key as never, 'ES256'));
    const response = await rpc(none, 'tools/list');
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toMatch(
      /^Bearer error="insufficient_scope", .*scope="mcp:read", resource_metadata="/,
    );
  });
});
