// oidc-provider itself on the adapter: two "replicas" (two Provider instances, two stores) on one
// Redis. A client registered (RFC 7591) at one is read (RFC 7592) at the other.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from './crypto.js';
import { createOidcAdapter } from './oidc-adapter.js';
import { createStore } from './store/create.js';
import type { KvStore } from './store/kv.js';
import { type RedisServer, redisRequirement, startRedisServer } from './testing/index.js';

const requirement = redisRequirement();
const keyring = Keyring.fromSecrets({ secret: 'oidc-replica-test-secret-0123456789abcdef' });
const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });

describe('oidc-provider replicas on one Redis', () => {
  let redis: RedisServer | undefined;
  const stores: KvStore[] = [];
  const servers: Server[] = [];
  const urls: string[] = [];

  beforeAll(async () => {
    if (!('path' in requirement)) return;
    redis = await startRedisServer({ path: requirement.path });
    for (let replica = 0; replica < 2; replica++) {
      const store = await createStore(redis.url);
      stores.push(store);
      const provider = new Provider('http://127.0.0.1', {
        adapter: createOidcAdapter(store, keyring),
        jwks: { keys: [signingKey] },
        cookies: { keys: ['cookie-key-for-tests-only'] },
        features: {
          devInteractions: { enabled: false },
          registration: { enabled: true },
          registrationManagement: { enabled: true },
        },
      });
      const server = createServer(provider.callback());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    await Promise.all(stores.map((store) => store.close()));
    await redis?.stop();
  });

  it('a client registered at one replica is read at the other; no secret in clear in Redis', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    const [a, b] = urls as [string, string];
    const registered = await fetch(`${a}/reg`, {
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
    expect(registered.status).toBe(201);
    const client = (await registered.json()) as Record<string, string>;
    expect(client.client_secret).toEqual(expect.any(String));
    expect(client.registration_access_token).toEqual(expect.any(String));

    const read = await fetch(`${b}/reg/${client.client_id}`, {
      headers: { authorization: `Bearer ${client.registration_access_token}` },
    });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({
      client_id: client.client_id,
      client_secret: client.client_secret,
    });
    const wrong = await fetch(`${b}/reg/${client.client_id}`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);

    const raw = new Redis((redis as RedisServer).url);
    try {
      const keys = await raw.keys('*');
      expect(keys.some((key) => key.startsWith('xmcp:kv:oidc:Client:'))).toBe(true);
      for (const key of keys) {
        const type = await raw.type(key);
        const dump = `${key} ${JSON.stringify(type === 'hash' ? await raw.hgetall(key) : type === 'set' ? await raw.smembers(key) : await raw.get(key))}`;
        expect(dump).not.toContain(client.client_secret);
        expect(dump).not.toContain(client.registration_access_token);
      }
    } finally {
      raw.disconnect();
    }
  });
});
