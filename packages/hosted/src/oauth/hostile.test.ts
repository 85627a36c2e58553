import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from '@x/mcp-core';
import {
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWTPayload,
  SignJWT,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError } from '../errors.js';
import { oidcKeys } from '../oidc-adapter.js';
import { loadSigningKeys } from '../signing-keys.js';
import { OAuthBrowser, TestOAuthClient } from '../testing/oauth-browser.js';
import {
  ALICE,
  ageConsumedRefreshToken,
  approve,
  BOB,
  type Hosted,
  REDIRECT,
  type SignedIn,
  signIn,
  startHosted,
} from './fixture.js';
import { parseRedirectSchemes } from './redirect-uris.js';

let env: Hosted;
let alice: SignedIn;
let token: string;
let claims: JWTPayload;
beforeAll(async () => {
  env = await startHosted();
  alice = await signIn(env, ALICE);
  token = (alice.oauth.tokens() as { access_token: string }).access_token;
  claims = decodeJwt(token);
});
afterAll(async () => {
  await alice.close();
  await env.close();
});

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

function mcp(bearer: string | undefined, url = env.url) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
    },
    body: initialize,
  });
}

async function forge(overrides: JWTPayload, options: { key?: 'ours' | 'foreign'; alg?: string } = {}) {
  const [ours] = await loadSigningKeys(env.store, env.keyring);
  let key: Parameters<SignJWT['sign']>[0];
  let kid = ours?.kid;
  if (options.key === 'foreign') {
    const pair = await generateKeyPair('ES256');
    key = pair.privateKey;
    kid = (await exportJWK(pair.publicKey)).kid ?? ours?.kid;
  } else {
    key = await importJWK(ours as never, 'ES256');
  }
  return new SignJWT({ ...claims, ...overrides })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', ...(kid ? { kid } : {}) })
    .sign(key);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('discovery and registration', () => {
  it('publishes RFC 8414 and OIDC metadata with the endpoints at the origin root', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const metadata = (await (await fetch(new URL(path, env.origin))).json()) as Record<string, unknown>;
      expect(metadata).toMatchObject({
        issuer: env.origin,
        authorization_endpoint: `${env.origin}/authorize`,
        token_endpoint: `${env.origin}/token`,
        registration_endpoint: `${env.origin}/register`,
        revocation_endpoint: `${env.origin}/revoke`,
        jwks_uri: `${env.origin}/jwks`,
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
      });
      expect(metadata.scopes_supported).toContain('mcp');
      // Every advertised endpoint is one this server routes.
      const endpoints = Object.entries(metadata).filter(
        ([key]) => key.endsWith('_endpoint') || key === 'jwks_uri',
      );
      for (const [, value] of endpoints) {
        expect(['/authorize', '/token', '/register', '/revoke', '/jwks']).toContain(
          new URL(String(value)).pathname,
        );
      }
      expect(metadata.token_endpoint_auth_methods_supported).toEqual(
        expect.arrayContaining(['none', 'client_secret_post']),
      );
    }
  });

  it('serves protected resource metadata at both well-known paths', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const response = await fetch(new URL(path, env.origin));
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        resource: `${env.origin}/mcp`,
        authorization_servers: [env.origin],
        scopes_supported: ['mcp:read', 'mcp:write'],
      });
    }
  });

  it('challenges an unauthenticated MCP request with resource_metadata and scope', async () => {
    const response = await mcp(undefined);
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${env.origin}/.well-known/oauth-protected-resource/mcp"`);
    expect(challenge).toContain('scope="mcp:read mcp:write"');
  });

  it('registers Claude’s confidential body and a public loopback client (RFC 7591/7592)', async () => {
    const claude = await fetch(new URL('/register', env.origin), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        client_name: 'Claude',
      }),
    });
    expect(claude.status).toBe(201);
    const confidential = (await claude.json()) as Record<string, unknown>;
    expect(confidential.client_secret).toEqual(expect.any(String));
    expect(confidential.registration_client_uri).toMatch(new RegExp(`^${env.origin}/register/`));
    expect(confidential.grant_types).toContain('refresh_token');

    const cli = await fetch(new URL('/register', env.origin), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: ['http://127.0.0.1:33418/callback'],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(cli.status).toBe(201);
    const pub = (await cli.json()) as Record<string, unknown>;
    expect(pub.client_secret).toBeUndefined();
    expect(pub.token_endpoint_auth_method).toBe('none');
    expect(pub.grant_types).toContain('refresh_token');
  });

  it('refuses redirect URIs outside the host policy', async () => {
    for (const uri of [
      'https://evil.example/cb',
      'http://claude.ai/api/mcp/auth_callback',
      'https://claude.ai.evil.example/cb',
    ]) {
      const response = await fetch(new URL('/register', env.origin), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [uri], token_endpoint_auth_method: 'none' }),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe('invalid_redirect_uri');
    }
  });
});

