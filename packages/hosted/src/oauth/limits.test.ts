import { createHash, randomBytes } from 'node:crypto';
import { get, type IncomingMessage } from 'node:http';
import { ConfigError } from '@x/mcp-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, type Hosted, REDIRECT, signIn, startHosted } from './fixture.js';
import { clientAddress, limitFromEnv, parseTrustProxy, RateLimiter } from './limits.js';

/** A dynamically registered public client of `env`. */
async function register(env: Hosted): Promise<string> {
  const response = await fetch(new URL('/register', env.origin), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { client_id: string }).client_id;
}

/** An anonymous, well-formed authorization request (what a crawler or a flood sends). */
function authorizeUrl(env: Hosted, clientId: string): URL {
  const url = new URL('/authorize', env.origin);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'mcp',
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(randomBytes(32)).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  return url;
}

const authorize = (url: URL, headers: Record<string, string> = {}) =>
  fetch(url, { redirect: 'manual', headers });

/**
 * One GET on a fresh connection (no keep-alive: 2,000 requests through a pool on a loaded
 * machine would race the server's keep-alive timeout), resolving with its status and headers.
 */
function getOnce(url: URL): Promise<{ status: number; location: string | undefined; cookies: string[] }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          location: response.headers.location,
          cookies: response.headers['set-cookie'] ?? [],
        }),
      );
    }).on('error', reject);
  });
}

async function storeSize(env: Hosted): Promise<{ keys: string[]; bytes: number }> {
  const keys = await env.store.keys('');
  let bytes = 0;
  for (const key of keys) bytes += (await env.store.get(key))?.value.length ?? 0;
  return { keys, bytes };
}

describe('the anonymous /authorize flood', () => {
  let env: Hosted;
  beforeAll(async () => {
    // No limit on /authorize here: every request reaches oidc-provider, and still writes nothing.
    env = await startHosted({ rateLimits: { authorize: false } });
  });
  afterAll(() => env.close());

  it('keeps the store as it was through 2,000 anonymous requests, and a sign-in afterwards writes few records', async () => {
    const clientId = await register(env);
    const before = await storeSize(env);
    for (let batch = 0; batch < 40; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => getOnce(authorizeUrl(env, clientId))),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(303);
        expect(answer.location).toMatch(/^\/interaction\/[\w-]+$/);
        expect(answer.cookies.some((line) => line.startsWith('xmcp-interaction='))).toBe(true);
      }
    }
    const after = await storeSize(env);
    const added = after.keys.filter((key) => !before.keys.includes(key));
    // At most the client's daily "used" marker: no Interaction, no Session per request.
    expect(added.filter((key) => !key.startsWith('client-used:'))).toEqual([]);
    expect(after.bytes - before.bytes).toBeLessThan(1_000);

    const alice = await signIn(env, ALICE);
    try {
      expect((await alice.client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await alice.close();
    }
    const signedIn = await storeSize(env);
    // Her connection, user record, grant, tokens, session and their indexes: a few dozen at most.
    expect(signedIn.keys.length - after.keys.length).toBeLessThan(40);
    expect(signedIn.keys.some((key) => key.startsWith('oidc:Interaction:'))).toBe(false);
    // 2,000 requests take 5 to 20 s on a 2-core machine, minutes when it is very busy: a bound
    // for the work, not a timing assertion.
  }, 300_000);

  it('refuses an authorization request too large for its cookie, and stores nothing for it', async () => {
    const clientId = await register(env);
    const before = await storeSize(env);
    const url = authorizeUrl(env, clientId);
    url.searchParams.set('state', 'x'.repeat(4_000));
    const answer = await authorize(url);
    const location = new URL(answer.headers.get('location') ?? '/', env.origin);
    expect(location.href.startsWith(REDIRECT)).toBe(true);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('error_description')).toBe('the authorization request is too large');
    const added = (await storeSize(env)).keys.filter((key) => !before.keys.includes(key));
    expect(added.filter((key) => !key.startsWith('client-used:'))).toEqual([]);
  });

  it('refuses a forged or foreign interaction cookie', async () => {
    const clientId = await register(env);
    const first = await authorize(authorizeUrl(env, clientId));
    const second = await authorize(authorizeUrl(env, clientId));
    const cookies = (answer: Response) =>
      answer.headers
        .getSetCookie()
        .map((line) => line.split(';')[0] as string)
        .join('; ');
    const firstPath = first.headers.get('location') as string;
    // The first interaction's page with the second one's cookies: the sealed payload names the
    // other uid, and oidc-provider's own cookie names the other interaction.
    const mixed = await fetch(new URL(firstPath, env.origin), { headers: { cookie: cookies(second) } });
    expect(mixed.status).toBe(400);
    const tampered = cookies(first).replace(/xmcp-interaction=([\w-]+)/, (_all, value: string) => {
      const flipped = value.slice(0, -2) + (value.endsWith('AA') ? 'BB' : 'AA');
      return `xmcp-interaction=${flipped}`;
    });
    expect((await fetch(new URL(firstPath, env.origin), { headers: { cookie: tampered } })).status).toBe(400);
    const genuine = await fetch(new URL(firstPath, env.origin), { headers: { cookie: cookies(first) } });
    expect(genuine.status).toBe(200);
    expect(await genuine.text()).toContain('name="decision"');
  });
});

