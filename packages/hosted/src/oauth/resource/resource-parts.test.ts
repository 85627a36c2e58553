import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpToolError } from '@x/mcp-core';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../errors.js';
import { createAdmission } from './admission.js';
import { createResourceMetadata } from './metadata.js';
import { createTokenVerifier } from './token-verifier.js';

const issuer = 'https://mcp.example.com';
const resource = `${issuer}/mcp`;

async function signingKey(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  const sign = (claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) =>
    new SignJWT({
      iss: issuer,
      aud: resource,
      sub: 'user-1',
      client_id: 'client-1',
      gid: 'grant-1',
      scope: 'mcp:read mcp:write',
      ...claims,
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid, ...header })
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);
  return { jwk, sign };
}

describe('token verifier', () => {
  it('verifies our token once and serves the next request from the cache', async () => {
    const key = await signingKey('k1');
    const tokens = createTokenVerifier({ issuer, resource, jwks: [key.jwk] });
    const token = await key.sign();
    const first = await tokens.verifier.verifyAccessToken(token);
    expect(first).toMatchObject({ clientId: 'client-1', scopes: ['mcp:read', 'mcp:write'] });
    expect(first.extra).toEqual({ userId: 'user-1', grantId: 'grant-1' });
    expect(tokens.size).toBe(1);
    const second = await tokens.verifier.verifyAccessToken(token);
    expect(second).toEqual(first);
    // A new object per request: the request's checked credentials are keyed by it.
    expect(second).not.toBe(first);
  });

  it('refuses a tampered signature, another audience, a foreign key, another issuer or typ, a missing gid, alg none', async () => {
    const key = await signingKey('k1');
    const foreign = await signingKey('k1');
    const tokens = createTokenVerifier({ issuer, resource, jwks: [key.jwk] });
    const good = await key.sign();
    const [header, payload] = good.split('.');
    const refused = [
      `${good.slice(0, -4)}AAAA`,
      await key.sign({ aud: `${issuer}/other` }),
      await foreign.sign(),
      await key.sign({ gid: undefined }),
      await key.sign({ iss: 'https://other.example.com' }),
      await key.sign({}, { typ: 'JWT' }),
      `${Buffer.from('{"alg":"none","typ":"at+jwt"}').toString('base64url')}.${payload}.`,
      `${header}.${payload}`,
    ];
    for (const token of refused) {
      await expect(tokens.verifier.verifyAccessToken(token)).rejects.toThrow(
        'The access token is invalid, expired or not for this server.',
      );
    }
    expect(tokens.size).toBe(0);
  });

  it('looks for new keys when a token names an unknown key id, and forgets on a new key set', async () => {
    const old = await signingKey('k1');
    const next = await signingKey('k2');
    const asked: string[] = [];
    const tokens = createTokenVerifier({
      issuer,
      resource,
      jwks: [old.jwk],
      onUnknownKey: async (kid) => {
        asked.push(kid);
        if (kid === 'k2') tokens.useKeys([old.jwk, next.jwk]);
      },
    });
    await tokens.verifier.verifyAccessToken(await old.sign());
    expect(asked).toEqual([]);
    await tokens.verifier.verifyAccessToken(await next.sign());
    expect(asked).toEqual(['k2']);
    expect(tokens.size).toBe(1);
    // The old key leaves the set: what it verified is checked again, and refused.
    const oldToken = await old.sign();
    await tokens.verifier.verifyAccessToken(oldToken);
    tokens.useKeys([next.jwk]);
    expect(tokens.size).toBe(0);
    await expect(tokens.verifier.verifyAccessToken(oldToken)).rejects.toThrow(/invalid/);
    expect(asked).toEqual(['k2', 'k1']);
  });

  it('keeps no token when the cache is off, and at most its size', async () => {
    const key = await signingKey('k1');
    const off = createTokenVerifier({ issuer, resource, jwks: [key.jwk], verifiedTokenCacheSize: 0 });
    await off.verifier.verifyAccessToken(await key.sign());
    expect(off.size).toBe(0);
    const two = createTokenVerifier({ issuer, resource, jwks: [key.jwk], verifiedTokenCacheSize: 2 });
    for (const client of ['a', 'b', 'c'])
      await two.verifier.verifyAccessToken(await key.sign({ client_id: client }));
    expect(two.size).toBe(2);
  });
});

