import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  ConfigError,
  createLogger,
  defineTool,
  type ReadinessCheck,
  TokenExpiredError,
  type ToolProvider,
  type ToolRegistry,
} from '@x/mcp-core';
import type { HttpAuthContext, HttpAuthSetup, ProviderEntry } from '@x/mcp-core/node';
import { z } from 'zod';
import { type CompositionOptions, compose, selectProviders } from './compose.js';

/** Providers every signed-in user shares: no per-user credentials. */
const SHARED = new Set(['bbj-rag']);
/** Providers built per user from that user's stored connection. */
const PER_USER = new Set(['basecamp']);

export type AuthMode = 'none' | 'token' | 'oauth';

/** `--auth` or `MCP_AUTH`; unset: `token` when MCP_HTTP_TOKEN is set, else `none` (loopback only). */
export function authMode(flag: string | boolean | undefined, env: NodeJS.ProcessEnv = process.env): AuthMode {
  const value = typeof flag === 'string' ? flag : env.MCP_AUTH || (env.MCP_HTTP_TOKEN ? 'token' : 'none');
  if (value !== 'none' && value !== 'token' && value !== 'oauth') {
    throw new ConfigError(`--auth (MCP_AUTH) must be none, token or oauth; got ${value}.`);
  }
  if (value === 'token' && !env.MCP_HTTP_TOKEN) {
    throw new ConfigError('--auth token needs MCP_HTTP_TOKEN.');
  }
  return value;
}

/** The default store: one encrypted file under `$XDG_STATE_HOME/x-mcp-server`. */
export function defaultStoreUrl(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return `file:${join(state, 'x-mcp-server')}`;
}

export interface UserRegistryCacheOptions {
  /** Most users kept. Default 500. */
  maxUsers?: number;
  /** A user unused this long is dropped. Default 15 minutes. */
  idleMs?: number;
}

/**
 * Per-user registries: an LRU with idle eviction. An entry is rebuilt when its key changes
 * (e.g. the user's upstream token was refreshed).
 */
export class UserRegistryCache {
  readonly #entries = new Map<string, { key: string; registry: Promise<ToolRegistry>; usedAt: number }>();
  readonly #max: number;
  readonly #idleMs: number;