describe('per-address limits', () => {
  let env: Hosted;
  let proxied: Hosted;
  const tight = { requests: 3, windowMs: 3_600_000 };
  beforeAll(async () => {
    env = await startHosted({ rateLimits: { authorize: tight, token: tight, interaction: tight } });
    proxied = await startHosted({ rateLimits: { authorize: tight }, trustProxy: { hops: 1 } });
  });
  afterAll(async () => {
    await env.close();
    await proxied.close();
  });

  it('answers /authorize past its limit with 429, Retry-After and an OAuth error, whatever X-Forwarded-For says', async () => {
    const clientId = await register(env);
    for (let i = 0; i < 3; i++) {
      // A client that reaches the app port directly picks a new X-Forwarded-For each time.
      expect(
        (await authorize(authorizeUrl(env, clientId), { 'x-forwarded-for': `10.0.0.${i}` })).status,
      ).toBe(303);
    }
    const refused = await authorize(authorizeUrl(env, clientId), { 'x-forwarded-for': '10.9.9.9' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(await refused.json()).toMatchObject({ error: 'temporarily_unavailable' });
  });

  it('limits /token with an OAuth error and /interaction with a page', async () => {
    const token = () =>
      fetch(new URL('/token', env.origin), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=authorization_code&code=nothing&client_id=nobody',
      });
    for (let i = 0; i < 3; i++) expect((await token()).status).not.toBe(429);
    const refused = await token();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: 'temporarily_unavailable' });

    const page = () => fetch(new URL('/interaction/aaaaaaaaaaaaaaaaaaaa', env.origin));
    for (let i = 0; i < 3; i++) expect((await page()).status).toBe(400);
    const limited = await page();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await limited.text()).toContain('Too many sign-in requests');
  });

  it('with one trusted proxy hop, counts the address the proxy saw', async () => {
    const clientId = await register(proxied);
    for (let i = 0; i < 3; i++) {
      expect(
        (await authorize(authorizeUrl(proxied, clientId), { 'x-forwarded-for': '203.0.113.7' })).status,
      ).toBe(303);
    }
    // The same client prepending addresses of its own stays in its bucket…
    const forged = await authorize(authorizeUrl(proxied, clientId), {
      'x-forwarded-for': '198.51.100.1, 203.0.113.7',
    });
    expect(forged.status).toBe(429);
    // …and another client behind the same proxy has its own.
    expect(
      (await authorize(authorizeUrl(proxied, clientId), { 'x-forwarded-for': '203.0.113.8' })).status,
    ).toBe(303);
  });
});