describe('resource metadata', () => {
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    const metadata = createResourceMetadata(issuer, resource);
    server = createServer((req, res) => {
      if (!metadata.handle(req, res)) {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('serves the document at both well-known paths, and a narrowed URL its own resource', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(await response.json()).toMatchObject({
        resource,
        authorization_servers: [issuer],
        scopes_supported: ['mcp:read', 'mcp:write'],
        bearer_methods_supported: ['header'],
      });
    }
    const narrowed = await fetch(`${origin}/.well-known/oauth-protected-resource/mcp/readonly`);
    expect(((await narrowed.json()) as { resource: string }).resource).toBe(`${resource}/readonly`);
  });

  it('answers OPTIONS, HEAD and 405, and leaves other paths alone', async () => {
    expect(
      (await fetch(`${origin}/.well-known/oauth-protected-resource`, { method: 'OPTIONS' })).status,
    ).toBe(204);
    const head = await fetch(`${origin}/.well-known/oauth-protected-resource`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(`${origin}/.well-known/oauth-protected-resource`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, OPTIONS');
    for (const path of [
      '/.well-known/oauth-protected-resource/other',
      '/.well-known/oauth-protected-resource/mcp/x/',
      '/mcp',
    ]) {
      expect((await fetch(`${origin}${path}`)).status).toBe(404);
    }
  });

  it('points a narrowed URL’s challenge at its own document', () => {
    const metadata = createResourceMetadata(issuer, resource);
    expect(metadata.challengeFor('/mcp').resourceMetadataUrl).toBe(metadata.metadataUrl);
    expect(metadata.challengeFor('/mcp/readonly').resourceMetadataUrl).toBe(
      `${issuer}/.well-known/oauth-protected-resource/mcp/readonly`,
    );
  });
});

describe('admission', () => {
  const admissionWith = async (isActive: () => Promise<boolean>) => {
    const key = await signingKey('k1');
    const admission = createAdmission({
      resource,
      verifier: createTokenVerifier({ issuer, resource, jwks: [key.jwk] }).verifier,
      metadata: createResourceMetadata(issuer, resource),
      isActive,
    });
    const call = (token: string, path = '/mcp') =>
      admission.authenticate(
        new Request(`${issuer}${path}`, { headers: { authorization: `Bearer ${token}` } }),
      );
    return { key, admission, call };
  };

  it('admits an active caller with an MCP scope', async () => {
    const { key, call } = await admissionWith(async () => true);
    const caller = await call(await key.sign());
    expect(caller).not.toBeInstanceOf(Response);
    expect((caller as { clientId: string }).clientId).toBe('client-1');
  });

  it('refuses a token in the URL (400), no token (401 with the narrowed metadata), no MCP scope (403)', async () => {
    const { key, admission, call } = await admissionWith(async () => true);
    const inQuery = (await admission.authenticate(
      new Request(`${resource}?access_token=${await key.sign()}`),
    )) as Response;
    expect(inQuery.status).toBe(400);
    const none = (await admission.authenticate(new Request(`${resource}/readonly`))) as Response;
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain(
      `resource_metadata="${issuer}/.well-known/oauth-protected-resource/mcp/readonly"`,
    );
    const noScope = (await call(await key.sign({ scope: 'openid' }))) as Response;
    expect(noScope.status).toBe(403);
    expect(noScope.headers.get('www-authenticate')).toContain('insufficient_scope');
    expect(noScope.headers.get('www-authenticate')).toContain('mcp:read');
  });

  it('answers 401 to an ended sign-in, 503 with Retry-After to an outage, and rethrows a bug', async () => {
    const ended = await admissionWith(async () => false);
    const endedAnswer = (await ended.call(await ended.key.sign())) as Response;
    expect(endedAnswer.status).toBe(401);
    expect(endedAnswer.headers.get('www-authenticate')).toContain('Your sign-in has ended');
    const down = await admissionWith(async () => {
      throw new StoreUnavailableError('down', { retryAfterSeconds: 7 });
    });
    const downAnswer = (await down.call(await down.key.sign())) as Response;
    expect(downAnswer.status).toBe(503);
    expect(downAnswer.headers.get('retry-after')).toBe('7');
    const upstream = await admissionWith(async () => {
      throw new McpToolError('UPSTREAM_UNAVAILABLE', 'busy', {
        retryable: true,
        details: { retry_after_ms: 2500 },
      });
    });
    expect(((await upstream.call(await upstream.key.sign())) as Response).headers.get('retry-after')).toBe(
      '3',
    );
    const bug = await admissionWith(async () => {
      throw new Error('a bug');
    });
    await expect(bug.call(await bug.key.sign())).rejects.toThrow('a bug');
  });
});