  constructor(options: UserRegistryCacheOptions = {}) {
    this.#max = options.maxUsers ?? 500;
    this.#idleMs = options.idleMs ?? 15 * 60_000;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(userId: string, key: string, build: () => Promise<ToolRegistry>): Promise<ToolRegistry> {
    const now = Date.now();
    this.sweep(now);
    const entry = this.#entries.get(userId);
    this.#entries.delete(userId);
    if (entry && entry.key === key) {
      this.#entries.set(userId, { ...entry, usedAt: now });
      return entry.registry;
    }
    const registry = build();
    // A failed build is not cached.
    registry.catch(() => {
      if (this.#entries.get(userId)?.registry === registry) this.#entries.delete(userId);
    });
    this.#entries.set(userId, { key, registry, usedAt: now });
    while (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
    return registry;
  }

  /** Drops users idle longer than `idleMs`. */
  sweep(now = Date.now()): void {
    for (const [userId, entry] of this.#entries) {
      if (now - entry.usedAt > this.#idleMs) this.#entries.delete(userId);
    }
  }

  clear(): void {
    this.#entries.clear();
  }
}

/** An `on`/`off` variable; unset or empty: the default. */
export function onOff(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  const lower = value.toLowerCase();
  if (lower !== 'on' && lower !== 'off') throw new ConfigError(`${name} must be on or off; got ${value}.`);
  return lower === 'on';
}

/** `MCP_OAUTH_CIMD`: `on` or `off` (default). */
export function cimdEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return onOff('MCP_OAUTH_CIMD', env.MCP_OAUTH_CIMD, false);
}

function nodeAtLeast(major: number, minor: number): boolean {
  const [a = 0, b = 0] = process.versions.node.split('.').map(Number);
  return a > major || (a === major && b >= minor);
}

/**
 * `--auth oauth`: the hosted, multi-user server. Each person signs in with Basecamp
 * (Launchpad) through our OAuth authorization server; each gets their own Basecamp provider
 * built from their stored connection. Providers without per-user credentials (BBj RAG) are
 * shared; Forge and Context Forge are not served in this mode (their credentials and files
 * belong to one person).
 */
export async function createOAuthSetup(
  context: HttpAuthContext,
  composition: CompositionOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<HttpAuthSetup | undefined> {
  if (authMode(context.flags.auth, env) !== 'oauth') return undefined;
  if (!nodeAtLeast(22, 12)) {
    throw new ConfigError(`--auth oauth needs Node.js 22.12 or newer (this is ${process.versions.node}).`);
  }
  const logger = createLogger('x-mcp-server');
  const hosted = await import('@x/mcp-hosted');
  const publicUrl = hosted.parsePublicUrl(
    (typeof context.flags['public-url'] === 'string' ? context.flags['public-url'] : undefined) ??
      env.MCP_PUBLIC_URL,
  );
  const keyring = hosted.Keyring.fromEnv(env);
  const storeUrl =
    (typeof context.flags.store === 'string' ? context.flags.store : undefined) ??
    env.MCP_STORE ??
    defaultStoreUrl(env);
  const store = await hosted.createStore(storeUrl, { keyring });

  const ids = selectProviders(composition);
  const dropped = ids.filter((id) => !SHARED.has(id) && !PER_USER.has(id));
  if (dropped.length > 0) {
    logger.warn(`--auth oauth does not serve ${dropped.join(', ')} (no per-user credentials for it yet)`);
  }
  if (!ids.includes('basecamp')) {
    await store.close();
    throw new ConfigError('--auth oauth signs users in with Basecamp: serve the basecamp provider.');
  }
  const sharedIds = ids.filter((id) => SHARED.has(id));
  const shared: ProviderEntry[] =
    sharedIds.length > 0 ? await compose({ ...composition, only: sharedIds }) : [];
  const cache = new UserRegistryCache();
  // The server's own provider (hosted_whoami, /readyz checks), filled once the auth exists.
  const hostedEntry: ProviderEntry[] = [];
  const sweeper = setInterval(() => cache.sweep(), 60_000);
  sweeper.unref();

  try {
    const auth = await hosted.createHostedAuth({
      publicUrl,
      store,
      keyring,
      launchpad: {
        clientId: env.BASECAMP_CLIENT_ID ?? '',
        clientSecret: env.BASECAMP_CLIENT_SECRET ?? '',
        ...(env.BASECAMP_LAUNCHPAD_URL ? { url: env.BASECAMP_LAUNCHPAD_URL } : {}),
      },
      allowedAccounts: hosted.listFromEnv(env.BASECAMP_ALLOWED_ACCOUNTS),
      allowedEmailDomains: hosted.listFromEnv(env.MCP_ALLOWED_EMAIL_DOMAINS),
      registration: onOff('MCP_OAUTH_DCR', env.MCP_OAUTH_DCR, true),
      ...(env.MCP_OAUTH_REDIRECT_HOSTS
        ? { redirectHosts: hosted.listFromEnv(env.MCP_OAUTH_REDIRECT_HOSTS) }
        : {}),
      accessTokenTtl: hosted.secondsFromEnv('MCP_OAUTH_ACCESS_TTL', env.MCP_OAUTH_ACCESS_TTL, 3600),
      refreshTokenTtl: hosted.secondsFromEnv(
        'MCP_OAUTH_REFRESH_TTL',
        env.MCP_OAUTH_REFRESH_TTL,
        30 * 24 * 3600,
      ),
      serverName: 'x-mcp-server',
      ...(cimdEnabled(env)
        ? { cimd: env.MCP_OAUTH_CIMD_HOSTS ? { hosts: hosted.listFromEnv(env.MCP_OAUTH_CIMD_HOSTS) } : {} }
        : {}),
      logger,
      // One Basecamp provider per user (its own ETag and dock caches), kept while the user signs
      // in to the same account; its credentials come from the user's stored connection,
      // refreshed lazily and renewed after a 401 (settings.credentials).
      registryFor: async (userId, credentials) =>
        cache.get(userId, credentials.accountId, async () => {
          const own = await compose({
            ...composition,
            only: ['basecamp'],
            settings: { basecamp: { credentials: auth.connections.credentialSource(userId) } },
          });
          return context.compose([...own, ...shared, ...hostedEntry]);
        }),
    });
    const breaker = new hosted.InvalidGrantBreaker(store);
    const connections = auth.connections;
    const whoami = defineTool({
      name: 'whoami',
      description:
        'Who you are signed in as on this server: your Basecamp name and email, and the Basecamp account your tools use.',
      inputSchema: z.strictObject({}),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      handler: async (_input, context) => {
        const userId = context.request.auth?.extra?.userId;
        const connection = typeof userId === 'string' ? await connections.get(userId) : undefined;
        if (!connection || typeof userId !== 'string') {
          throw new TokenExpiredError('Not signed in: reconnect this server in your MCP client.');
        }
        return {
          user: userId,
          name: connection.identity.name,
          email: connection.identity.email,
          basecamp_account: { id: connection.accountId, name: connection.accountName },
        };
      },
    });
    const hostedProvider: ToolProvider = {
      id: 'hosted',
      version: '1.0.0',
      tools: [whoami],
      checkReadiness: async () => {
        const checks: ReadinessCheck[] = [];
        try {
          await store.ping();
          checks.push({ name: 'store', ok: true });
          const state = await breaker.state();
          checks.push({
            name: 'launchpad-refresh',
            ok: !state.open,
            detail: state.open
              ? `paused after ${state.failures} refused refreshes in 48 h (Launchpad bans at 5)`
              : `${state.failures} refused refreshes in 48 h`,
          });
        } catch {
          checks.push({ name: 'store', ok: false, detail: 'the store cannot be reached' });
        }
        return { ready: checks.every((check) => check.ok), checks };
      },
    };
    hostedEntry.push({ provider: hostedProvider, use: { prefix: 'hosted_' } });
    logger.info(`OAuth: issuer ${auth.issuer}, resource ${auth.resource}, store ${storeUrl.split(':')[0]}`);
    return {
      auth: auth.auth,
      allowedHosts: [new URL(publicUrl).hostname],
      // The consent and account forms post from the public origin.
      allowedOrigins: [new URL(publicUrl).hostname],
      provider: [...shared, ...hostedEntry],
      gauges: [
        {
          name: 'mcp_hosted_user_registries',
          help: 'Signed-in users whose registry and upstream clients are held in memory (LRU, idle eviction).',
          read: () => cache.size,
        },
      ],
      close: async () => {
        clearInterval(sweeper);
        cache.clear();
        await store.close();
      },
    };
  } catch (error) {
    clearInterval(sweeper);
    await store.close();
    throw error;
  }
}

/**
 * `x-mcp-server users list` and `x-mcp-server users revoke <user>`: the store of `--auth oauth`
 * (`MCP_STORE`, `MCP_SECRET`). For a file store, stop the server first (one process per file).
 */
export async function usersCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const [action, user, ...rest] = argv;
  const usage = 'Usage: x-mcp-server users list | users revoke <user id, e.g. basecamp:123>\n';
  if (!(action === 'list' && user === undefined) && !(action === 'revoke' && user && rest.length === 0)) {
    process.stderr.write(usage);
    return 2;
  }
  if (!nodeAtLeast(22, 12)) {
    process.stderr.write(
      `x-mcp-server users needs Node.js 22.12 or newer (this is ${process.versions.node}).\n`,
    );
    return 2;
  }
  const hosted = await import('@x/mcp-hosted');
  let store: Awaited<ReturnType<typeof hosted.createStore>> | undefined;
  try {
    const keyring = hosted.Keyring.fromEnv(env);
    store = await hosted.createStore(env.MCP_STORE || defaultStoreUrl(env), { keyring });
    if (action === 'list') {
      for (const entry of await hosted.listUsers(store, keyring))
        process.stdout.write(`${JSON.stringify(entry)}\n`);
      return 0;
    }
    const launchpad =
      env.BASECAMP_CLIENT_ID && env.BASECAMP_CLIENT_SECRET
        ? new hosted.Launchpad({
            clientId: env.BASECAMP_CLIENT_ID,
            clientSecret: env.BASECAMP_CLIENT_SECRET,
            url: env.BASECAMP_LAUNCHPAD_URL || hosted.DEFAULT_LAUNCHPAD_URL,
            redirectUri: '',
          })
        : undefined;
    const result = await hosted.revokeUser(store, keyring, user as string, launchpad ? { launchpad } : {});
    process.stdout.write(`${JSON.stringify({ user, ...result })}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`x-mcp-server users: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await store?.close();
  }
}