describe('the redirect URIs real clients register (docs/clients.md)', () => {
  it('accepts VS Code and Cursor as they register; refuses a private-use scheme and logs what would allow it', async () => {
    const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (message, fields) => {
        warnings.push({ message, ...(fields ? { fields } : {}) });
      },
      error: () => undefined,
      child: () => logger,
    };
    const own = await startHosted({ logger });
    try {
      const register = (body: Record<string, unknown>) =>
        fetch(new URL('/register', own.origin), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ token_endpoint_auth_method: 'none', ...body }),
        });
      // VS Code's dynamic registration, as its source sends it.
      const vscode = await register({
        client_name: 'Visual Studio Code',
        application_type: 'native',
        redirect_uris: [
          'https://insiders.vscode.dev/redirect',
          'https://vscode.dev/redirect',
          'http://127.0.0.1/',
          'http://127.0.0.1:33418/',
        ],
      });
      expect(vscode.status).toBe(201);
      // Cursor's web and agents callback, and its desktop loopback one.
      const cursorWeb = await register({
        redirect_uris: ['https://www.cursor.com/agents/mcp/oauth/callback', 'http://localhost:8787/callback'],
      });
      expect(cursorWeb.status).toBe(201);
      // ChatGPT's per-connector callback.
      expect(
        (await register({ redirect_uris: ['https://chatgpt.com/connector/oauth/c0ffee12'] })).status,
      ).toBe(201);
      expect(warnings).toEqual([]);
      // Its private-use scheme is neither localhost nor HTTPS, as MCP asks of every redirect URI.
      const cursorApp = await register({
        application_type: 'native',
        redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback'],
      });
      expect(cursorApp.status).toBe(400);
      expect(((await cursorApp.json()) as { error: string }).error).toBe('invalid_redirect_uri');
      expect(warnings).toEqual([
        {
          message: 'client registration refused: redirect URI not allowed',
          fields: {
            redirect_uri: 'cursor://anysphere.cursor-mcp/oauth/callback',
            allowed:
              'HTTPS to a host of MCP_OAUTH_REDIRECT_HOSTS, a loopback address, or (native clients) a scheme of MCP_OAUTH_REDIRECT_SCHEMES',
          },
        },
      ]);
    } finally {
      await own.close();
    }
  });
});

