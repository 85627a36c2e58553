import { ConfigError, createLogger, ToolRegistry } from '@x/mcp-core';
import { startProcess } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { CATALOG, PROVIDER_IDS } from '../src/catalog.js';
import { parseConfig } from '../src/config.js';
import {
  authMode,
  cimdEnabled,
  defaultStoreUrl,
  oauthLimits,
  oauthProviderPolicy,
  onOff,
  storeUrl,
  UserRegistryCache,
} from '../src/hosted.js';
import { bin } from './helpers.js';

const registry = () => Promise.resolve(new ToolRegistry({ logger: createLogger('t', { level: 'silent' }) }));

describe('--auth', () => {
  it('defaults to token with MCP_HTTP_TOKEN, else none, and refuses unknown modes', () => {
    expect(authMode(undefined, {})).toBe('none');
    expect(authMode(undefined, { MCP_HTTP_TOKEN: 't' })).toBe('token');
    expect(authMode(undefined, { MCP_AUTH: 'oauth' })).toBe('oauth');
    expect(authMode('oauth', { MCP_AUTH: 'none' })).toBe('oauth');
    expect(() => authMode('basic', {})).toThrow(ConfigError);
    expect(() => authMode('token', {})).toThrow(/MCP_HTTP_TOKEN/);
  });

  it('reads on/off switches strictly', () => {
    expect(onOff('MCP_OAUTH_DCR', undefined, true)).toBe(true);
    expect(onOff('MCP_OAUTH_DCR', 'OFF', true)).toBe(false);
    expect(() => onOff('MCP_OAUTH_DCR', 'no', true)).toThrow(/MCP_OAUTH_DCR must be on or off/);
  });

  it('turns CIMD on only when asked', () => {
    expect(cimdEnabled({})).toBe(false);
    expect(cimdEnabled({ MCP_OAUTH_CIMD: 'on' })).toBe(true);
    expect(() => cimdEnabled({ MCP_OAUTH_CIMD: 'yes' })).toThrow(ConfigError);
  });

  it('reads MCP_TRUST_PROXY and the MCP_LIMIT_* variables, with defaults and off', async () => {
    const hosted = await import('@x/mcp-hosted');
    const defaults = oauthLimits(hosted, {});
    expect(defaults.trustProxy).toEqual({ hops: 0 });
    expect(defaults.rateLimits).toEqual(hosted.DEFAULT_RATE_LIMITS);
    expect(defaults.registrationLimit).toEqual(hosted.DEFAULT_REGISTRATION_LIMIT);
    const set = oauthLimits(hosted, {
      MCP_TRUST_PROXY: '2',
      MCP_LIMIT_AUTHORIZE: '50/10',
      MCP_LIMIT_TOKEN: 'off',
      MCP_LIMIT_REGISTER: 'off',
    });
    expect(set.trustProxy).toEqual({ hops: 2 });
    expect(set.rateLimits).toMatchObject({ authorize: { requests: 50, windowMs: 10_000 }, token: false });
    expect(set.registrationLimit).toBe(false);
    expect(() => oauthLimits(hosted, { MCP_LIMIT_INTERACTION: '50' })).toThrow(/MCP_LIMIT_INTERACTION/);
    expect(() => oauthLimits(hosted, { MCP_TRUST_PROXY: 'all' })).toThrow(/MCP_TRUST_PROXY/);
  });

  it('keeps the store under XDG_STATE_HOME by default', () => {
    expect(defaultStoreUrl({ XDG_STATE_HOME: '/state' })).toBe('sqlite:/state/x-mcp-server/store.db');
  });

  it('takes the store from --store, else MCP_STORE, else the default (the server and its admin commands alike)', () => {
    const env = { XDG_STATE_HOME: '/state', MCP_STORE: 'redis://env:6379' };
    expect(storeUrl('redis://flag:6379', env)).toBe('redis://flag:6379');
    expect(storeUrl(undefined, env)).toBe('redis://env:6379');
    expect(storeUrl(undefined, { XDG_STATE_HOME: '/state' })).toBe('sqlite:/state/x-mcp-server/store.db');
  });

  it('still refuses to listen beyond loopback without a token when no auth mode is chosen', async () => {
    const running = startProcess({
      command: process.execPath,
      args: [bin, '--http', '--host', '0.0.0.0', '--port', '0', '--providers', 'bbj-rag'],
      env: { MCP_HTTP_TOKEN: undefined, MCP_AUTH: undefined },
    });
    expect(await running.exited).toBe(2);
    expect(running.stderr()).toContain('refusing to listen on 0.0.0.0 without a bearer token');
  });

  it.runIf(Number(process.versions.node.split('.')[0]) < 22)(
    'refuses oauth on Node before 22.12 with a usage error',
    async () => {
      const running = startProcess({
        command: process.execPath,
        args: [bin, '--http', '--port', '0', '--auth', 'oauth'],
        env: { MCP_PUBLIC_URL: 'http://127.0.0.1:1', MCP_SECRET: 'x'.repeat(40) },
      });
      expect(await running.exited).toBe(2);
      expect(running.stderr()).toContain('Node.js 22.12');
    },
  );
});

describe('per-user registries', () => {
  it('reuses a user’s registry until its key changes, and keeps at most maxUsers', async () => {
    const cache = new UserRegistryCache({ maxUsers: 2 });
    let builds = 0;
    const build = () => {
      builds++;
      return registry();
    };
    const a1 = await cache.get('a', 'token-1', build);
    expect(await cache.get('a', 'token-1', build)).toBe(a1);
    expect(builds).toBe(1);
    expect(await cache.get('a', 'token-2', build)).not.toBe(a1);
    expect(builds).toBe(2);
    await cache.get('b', 'k', build);
    await cache.get('a', 'token-2', build); // a is now the most recent
    await cache.get('c', 'k', build); // evicts b, the least recently used
    expect(cache.size).toBe(2);
    await cache.get('b', 'k', build);
    expect(builds).toBe(5);
  });

  it('drops users idle longer than idleMs, and does not cache a failed build', async () => {
    const cache = new UserRegistryCache({ idleMs: 1000 });
    await cache.get('a', 'k', registry);
    cache.sweep(Date.now() + 2000);
    expect(cache.size).toBe(0);
    await expect(cache.get('b', 'k', () => Promise.reject(new Error('no connection')))).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(cache.size).toBe(0);
  });
});

describe('oauth provider policy', () => {
  it('serves per user, to everyone, or (local ones) only when marked shared, as each provider declares', () => {
    const declaring = (kind: string) => PROVIDER_IDS.filter((id) => CATALOG.get(id)?.hosted === kind);
    expect(oauthProviderPolicy({})).toEqual({
      perUser: declaring('per-user'),
      shared: declaring('shared'),
      dropped: declaring('local'),
    });
    const config = parseConfig({ providers: { basecamp: {}, 'context-forge': { shared: true } } });
    expect(oauthProviderPolicy({ config })).toEqual({
      perUser: ['basecamp'],
      shared: ['context-forge'],
      dropped: [],
    });
    expect(
      oauthProviderPolicy({ config: parseConfig({ providers: { 'context-forge': { shared: false } } }) })
        .dropped,
    ).toEqual(['context-forge']);
  });

  it('accepts "shared" only on Context Forge', () => {
    expect(() => parseConfig({ providers: { forge: { shared: true } } })).toThrow(/providers\.forge.*shared/);
    expect(() => parseConfig({ providers: { 'context-forge': { shared: 'yes' } } })).toThrow(ConfigError);
  });
});