describe('clientAddress', () => {
  const request = (socket: string, forwarded?: string) =>
    ({
      socket: { remoteAddress: socket },
      headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
    }) as unknown as IncomingMessage;

  it('uses the socket address unless proxies are trusted', () => {
    expect(clientAddress(request('::ffff:127.0.0.1', '1.2.3.4'), parseTrustProxy(undefined))).toBe(
      '127.0.0.1',
    );
    expect(clientAddress(request('10.0.0.2', '1.2.3.4'), parseTrustProxy('0'))).toBe('10.0.0.2');
  });

  it('takes the entry `hops` from the right, never one further left', () => {
    const twoHops = parseTrustProxy('2');
    expect(clientAddress(request('10.0.0.2', '6.6.6.6, 1.2.3.4, 10.0.0.1'), twoHops)).toBe('1.2.3.4');
    expect(clientAddress(request('10.0.0.2', '1.2.3.4'), parseTrustProxy('1'))).toBe('1.2.3.4');
    // Fewer entries than hops: the leftmost there is.
    expect(clientAddress(request('10.0.0.2'), twoHops)).toBe('10.0.0.2');
    expect(clientAddress(request('10.0.0.2', '[2001:db8::1]:443'), parseTrustProxy('1'))).toBe('2001:db8::1');
  });

  it('with a proxy list, takes the rightmost address that is not a proxy', () => {
    const trust = parseTrustProxy('10.0.0.0/8, 192.168.1.1, fd00::/8');
    expect(clientAddress(request('10.1.2.3', '6.6.6.6, 1.2.3.4, 192.168.1.1'), trust)).toBe('1.2.3.4');
    expect(clientAddress(request('fd00::5', '1.2.3.4'), trust)).toBe('1.2.3.4');
    // A direct client (not a proxy) is its own address, whatever it forwards.
    expect(clientAddress(request('8.8.8.8', '1.2.3.4'), trust)).toBe('8.8.8.8');
  });

  it('refuses a setting that is neither hops nor addresses', () => {
    for (const value of ['-1', '1.5', 'proxy', '10.0.0.0/33', '10.0.0.1/8/1', '999']) {
      expect(() => parseTrustProxy(value), value).toThrow(ConfigError);
    }
  });
});

describe('RateLimiter and limitFromEnv', () => {
  it('opens a window at the first request and says when it ends', () => {
    const limiter = new RateLimiter({ requests: 2, windowMs: 60_000 });
    expect(limiter.admit('a', 1_000)).toEqual({ ok: true });
    expect(limiter.admit('a', 2_000)).toEqual({ ok: true });
    expect(limiter.admit('a', 31_000)).toEqual({ ok: false, retryAfterSeconds: 30 });
    expect(limiter.admit('b', 31_000)).toEqual({ ok: true });
    expect(limiter.admit('a', 61_000)).toEqual({ ok: true });
  });

  it('tracks at most maxKeys addresses, forgetting the oldest', () => {
    const limiter = new RateLimiter({ requests: 1, windowMs: 60_000 }, 100);
    for (let i = 0; i < 10_000; i++) limiter.admit(`address-${i}`, i);
    expect(limiter.size).toBe(100);
    expect(limiter.admit('address-9999', 10_000).ok).toBe(false);
  });

  it('reads <requests>/<seconds>, off, or the default', () => {
    const fallback = { requests: 1, windowMs: 1000 };
    expect(limitFromEnv('MCP_LIMIT_TOKEN', '600/60', fallback)).toEqual({ requests: 600, windowMs: 60_000 });
    expect(limitFromEnv('MCP_LIMIT_TOKEN', 'off', fallback)).toBeUndefined();
    expect(limitFromEnv('MCP_LIMIT_TOKEN', undefined, fallback)).toBe(fallback);
    for (const value of ['600', '0/60', '10/0', 'ten/60', '1/100000']) {
      expect(() => limitFromEnv('MCP_LIMIT_TOKEN', value, fallback), value).toThrow(/MCP_LIMIT_TOKEN/);
    }
  });
});