describe('native clients: loopback on any port, private-use schemes only where listed (decision 0026)', () => {
  const register = (origin: string, body: Record<string, unknown>) =>
    fetch(new URL('/register', origin), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token_endpoint_auth_method: 'none', ...body }),
    });
  const registered = async (origin: string, body: Record<string, unknown>) => {
    const response = await register(origin, body);
    expect(response.status, JSON.stringify(body)).toBe(201);
    return (await response.json()) as { client_id: string; application_type: string };
  };
  /**
   * Where `/authorize` with this redirect URI goes: `consent` (on to our interaction, the URI
   * matched) or `refused` (oidc-provider's error page: it never redirects to an unmatched URI).
   */
  const authorize = async (origin: string, clientId: string, redirectUri: string) => {
    const url = new URL('/authorize', origin);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: createHash('sha256').update(randomBytes(32)).digest('base64url'),
      code_challenge_method: 'S256',
      resource: `${origin}/mcp`,
      scope: 'mcp',
    }).toString();
    const response = await fetch(url, { redirect: 'manual' });
    const location = response.headers.get('location') ?? '';
    const body = await response.text();
    if (response.status === 303 && new URL(location, origin).pathname.startsWith('/interaction/')) {
      return 'consent';
    }
    expect(location, `${redirectUri} must not be redirected to`).toBe('');
    expect(response.status).toBe(400);
    expect(body).toContain('redirect_uri');
    return 'refused';
  };

  it('a client registering only http://127.0.0.1/callback (Claude Code, Goose) is native and signs in on any port of that URI, nowhere else', async () => {
    const client = await registered(env.origin, {
      client_name: 'Claude Code',
      redirect_uris: ['http://127.0.0.1/callback'],
    });
    expect(client.application_type).toBe('native');
    expect(await authorize(env.origin, client.client_id, 'http://127.0.0.1:53682/callback')).toBe('consent');
    expect(await authorize(env.origin, client.client_id, 'http://127.0.0.1/callback')).toBe('consent');
    // A loopback client never gets a redirect off the loopback URI it registered.
    for (const uri of [
      'http://localhost:53682/callback',
      'http://127.0.0.1:53682/other',
      'http://127.0.0.1:53682/callback/../other',
      'https://127.0.0.1:53682/callback',
      'http://evil.example:53682/callback',
      'http://127.0.0.1.evil.example:53682/callback',
      'http://evil.example/callback#@127.0.0.1:53682/callback',
      'http://127.0.0.1:53682@evil.example/callback',
      'cursor://127.0.0.1:53682/callback',
    ]) {
      expect(await authorize(env.origin, client.client_id, uri), uri).toBe('refused');
    }
    // localhost without a port (Goose's CIMD document) works the same on its own host name.
    const goose = await registered(env.origin, { redirect_uris: ['http://localhost/oauth_callback'] });
    expect(goose.application_type).toBe('native');
    expect(await authorize(env.origin, goose.client_id, 'http://localhost:41007/oauth_callback')).toBe(
      'consent',
    );
    expect(await authorize(env.origin, goose.client_id, 'http://127.0.0.1:41007/oauth_callback')).toBe(
      'refused',
    );
  });

  it('a web client with a loopback callback keeps its exact port (Cursor), and the whole sign-in works on another port for a native one', async () => {
    const cursor = await registered(env.origin, {
      redirect_uris: ['https://www.cursor.com/agents/mcp/oauth/callback', 'http://localhost:8787/callback'],
    });
    expect(cursor.application_type).toBe('web');
    expect(await authorize(env.origin, cursor.client_id, 'http://localhost:8787/callback')).toBe('consent');
    expect(await authorize(env.origin, cursor.client_id, 'http://localhost:9999/callback')).toBe('refused');
    // The SDK client registers http://127.0.0.1/callback and listens on :53682: the whole flow.
    const native = new TestOAuthClient('http://127.0.0.1:53682/callback', 'none', 'Native CLI');
    native.registeredRedirectUris = ['http://127.0.0.1/callback'];
    const signedIn = await signIn(env, BOB, {
      oauth: native,
      redirect: 'http://127.0.0.1:53682/callback',
    });
    try {
      expect((await signedIn.client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await signedIn.close();
    }
  });

  it('private-use schemes: refused by default; with MCP_OAUTH_REDIRECT_SCHEMES, for native clients and exact URIs only', async () => {
    const cursorApp = ['cursor://anysphere.cursor-mcp/oauth/callback'];
    // Default: none (MCP asks for HTTPS or loopback).
    const refused = await register(env.origin, { application_type: 'native', redirect_uris: cursorApp });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error_description: string }).error_description).toContain(
      'MCP_OAUTH_REDIRECT_SCHEMES',
    );
    const own = await startHosted({ redirectSchemes: ['cursor', 'com.example.app'] });
    try {
      // A client with only such callbacks can be nothing but native: it is made one (Cursor's older builds).
      const bare = await registered(own.origin, { redirect_uris: cursorApp });
      expect(bare.application_type).toBe('native');
      // A web client (an HTTPS callback beside it, no application_type) may not use one.
      const web = await register(own.origin, {
        redirect_uris: ['https://www.cursor.com/agents/mcp/oauth/callback', ...cursorApp],
      });
      expect(web.status).toBe(400);
      expect(((await web.json()) as { error_description: string }).error_description).toContain(
        'native clients only',
      );
      // A native one may (Cursor's newer three callbacks, sent as native).
      await registered(own.origin, {
        application_type: 'native',
        redirect_uris: [
          ...cursorApp,
          'https://www.cursor.com/agents/mcp/oauth/callback',
          'http://localhost:8787/callback',
        ],
      });
      // A scheme not listed stays refused.
      expect(
        (await register(own.origin, { application_type: 'native', redirect_uris: ['vscode://x/cb'] })).status,
      ).toBe(400);
      const client = await registered(own.origin, { application_type: 'native', redirect_uris: cursorApp });
      expect(await authorize(own.origin, client.client_id, cursorApp[0] as string)).toBe('consent');
      // No other URI of its scheme, nor another listed scheme: one app cannot take another's callback.
      for (const uri of [
        'cursor://anysphere.cursor-mcp/oauth/other',
        'cursor://evil.example/oauth/callback',
        'com.example.app:/oauth/callback',
        'http://127.0.0.1:53682/oauth/callback',
      ]) {
        expect(await authorize(own.origin, client.client_id, uri), uri).toBe('refused');
      }
      // And a reverse-domain one (RFC 8252 §7.1) registered by another app is its own.
      const other = await registered(own.origin, {
        application_type: 'native',
        redirect_uris: ['com.example.app:/oauth2redirect'],
      });
      expect(await authorize(own.origin, other.client_id, cursorApp[0] as string)).toBe('refused');
      expect(await authorize(own.origin, other.client_id, 'com.example.app:/oauth2redirect')).toBe('consent');
    } finally {
      await own.close();
    }
  });

  it('MCP_OAUTH_REDIRECT_SCHEMES refuses a web scheme or a malformed name', () => {
    for (const name of ['https', 'http', 'javascript', 'data', 'file', '1app', 'a b', 'cursor:/x']) {
      expect(() => parseRedirectSchemes([name]), name).toThrow(/MCP_OAUTH_REDIRECT_SCHEMES/);
    }
    expect(parseRedirectSchemes(['Cursor', 'com.example.app:'])).toEqual(['cursor', 'com.example.app']);
  });
});

describe('registration flood', () => {
  it('answers 429 with Retry-After past the per-address limit', async () => {
    const limited = await startHosted({ registrationLimit: { requests: 2, windowMs: 60_000 } });
    try {
      const register = () =>
        fetch(new URL('/register', limited.origin), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
        });
      expect((await register()).status).toBe(201);
      expect((await register()).status).toBe(201);
      const refused = await register();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('60');
    } finally {
      await limited.close();
    }
  });
});

describe('registered clients expire when unused', () => {
  it('keeps a client for clientTtl, renewed when it is used', async () => {
    const short = await startHosted({ clientTtl: 3600 });
    try {
      const registered = (await (
        await fetch(new URL('/register', short.origin), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
        })
      ).json()) as { client_id: string };
      const key = oidcKeys.record('Client', registered.client_id);
      const first = await short.store.get(key);
      expect(first?.expiresAt).toBeGreaterThan(Date.now() + 3_500_000);
      expect(first?.expiresAt).toBeLessThanOrEqual(Date.now() + 3_600_000);
      // Pretend it was written long ago; the next use renews it.
      await short.store.set(key, first?.value as string, { ttlMs: 1_000_000 });
      const authorize = new URL('/authorize', short.origin);
      authorize.search = new URLSearchParams({
        response_type: 'code',
        client_id: registered.client_id,
        redirect_uri: REDIRECT,
      }).toString();
      await fetch(authorize, { redirect: 'manual' });
      expect((await short.store.get(key))?.expiresAt).toBeGreaterThan(Date.now() + 3_500_000);
    } finally {
      await short.close();
    }
  });
});

describe('the resource server refuses foreign tokens', () => {
  it('accepts its own token (control)', async () => {
    expect((await mcp(token)).status).toBe(200);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(claims).toMatchObject({
      aud: `${env.origin}/mcp`,
      iss: env.origin,
      scope: 'mcp:read mcp:write',
      sub: 'basecamp:101',
    });
  });

  it.each([
    ['a wrong audience', { aud: 'https://other.example/mcp' }],
    ['a wrong issuer', { iss: 'https://evil.example' }],
    [
      'an expired token',
      { exp: Math.floor(Date.now() / 1000) - 3600, iat: Math.floor(Date.now() / 1000) - 7200 },
    ],
    ['a token without the mcp scope', { scope: 'other' }],
  ])('refuses %s, signed with our own key', async (_name, overrides) => {
    const response = await mcp(await forge(overrides));
    expect([401, 403]).toContain(response.status);
    expect(response.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it('refuses a token signed by another key', async () => {
    expect((await mcp(await forge({}, { key: 'foreign' }))).status).toBe(401);
  });

  it('refuses alg none', async () => {
    const unsigned = `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(claims)}.`;
    expect((await mcp(unsigned)).status).toBe(401);
  });

  it('refuses a token in the query string', async () => {
    const url = new URL(env.url);
    url.searchParams.set('access_token', token);
    const response = await mcp(undefined, url.href);
    expect(response.status).toBe(400);
  });

  it('refuses the upstream Basecamp token as a bearer', async () => {
    expect((await mcp(env.fake.accessToken)).status).toBe(401);
  });

  it('answers 503 with Retry-After, never 401, while the store is unreachable', async () => {
    // The user's connection changes (its copy in memory is dropped), then the store stops
    // answering: the request check cannot read it and must not guess.
    const user = String(claims.sub);
    const connection = await env.hosted.connections.get(user);
    if (!connection) throw new Error('no connection');
    await env.hosted.connections.save(user, { ...connection, updatedAt: Date.now() });
    const get = env.store.get.bind(env.store);
    const getMany = env.store.getMany.bind(env.store);
    const outage = async (): Promise<never> => {
      throw new StoreUnavailableError('test outage');
    };
    env.store.get = outage;
    env.store.getMany = outage;
    try {
      const response = await mcp(token);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
    } finally {
      env.store.get = get;
      env.store.getMany = getMany;
    }
    expect((await mcp(token)).status).toBe(200);
  });
});

describe('the verified-token cache never stands in for a verification', () => {
  const swap = (text: string, at: number) =>
    `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;

  it('refuses tokens that share a prefix with a cached one or differ in one character', async () => {
    expect((await mcp(token)).status).toBe(200);
    const cached = env.hosted.resourceServer.verifiedTokens;
    expect(cached).toBeGreaterThan(0);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const variants = {
      'one signature character changed': `${header}.${payload}.${swap(signature, 20)}`,
      'one payload character changed': `${header}.${swap(payload, 30)}.${signature}`,
      'claims changed, signature kept': `${header}.${b64({ ...claims, sub: 'basecamp:202' })}.${signature}`,
      'the signature cut short': token.slice(0, -3),
      'characters appended': `${token}AAAA`,
      'a fourth part appended': `${token}.${signature}`,
      'the header and payload alone': `${header}.${payload}.`,
    };
    for (const [name, variant] of Object.entries(variants)) {
      const response = await mcp(variant);
      expect({ name, status: response.status }).toEqual({ name, status: 401 });
      expect(response.headers.get('www-authenticate')).toContain('invalid_token');
    }
    // Refused tokens never enter the cache; the real one is still served (from it).
    expect(env.hosted.resourceServer.verifiedTokens).toBe(cached);
    expect((await mcp(token)).status).toBe(200);
    expect(env.hosted.resourceServer.verifiedTokens).toBe(cached);
  });

  it('refuses another audience signed with our key, with otherwise the claims of a cached token', async () => {
    expect((await mcp(token)).status).toBe(200);
    const cached = env.hosted.resourceServer.verifiedTokens;
    for (const aud of [
      'https://other.example/mcp',
      env.origin,
      `${env.origin}/mcp/`,
      [`${env.origin}/other`],
    ]) {
      const response = await mcp(await forge({ aud }));
      expect(response.status).toBe(401);
    }
    expect(env.hosted.resourceServer.verifiedTokens).toBe(cached);
  });

  it('refuses a cached token once it has expired', async () => {
    expect((await mcp(token)).status).toBe(200);
    const exp = (claims.exp as number) * 1000;
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(exp - 5_000);
      expect((await mcp(token)).status).toBe(200);
      // Past exp but within the 30 s clock tolerance of a fresh verification: still refused.
      vi.setSystemTime(exp + 1_000);
      const expired = await mcp(token);
      expect(expired.status).toBe(401);
      expect(expired.headers.get('www-authenticate')).toContain('invalid_token');
      vi.setSystemTime(exp + 3_600_000);
      expect((await mcp(token)).status).toBe(401);
    } finally {
      vi.useRealTimers();
    }
    expect((await mcp(token)).status).toBe(200);
  });
});

describe('the authorization code flow refuses tampering', () => {
  const verifier = () => randomBytes(32).toString('base64url');
  const challenge = (value: string) => createHash('sha256').update(value).digest('base64url');

  async function register(): Promise<string> {
    const response = await fetch(new URL('/register', env.origin), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        client_name: 'Raw',
      }),
    });
    return ((await response.json()) as { client_id: string }).client_id;
  }

  async function code(
    clientId: string,
    pkce: string,
    browser = new OAuthBrowser({ stopAt: (url) => url.href.startsWith(REDIRECT) }),
  ) {
    const authorize = new URL('/authorize', env.origin);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge(pkce),
      code_challenge_method: 'S256',
      state: 'client-state',
      resource: `${env.origin}/mcp`,
      scope: 'mcp',
    }).toString();
    env.fake.signInAs(ALICE);
    const page = await approve(browser, await browser.open(authorize));
    expect(page.url.searchParams.get('iss')).toBe(env.origin);
    expect(page.url.searchParams.get('state')).toBe('client-state');
    return page.url.searchParams.get('code') as string;
  }

  const exchange = (clientId: string, authorizationCode: string, pkce: string) =>
    fetch(new URL('/token', env.origin), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: clientId,
        code: authorizationCode,
        redirect_uri: REDIRECT,
        code_verifier: pkce,
        resource: `${env.origin}/mcp`,
      }),
    });

  it('refuses an authorization request without PKCE', async () => {
    const clientId = await register();
    const authorize = new URL('/authorize', env.origin);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
    }).toString();
    const browser = new OAuthBrowser({ stopAt: (url) => url.href.startsWith(REDIRECT) });
    const page = await browser.open(authorize);
    expect(page.url.searchParams.get('error')).toBe('invalid_request');
    expect(page.url.searchParams.get('code')).toBeNull();
  });

  it('refuses a wrong PKCE verifier', async () => {
    const clientId = await register();
    const pkce = verifier();
    const response = await exchange(clientId, await code(clientId, pkce), verifier());
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('refuses a reused code and revokes what it issued', async () => {
    const clientId = await register();
    const pkce = verifier();
    const authorizationCode = await code(clientId, pkce);
    const first = await exchange(clientId, authorizationCode, pkce);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toContain('no-store');
    const issued = (await first.json()) as { access_token: string; refresh_token: string };
    expect((await mcp(issued.access_token)).status).toBe(200);

    const second = await exchange(clientId, authorizationCode, pkce);
    expect(second.status).toBe(400);
    expect(((await second.json()) as { error: string }).error).toBe('invalid_grant');
    // The grant is gone: the first access token and refresh token stop working.
    expect((await mcp(issued.access_token)).status).toBe(401);
    const refresh = await fetch(new URL('/token', env.origin), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: clientId,
        refresh_token: issued.refresh_token,
      }),
    });
    expect(refresh.status).toBe(400);
  });

  it('rotates a public client’s refresh token, and a replayed one revokes the grant', async () => {
    const clientId = await register();
    const pkce = verifier();
    const issued = (await (await exchange(clientId, await code(clientId, pkce), pkce)).json()) as {
      refresh_token: string;
    };
    const refresh = (refreshToken: string) =>
      fetch(new URL('/token', env.origin), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          client_id: clientId,
          refresh_token: refreshToken,
        }),
      });
    const rotated = (await (await refresh(issued.refresh_token)).json()) as {
      access_token: string;
      refresh_token: string;
    };
    expect(rotated.refresh_token).toBeTruthy();
    expect(rotated.refresh_token).not.toBe(issued.refresh_token);
    expect((await mcp(rotated.access_token)).status).toBe(200);
    // Sent again at once (a retry, a second tab): refused, and the new tokens live.
    expect((await refresh(issued.refresh_token)).status).toBe(400);
    expect((await mcp(rotated.access_token)).status).toBe(200);
    // Sent again later: a replay. The grant is revoked, the new tokens with it.
    await ageConsumedRefreshToken(env.store, env.keyring, issued.refresh_token);
    expect((await refresh(issued.refresh_token)).status).toBe(400);
    expect((await mcp(rotated.access_token)).status).toBe(401);
    expect((await refresh(rotated.refresh_token)).status).toBe(400);
  });

  it('lets exactly one of two concurrent redemptions of a code win; the other is invalid_grant, not 500', async () => {
    const clientId = await register();
    const pkce = verifier();
    const authorizationCode = await code(clientId, pkce);
    // Both requests read the unused code before either marks it used (as two replicas can).
    const codeKey = oidcKeys.record('AuthorizationCode', authorizationCode);
    const original = env.store.get.bind(env.store);
    let arrived = 0;
    let release: () => void = () => {};
    const bothRead = new Promise<void>((resolve) => {
      release = resolve;
    });
    env.store.get = async (key: string) => {
      const entry = await original(key);
      if (key === codeKey && arrived < 2) {
        arrived++;
        if (arrived === 2) release();
        await Promise.race([bothRead, new Promise((resolve) => setTimeout(resolve, 2000))]);
      }
      return entry;
    };
    let answers: Response[];
    try {
      answers = await Promise.all([
        exchange(clientId, authorizationCode, pkce),
        exchange(clientId, authorizationCode, pkce),
      ]);
    } finally {
      env.store.get = original;
    }
    expect(arrived).toBe(2);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    const loser = answers.find((answer) => answer.status === 400) as Response;
    expect(((await loser.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('answers 503 with Retry-After on the token endpoint while the store is unreachable', async () => {
    const clientId = await register();
    const pkce = verifier();
    const authorizationCode = await code(clientId, pkce);
    const original = env.store.get.bind(env.store);
    env.store.get = async () => {
      throw new StoreUnavailableError('test outage');
    };
    try {
      const response = await exchange(clientId, authorizationCode, pkce);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
    } finally {
      env.store.get = original;
    }
  });
});
