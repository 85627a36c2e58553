import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  ConfigError,
  createLogger,
  defineTool,
  type LinkedAccountConnection,
  type ReadinessCheck,
  type SignInConnection,
  TaskHost,
  TokenExpiredError,
  type ToolProvider,
  type ToolRegistry,
} from '@x/mcp-core';
import type { HttpAuthContext, HttpAuthSetup, ProviderEntry } from '@x/mcp-core/node';
import type { Connections, HostedAuthOptions, PolicyFile, PolicySignIn } from '@x/mcp-hosted';
import { z } from 'zod';
import { CATALOG, PROVIDER_IDS, PROVIDERS, type ProviderId } from './catalog.js';
import { type CompositionOptions, compose, selectProviders } from './compose.js';
import { hostedImport } from './hosted-import.js';

/**
 * The tools each provider declares local (`localTools`: they read the server's own disk, never a
 * user's) excluded like a config rule, so the prompts that name them go with them: not served in
 * oauth mode.
 */
function withoutLocalTools(entries: ProviderEntry[]): ProviderEntry[] {
  return entries.map((entry) => {
    const local = CATALOG.get(entry.provider.id)?.localTools ?? [];
    return local.length > 0
      ? { ...entry, use: { ...entry.use, exclude: [...(entry.use?.exclude ?? []), ...local] } }
      : entry;
  });
}

/**
 * Which selected providers oauth mode serves, and how, from what each declares (its metadata's
 * `hosted`): `per-user` built per user from that user's stored connection (a sign-in or a linked
 * account, as its `connection` declares), `shared` by every signed-in user, `local` (the server's
 * own files) shared only when the config marks it `"shared": true`, else not at all.
 */
export function oauthProviderPolicy(composition: CompositionOptions): {
  perUser: ProviderId[];
  shared: ProviderId[];
  dropped: ProviderId[];
} {
  const ids = selectProviders(composition);
  const hosted = (id: ProviderId) => CATALOG.get(id)?.hosted;
  const isPerUser = (id: ProviderId) => hosted(id) === 'per-user';
  const isShared = (id: ProviderId) =>
    hosted(id) === 'shared' ||
    (hosted(id) === 'local' && composition.config?.providers?.[id]?.shared === true);
  return {
    perUser: ids.filter(isPerUser),
    shared: ids.filter(isShared),
    dropped: ids.filter((id) => !isPerUser(id) && !isShared(id)),
  };
}

/** The served providers that declare a sign-in (`connection.kind: 'sign-in'`): who can be the identity. */
function signInProviders(ids: readonly ProviderId[]): ProviderId[] {
  return ids.filter((id) => CATALOG.get(id)?.connection?.kind === 'sign-in');
}

/** A provider's declared sign-in, loaded (the provider's `connection.load()`). */
async function loadSignIn(id: ProviderId): Promise<SignInConnection> {
  const declared = CATALOG.get(id)?.connection;
  if (declared?.kind !== 'sign-in') throw new ConfigError(`${id} declares no sign-in connection.`);
  return declared.load();
}

/** What the policy needs of the sign-in: its id (the older key names), title and project narrowing (decision 0028). */
const policySignIn = (id: ProviderId, signIn: SignInConnection): PolicySignIn => ({
  provider: id,
  title: signIn.title,
  projects: signIn.projects !== undefined,
});

/** A provider's declared linked account, loaded. */
async function loadLinked(id: ProviderId): Promise<LinkedAccountConnection> {
  const declared = CATALOG.get(id)?.connection;
  if (declared?.kind !== 'linked-account') throw new ConfigError(`${id} declares no linked account.`);
  return declared.load();
}

/** The providers whose users link an account of theirs (`connection.kind: 'linked-account'`). */
const linkedAccountProviders = (): ProviderId[] =>
  PROVIDERS.filter((provider) => provider.connection?.kind === 'linked-account').map(
    (provider) => provider.id,
  );

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

/** The default store: one SQLite file, `$XDG_STATE_HOME/x-mcp-server/store.db`. */
export function defaultStoreUrl(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return `sqlite:${join(state, 'x-mcp-server', 'store.db')}`;
}

/** The store of `--auth oauth` and of the admin commands: `--store`, else `MCP_STORE`, else the default. */
export function storeUrl(flag: string | boolean | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return (typeof flag === 'string' ? flag : undefined) ?? env.MCP_STORE ?? defaultStoreUrl(env);
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
    // Idle users are dropped by the server's sweep every minute, not on this per-request path.
    const now = Date.now();
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

/**
 * The authorization server's limits and proxy trust from the environment: `MCP_TRUST_PROXY`
 * (hops or proxy addresses), `MCP_LIMIT_AUTHORIZE`, `MCP_LIMIT_TOKEN`, `MCP_LIMIT_INTERACTION`,
 * `MCP_LIMIT_REGISTER` (`<requests>/<seconds>` or `off`).
 */
export function oauthLimits(
  hosted: Pick<
    typeof import('@x/mcp-hosted'),
    'parseTrustProxy' | 'limitFromEnv' | 'DEFAULT_RATE_LIMITS' | 'DEFAULT_REGISTRATION_LIMIT'
  >,
  env: NodeJS.ProcessEnv = process.env,
): Pick<HostedAuthOptions, 'trustProxy' | 'rateLimits' | 'registrationLimit'> {
  const limit = (name: string, endpoint: keyof typeof hosted.DEFAULT_RATE_LIMITS) =>
    hosted.limitFromEnv(name, env[name], hosted.DEFAULT_RATE_LIMITS[endpoint]) ?? false;
  return {
    trustProxy: hosted.parseTrustProxy(env.MCP_TRUST_PROXY),
    rateLimits: {
      authorize: limit('MCP_LIMIT_AUTHORIZE', 'authorize'),
      token: limit('MCP_LIMIT_TOKEN', 'token'),
      interaction: limit('MCP_LIMIT_INTERACTION', 'interaction'),
    },
    registrationLimit:
      hosted.limitFromEnv('MCP_LIMIT_REGISTER', env.MCP_LIMIT_REGISTER, hosted.DEFAULT_REGISTRATION_LIMIT) ??
      false,
  };
}

function nodeAtLeast(major: number, minor: number): boolean {
  const [a = 0, b = 0] = process.versions.node.split('.').map(Number);
  return a > major || (a === major && b >= minor);
}

/**
 * `--auth oauth`: the hosted, multi-user server. Each person signs in through our OAuth
 * authorization server with the one served provider that declares a sign-in (its `connection`);
 * each gets their own instance of it built from their stored connection, and their own instance
 * of each linked-account provider on the account they linked at `<public>/connect/<provider>`.
 * Providers without per-user credentials are shared; local ones (the server's own files) only
 * when the config marks them shared.
 */
export async function createOAuthSetup(
  context: HttpAuthContext,
  composition: CompositionOptions,
  env: NodeJS.ProcessEnv = process.env,
  /** The shared providers' entries, when not the configured ones (`--sandbox`: their fakes). */
  sharedEntries?: (ids: ProviderId[]) => Promise<ProviderEntry[]>,
): Promise<HttpAuthSetup | undefined> {
  if (authMode(context.flags.auth, env) !== 'oauth') {
    // Who is calling is known only with --auth oauth: a policy set anywhere else would not apply.
    for (const name of ['MCP_POLICY', 'MCP_RATE_LIMIT']) {
      if (env[name]) {
        throw new ConfigError(
          `${name} applies to --auth oauth only (who is calling is known only there); unset it or use --auth oauth.`,
        );
      }
    }
    return undefined;
  }
  if (!nodeAtLeast(22, 12)) {
    throw new ConfigError(`--auth oauth needs Node.js 22.12 or newer (this is ${process.versions.node}).`);
  }
  const logger = createLogger('x-mcp-server');
  const hosted = await hostedImport(import('@x/mcp-hosted'));
  const publicUrl = hosted.parsePublicUrl(
    (typeof context.flags['public-url'] === 'string' ? context.flags['public-url'] : undefined) ??
      env.MCP_PUBLIC_URL,
  );
  const keyring = hosted.Keyring.fromEnv(env);
  const storeLocation = storeUrl(context.flags.store, env);
  const auditTarget = hosted.auditTarget(env.MCP_AUDIT, storeLocation);
  const store = await hosted.createStore(storeLocation);

  const policy = oauthProviderPolicy(composition);
  if (policy.dropped.length > 0) {
    logger.warn(
      `--auth oauth does not serve ${policy.dropped.join(', ')} (the server's local files; set "shared": true in its config to serve it to every signed-in user)`,
    );
  }
  // The identity: the one served provider that declares a sign-in.
  const [signInId, ...otherSignIns] = signInProviders(policy.perUser);
  if (signInId === undefined || otherSignIns.length > 0) {
    await store.close();
    const declared = signInProviders(PROVIDERS.map((provider) => provider.id));
    throw new ConfigError(
      signInId === undefined
        ? `--auth oauth signs users in with ${declared.map((id) => CATALOG.get(id)?.title).join(' or ')}: serve the ${declared.join(' or ')} provider.`
        : `--auth oauth signs users in with one provider; ${[signInId, ...otherSignIns].join(' and ')} both declare a sign-in: serve one of them.`,
    );
  }
  const signIn = await loadSignIn(signInId);
  // The linked accounts a signed-in user may add (each at /connect/<provider>).
  const linkedIds = policy.perUser.filter((id) => CATALOG.get(id)?.connection?.kind === 'linked-account');
  const linked = await Promise.all(linkedIds.map(async (id) => ({ id, connection: await loadLinked(id) })));
  const sharedIds = policy.shared;
  // A shared provider (a service of the operator's) is the same for every replica: while it is not
  // ready only its tools fail; /readyz stays 200 (it names it) and gates on the store and keys.
  const shared: ProviderEntry[] = (
    sharedEntries
      ? await sharedEntries(sharedIds)
      : sharedIds.length > 0
        ? await compose({ ...composition, only: sharedIds })
        : []
  ).map((entry) => ({ ...entry, use: { ...entry.use, readiness: 'reported' as const } }));
  const cache = new UserRegistryCache();
  // Who may use which tools (MCP_POLICY) and how often (MCP_RATE_LIMIT), checked at start against
  // the toolsets this server serves; the policy file is read again when it changes and on SIGHUP.
  const rateLimit = hosted.rateFromEnv('MCP_RATE_LIMIT', env.MCP_RATE_LIMIT);
  let policyFile: PolicyFile | undefined;
  if (env.MCP_POLICY) {
    try {
      const probe = context.compose([
        ...(await compose({ ...composition, only: policy.perUser })),
        ...shared,
      ]);
      const toolsets = [...probe.toolsetNames(), 'hosted'];
      // With dynamic toolsets, tools not served yet may be enabled later: their names are not known.
      const served = probe.toMcpTools().map((tool) => tool.name);
      const tools = served.some((name) => name.endsWith('enable_toolset'))
        ? undefined
        : [...served, 'hosted_whoami'];
      policyFile = await hosted.PolicyFile.open(env.MCP_POLICY, {
        names: { toolsets, ...(tools ? { tools } : {}), signIn: policySignIn(signInId, signIn) },
        logger,
      });
    } catch (error) {
      await store.close();
      throw error;
    }
    logger.info(
      `policy ${policyFile.file}: ${policyFile.current.ruleCount} rules, sha256 ${policyFile.current.digest} (every replica must read the same file)`,
    );
  }
  let connectionsOf: (() => Connections) | undefined;
  const governance = new hosted.Governance({
    ...(policyFile ? { policy: policyFile } : {}),
    ...(rateLimit ? { rateLimit } : {}),
    buckets: hosted.tokenBucketsFor(store),
    identity: async (userId) => {
      const connection = await connectionsOf?.().get(userId);
      return connection ? { email: connection.identity.email, accountId: connection.accountId } : undefined;
    },
  });
  const reloadPolicy = () => void policyFile?.reload();
  if (policyFile) process.on('SIGHUP', reloadPolicy);
  // The server's own provider (hosted_whoami, /readyz checks), filled once the auth exists.
  const hostedEntry: ProviderEntry[] = [];
  const sweeper = setInterval(() => cache.sweep(), 60_000);
  sweeper.unref();
  let audit: Awaited<ReturnType<typeof hosted.startAudit>> | undefined;

  try {
    const auth = await hosted.createHostedAuth({
      publicUrl,
      store,
      keyring,
      signIn: {
        connection: signIn,
        clientId: env[signIn.env.clientId] ?? '',
        clientSecret: env[signIn.env.clientSecret] ?? '',
        ...(env[signIn.env.url] ? { url: env[signIn.env.url] as string } : {}),
      },
      allowedAccounts: hosted.listFromEnv(env[signIn.env.allowedAccounts]),
      allowedEmailDomains: hosted.listFromEnv(env.MCP_ALLOWED_EMAIL_DOMAINS),
      ...(policyFile
        ? {
            signInRefusal: (who) => {
              const refusal = governance.signInRefusal(who);
              if (refusal !== undefined) {
                audit?.record({
                  event: 'sign-in',
                  outcome: 'access_denied',
                  denied: true,
                  userId: who.userId,
                  email: who.email,
                  reason: `the policy denies account ${who.accountId}`,
                });
              }
              return refusal;
            },
          }
        : {}),
      registration: onOff('MCP_OAUTH_DCR', env.MCP_OAUTH_DCR, true),
      ...(env.MCP_OAUTH_REDIRECT_HOSTS
        ? { redirectHosts: hosted.listFromEnv(env.MCP_OAUTH_REDIRECT_HOSTS) }
        : {}),
      ...(env.MCP_OAUTH_REDIRECT_SCHEMES
        ? { redirectSchemes: hosted.parseRedirectSchemes(hosted.listFromEnv(env.MCP_OAUTH_REDIRECT_SCHEMES)) }
        : {}),
      accessTokenTtl: hosted.secondsFromEnv('MCP_OAUTH_ACCESS_TTL', env.MCP_OAUTH_ACCESS_TTL, 3600),
      refreshTokenTtl: hosted.secondsFromEnv(
        'MCP_OAUTH_REFRESH_TTL',
        env.MCP_OAUTH_REFRESH_TTL,
        30 * 24 * 3600,
      ),
      clientTtl: hosted.secondsFromEnv('MCP_OAUTH_CLIENT_TTL', env.MCP_OAUTH_CLIENT_TTL, 30 * 24 * 3600),
      ...oauthLimits(hosted, env),
      serverName: 'x-mcp-server',
      ...(cimdEnabled(env)
        ? { cimd: env.MCP_OAUTH_CIMD_HOSTS ? { hosts: hosted.listFromEnv(env.MCP_OAUTH_CIMD_HOSTS) } : {} }
        : {}),
      linked: linked.map(({ id, connection }) => ({
        connection,
        url:
          // Validated by the provider's config schema.
          (composition.config?.providers?.[id]?.settings?.[connection.url.setting] as string | undefined) ??
          (env[connection.url.env] || connection.url.default),
      })),
      logger,
      // One provider per user for each per-user provider (its own caches), kept while the user
      // signs in to the same account and the policy gives them the same projects; its credentials
      // come from the user's stored sign-in (or link), refreshed lazily and renewed after a 401
      // (settings.credentials).
      registryFor: async (userId, credentials, info) => {
        // The policy's projects, given to the sign-in provider's setting that narrows by project
        // (a policy naming projects for a sign-in without one does not start).
        const projects = signIn.projects ? (await governance.for(info)).projects : undefined;
        const key = `${credentials.accountId}|${projects ? projects.join(',') : '*'}`;
        return cache.get(userId, key, async () => {
          const own = await compose({
            ...composition,
            only: policy.perUser,
            settings: {
              [signInId]: {
                credentials: auth.connections.credentialSource(userId),
                ...(projects && signIn.projects ? { [signIn.projects.setting]: projects } : {}),
              },
              ...Object.fromEntries(
                [...auth.linked].map(([id, links]) => [id, { credentials: links.credentialSource(userId) }]),
              ),
            },
          });
          const entries = withoutLocalTools(own);
          return context.compose([...entries, ...shared, ...hostedEntry]);
        });
      },
    });
    connectionsOf = () => auth.connections;
    const budget = signIn.refreshBudget;
    const breaker = budget ? new hosted.InvalidGrantBreaker(store, budget) : undefined;
    const connections = auth.connections;
    const whoami = defineTool({
      name: 'whoami',
      description: `Who you are signed in as on this server: your ${signIn.title} name and email, the ${signIn.title} account your tools use, what the server’s policy allows you (rule, toolsets, read-only, projects, rate limit) when it has one${linked.map(({ connection }) => `, and whether your ${connection.title} account is linked and where to link it`).join('')}.`,
      inputSchema: z.strictObject({}),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      handler: async (_input, context) => {
        const userId = context.request.auth?.extra?.userId;
        const connection = typeof userId === 'string' ? await connections.get(userId) : undefined;
        if (!connection || typeof userId !== 'string') {
          throw new TokenExpiredError('Not signed in: reconnect this server in your MCP client.');
        }
        const links = Object.fromEntries(
          await Promise.all(
            [...auth.linked].map(async ([id, accounts]) => {
              const link = await accounts.get(userId);
              return [
                id,
                link
                  ? { linked: true, ...accounts.connection.describe(link).fields }
                  : { linked: false, connect_url: accounts.connectUrl },
              ] as const;
            }),
          ),
        );
        const info = context.request.auth;
        const decision = info ? (await governance.for(info)).decision : undefined;
        return {
          user: userId,
          name: connection.identity.name,
          email: connection.identity.email,
          [`${signInId}_account`]: { id: connection.accountId, name: connection.accountName },
          ...(decision
            ? {
                policy: {
                  rule: decision.rule,
                  ...(decision.name ? { name: decision.name } : {}),
                  ...(decision.toolsets ? { toolsets: decision.toolsets } : {}),
                  read_only: decision.readOnly,
                  ...(decision.projects ? { [`${signInId}_projects`]: decision.projects } : {}),
                },
              }
            : {}),
          ...(rateLimit || decision?.rateLimit
            ? {
                rate_limit: decision?.rateLimit === 'off' ? 'none' : (decision?.rateLimit ?? rateLimit)?.text,
              }
            : {}),
          ...links,
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
          // This replica signs and verifies with the store's keys (restored when the store lost
          // them, adopted when they changed); they open with MCP_SECRET, and the store's sealing
          // key (keys:meta) is one this replica holds.
          try {
            const meta = await hosted.readKeyMeta(store);
            if (meta && !keyring.keyIds.includes(meta.active)) {
              throw new hosted.KeyUnavailableError(meta.active, keyring.keyIds);
            }
            const keys = await auth.signingKeys.sync();
            checks.push({
              name: 'keys',
              ok: keys.ok,
              detail: `${keys.detail}; sealing with key ${keyring.sealingKeyId}`,
            });
          } catch (error) {
            if (!hosted.KeyUnavailableError.isInstance(error)) throw error;
            logger.error(error.message, { keyId: error.keyId });
            checks.push({
              name: 'keys',
              ok: false,
              detail: `the store needs key ${error.keyId}, which this replica does not hold (MCP_SECRET, MCP_SECRET_PREVIOUS)`,
            });
          }
          if (breaker && budget) {
            const state = await breaker.state();
            const hours = Math.round(budget.windowMs / 3600_000);
            checks.push({
              name: budget.checkName,
              ok: !state.open,
              detail: `${
                state.open
                  ? `paused after ${state.failures} refused refreshes in ${hours} h (${budget.reason})`
                  : `${state.failures} refused refreshes in ${hours} h`
              }${state.subjects.length > 0 ? `, spent by ${state.subjects.join(', ')}` : ''}`,
            });
          }
        } catch {
          checks.push({ name: 'store', ok: false, detail: 'the store cannot be reached' });
        }
        return { ready: checks.every((check) => check.ok), checks };
      },
    };
    hostedEntry.push({ provider: hostedProvider, use: { prefix: 'hosted_' } });
    if (auditTarget.kind !== 'off') {
      const target = auditTarget;
      const provider = auth.authorizationServer.provider;
      audit = await hosted.startAudit({ target, keyring, store, connections, env, logger, provider });
    }
    logger.info(
      `OAuth: issuer ${auth.issuer}, resource ${auth.resource}, store ${storeLocation.split(':')[0]}, sealing key ${keyring.sealingKeyId}, audit ${audit?.sink.name ?? 'off'}`,
    );
    // /healthz: the tools a signed-in user gets without narrowing (their own providers, the
    // shared ones, hosted_whoami), counted once on the first probe, not the shared ones alone.
    let userToolCount: Promise<number> | undefined;
    const toolCount = () => {
      userToolCount ??= compose({ ...composition, only: policy.perUser }).then(
        (own) => context.compose([...withoutLocalTools(own), ...shared, ...hostedEntry]).toMcpTools().length,
      );
      return userToolCount;
    };
    return {
      auth: {
        ...hosted.governedAuth(auth.auth, governance, (info) =>
          audit?.record({
            event: 'request',
            outcome: 'PERMISSION_DENIED',
            denied: true,
            userId: typeof info.extra?.userId === 'string' ? info.extra.userId : undefined,
            clientId: info.clientId,
            reason: 'the policy denies this user',
          }),
        ),
        toolCount,
      },
      allowedHosts: [new URL(publicUrl).hostname],
      // The consent and account forms post from the public origin.
      allowedOrigins: [new URL(publicUrl).hostname],
      provider: [...shared, ...hostedEntry],
      // Tasks (long tool calls) in the store: a task started on one replica is polled on any.
      tasks: new TaskHost({ store: new hosted.HostedTaskStore(store, keyring) }),
      // A question's answers come back on a retry that may reach another replica: every replica
      // signs and checks the carried state with the same key, derived from the store's secret.
      requestStateKey: keyring.deriveKey('mcp request state').toString('base64url'),
      gauges: [
        {
          name: 'mcp_hosted_user_registries',
          help: 'Signed-in users whose registry and upstream clients are held in memory (LRU, idle eviction).',
          read: () => cache.size,
        },
      ],
      close: async () => {
        clearInterval(sweeper);
        process.off('SIGHUP', reloadPolicy);
        policyFile?.close();
        auth.close();
        cache.clear();
        await audit?.close();
        await store.close();
      },
    };
  } catch (error) {
    clearInterval(sweeper);
    process.off('SIGHUP', reloadPolicy);
    policyFile?.close();
    await audit?.close();
    await store.close();
    throw error;
  }
}

type HostedModule = typeof import('@x/mcp-hosted');

/** What the admin commands share with the server: its store flag, with the same variable behind it. */
const STORE_HELP = `Options (as the server takes them; a flag wins over its variable):
  --store <url>   the server's store: sqlite:<path> (default), redis://host:port or memory: (else MCP_STORE)
  -h, --help      show this help

Environment (as for the server):
  MCP_STORE                         the store when --store is not given
  MCP_SECRET (or MCP_SECRET_FILE)   the secret the store is sealed with
  MCP_SECRET_PREVIOUS               the old secret, during a rotation
`;

const USERS_HELP = `Usage: x-mcp-server users list [--store <url>]
       x-mcp-server users revoke <user> [--store <url>]
       x-mcp-server users forget <user> [--store <url>]
Who signed in (--auth oauth); sign one user out everywhere; delete everything about one.
  <user>: an id users list prints (<provider>:<id>) or the user’s email

${STORE_HELP}  the sign-in app's client id, secret and URL variables, as for the server
                                    revoke, forget: also revoke the user's token at the sign-in
  MCP_AUDIT                         revoke, forget: recorded in the server's audit log (file or
                                    redis, as the server's; nothing for off or stdout)
A sqlite: store admits the server and this command together (SQLite locks each write).
`;

const KEYS_HELP = `Usage: x-mcp-server keys rotate [--store <url>]
Once every replica runs with MCP_SECRET = the new secret and MCP_SECRET_PREVIOUS = the old one:
names the new key in the store (every replica seals with it from then on), seals every record
again with it, and makes a new signing key (the previous one stays published until the tokens it
signed expire). Afterwards MCP_SECRET_PREVIOUS can be dropped. Running it again is harmless.

${STORE_HELP}  MCP_OAUTH_ACCESS_TTL              access token lifetime: at most one new signing key per lifetime
A sqlite: store admits the server and this command together (SQLite locks each write).
`;

/**
 * The arguments of an admin command, parsed like the server's: `--store` (before or after the
 * action) and `--help`. The usage on stderr and exit 2 when they are not valid.
 */
function adminArguments(
  command: string,
  argv: readonly string[],
  help: string,
): { positionals: string[]; store: string | undefined } | number {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof ADMIN_OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: ADMIN_OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    process.stderr.write(
      `x-mcp-server ${command}: ${(error as Error).message}\nRun x-mcp-server ${command} --help for usage.\n`,
    );
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(help);
    return 0;
  }
  return { positionals: parsed.positionals, store: parsed.values.store };
}
const ADMIN_OPTIONS = {
  store: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * Runs an admin command on the store of `--auth oauth` (`--store` or `MCP_STORE`, `MCP_SECRET`),
 * sealing with the key the store names (`keys:meta`) as a replica does; also next to a running
 * server (a `sqlite:` file admits several processes).
 */
async function withStore(
  command: string,
  location: string,
  env: NodeJS.ProcessEnv,
  run: (
    hosted: HostedModule,
    store: Awaited<ReturnType<HostedModule['createStore']>>,
    keyring: ReturnType<HostedModule['Keyring']['fromEnv']>,
  ) => Promise<void>,
): Promise<number> {
  if (!nodeAtLeast(22, 12)) {
    process.stderr.write(
      `x-mcp-server ${command} needs Node.js 22.12 or newer (this is ${process.versions.node}).\n`,
    );
    return 2;
  }
  let hosted: HostedModule;
  try {
    hosted = await hostedImport(import('@x/mcp-hosted'));
  } catch (error) {
    process.stderr.write(`x-mcp-server ${command}: ${(error as Error).message}\n`);
    return 1;
  }
  let store: Awaited<ReturnType<typeof hosted.createStore>> | undefined;
  try {
    const keyring = hosted.Keyring.fromEnv(env);
    // Only a store a server has made: a wrong or missing --store is an error, never an empty
    // answer from a store made on the spot.
    store = await hosted.createStore(location, { existing: true });
    if (!(await hosted.readKeyMeta(store))) {
      const where = location.startsWith('sqlite:')
        ? location
        : `${new URL(location).protocol}//${new URL(location).host}${new URL(location).pathname}`;
      throw new ConfigError(
        `${where} holds no server's data yet (no keys): give the store the server uses (--store or MCP_STORE).`,
      );
    }
    await run(hosted, store, keyring);
    return 0;
  } catch (error) {
    process.stderr.write(`x-mcp-server ${command}: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await store?.close();
  }
}

/** The sign-in a user signed in with (their id's provider), with the app from the environment; undefined without one. */
async function signInFromEnv(hosted: HostedModule, user: string, env: NodeJS.ProcessEnv) {
  const provider = hosted.signInProviderOf(user);
  if (CATALOG.get(provider)?.connection?.kind !== 'sign-in') return undefined;
  const signIn = await loadSignIn(provider);
  const clientId = env[signIn.env.clientId];
  const clientSecret = env[signIn.env.clientSecret];
  return clientId && clientSecret
    ? signIn.client({
        clientId,
        clientSecret,
        url: env[signIn.env.url] || signIn.defaultUrl,
        redirectUri: '',
      })
    : undefined;
}

/**
 * `x-mcp-server users list | revoke <user> | forget <user> [--store <url>]`: who signed in; sign
 * one out everywhere; delete everything about one. `<user>` is an id `users list` prints or an email.
 */
export async function usersCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const parsed = adminArguments('users', argv, USERS_HELP);
  if (typeof parsed === 'number') return parsed;
  const [action, user, ...rest] = parsed.positionals;
  const valid =
    (action === 'list' && user === undefined) ||
    ((action === 'revoke' || action === 'forget') && user && rest.length === 0);
  if (!valid) {
    process.stderr.write(USERS_HELP);
    return 2;
  }
  const location = storeUrl(parsed.store, env);
  return withStore('users', location, env, async (hosted, store, keyring) => {
    await hosted.adoptKeyMeta(store, keyring);
    if (action === 'list') {
      for (const entry of await hosted.listUsers(store, keyring))
        process.stdout.write(`${JSON.stringify(entry)}\n`);
      return;
    }
    // Checked before anything changes: a bad MCP_AUDIT stops the command, not the record.
    const audit = hosted.auditTarget(env.MCP_AUDIT, location);
    const id = await hosted.resolveUser(store, keyring, user as string);
    // Forgotten users leave no email behind, not even in the record of their forgetting.
    const email =
      action === 'revoke'
        ? (await hosted.listUsers(store, keyring)).find((entry) => entry.user === id)?.email
        : undefined;
    const signIn = await signInFromEnv(hosted, id, env);
    const options = { ...(signIn ? { signIn } : {}), linked: linkedAccountProviders() };
    const result =
      action === 'revoke'
        ? await hosted.revokeUser(store, keyring, id, options)
        : await hosted.forgetUser(store, keyring, id, options);
    process.stdout.write(`${JSON.stringify({ user: id, ...result })}\n`);
    try {
      await hosted.recordAdminAction(
        audit,
        keyring,
        {
          event: action === 'revoke' ? 'revoke' : 'forget',
          outcome: 'ok',
          userId: id,
          ...(email ? { email } : {}),
          reason: `admin command: users ${action}`,
        },
        env,
      );
    } catch (error) {
      throw new Error(
        `${action === 'revoke' ? 'revoked' : 'forgotten'}, but not recorded in the audit log: ${(error as Error).message}`,
      );
    }
  });
}

/**
 * `x-mcp-server keys rotate [--store <url>]`, with the new `MCP_SECRET` and the old one as
 * `MCP_SECRET_PREVIOUS`: the new key named in the store, every stored record sealed again with it,
 * and a new signing key (the previous one stays published until the tokens it signed have expired).
 */
export async function keysCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const parsed = adminArguments('keys', argv, KEYS_HELP);
  if (typeof parsed === 'number') return parsed;
  if (parsed.positionals.length !== 1 || parsed.positionals[0] !== 'rotate') {
    process.stderr.write(KEYS_HELP);
    return 2;
  }
  return withStore('keys', storeUrl(parsed.store, env), env, async (hosted, store, keyring) => {
    const accessTtl = hosted.secondsFromEnv('MCP_OAUTH_ACCESS_TTL', env.MCP_OAUTH_ACCESS_TTL, 3600);
    const result = await hosted.rotateKeys(store, keyring, { signingKeyMinAgeMs: accessTtl * 1000 });
    process.stdout.write(`${JSON.stringify(result)}\n`);
    if (result.unreadable > 0) {
      process.stderr.write(
        `x-mcp-server keys: ${result.unreadable} records open with neither MCP_SECRET nor MCP_SECRET_PREVIOUS; keep MCP_SECRET_PREVIOUS until you know why.\n`,
      );
    }
  });
}

/** The titles of the sign-ins this server can serve (`A or B` when several). */
const signInTitles = () =>
  signInProviders(PROVIDER_IDS)
    .map((id) => CATALOG.get(id)?.title)
    .join(' or ') || 'sign-in';

const policyHelp = () => `Usage: x-mcp-server policy explain <email> [--account <id>] [--policy <file>]
       x-mcp-server policy check [<file>]
explain: which rule of the policy (--auth oauth) applies to a person, from which line, and what
it gives them (toolsets, read-only, projects, rate limits). Without --account, rules that
match an account are passed over (and named).
check: reads the file as the server would at start (JSON shape and values, each problem with its
line and column); the toolset names are checked against the served ones when the server starts.

Options:
  --account <id>   the ${signInTitles()} account the person signs in to (as hosted_whoami shows it)
  --policy <file>  the policy file (else MCP_POLICY)
  -h, --help       show this help

Environment (as for the server):
  MCP_POLICY       the policy file when --policy (or check's <file>) is not given
  MCP_RATE_LIMIT   tool calls per user where the rule sets none, e.g. 120/min
`;

/**
 * The sign-in a policy file is read for outside the server (`policy check`, `policy explain`):
 * the one this server can serve; undefined when it can serve several (only the generic keys then).
 */
async function commandSignIn(): Promise<PolicySignIn | undefined> {
  const [id, ...others] = signInProviders(PROVIDER_IDS);
  return id === undefined || others.length > 0 ? undefined : policySignIn(id, await loadSignIn(id));
}

const POLICY_OPTIONS = {
  account: { type: 'string' },
  policy: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * `x-mcp-server policy explain <email> [--account <id>]`: the rule that applies to a person and
 * what it gives them; `policy check [<file>]`: the file validated as the server would at start.
 * Reads only the policy file (and MCP_RATE_LIMIT), never the store.
 */
export async function policyCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof POLICY_OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: POLICY_OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    process.stderr.write(
      `x-mcp-server policy: ${(error as Error).message}\nRun x-mcp-server policy --help for usage.\n`,
    );
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(policyHelp());
    return 0;
  }
  const [action, subject, ...rest] = parsed.positionals;
  const explain = action === 'explain' && subject !== undefined && rest.length === 0;
  const check = action === 'check' && rest.length === 0 && parsed.values.account === undefined;
  if (!explain && !check) {
    process.stderr.write(policyHelp());
    return 2;
  }
  const file = (check ? subject : undefined) ?? parsed.values.policy ?? env.MCP_POLICY;
  if (!file) {
    process.stderr.write('x-mcp-server policy: no policy file: give --policy <file> or set MCP_POLICY.\n');
    return 2;
  }
  const account = parsed.values.account;
  if (!nodeAtLeast(22, 12)) {
    process.stderr.write(
      `x-mcp-server policy needs Node.js 22.12 or newer (this is ${process.versions.node}).\n`,
    );
    return 2;
  }
  try {
    const { isAccountId, readPolicyFile, rateFromEnv } = await hostedImport(import('@x/mcp-hosted'));
    const signIn = await commandSignIn();
    if (account !== undefined && !isAccountId(account)) {
      process.stderr.write(
        `x-mcp-server policy: --account must be ${signIn ? `a ${signIn.title}` : 'an'} account id (as hosted_whoami shows it); got ${account}.\n`,
      );
      return 2;
    }
    const policy = await readPolicyFile(file, signIn ? { signIn } : {});
    if (check) {
      process.stdout.write(
        `${policy.file}: valid, ${policy.ruleCount} rule${policy.ruleCount === 1 ? '' : 's'}, sha256 ${policy.digest}\n`,
      );
      return 0;
    }
    const email = subject as string;
    const { decision, needAccount } = policy.explain({ email, accountId: account });
    const envRate = rateFromEnv('MCP_RATE_LIMIT', env.MCP_RATE_LIMIT);
    const rule =
      decision.rule === 'default'
        ? `the default rule${decision.line ? ` (line ${decision.line})` : ' (none written: everything)'}`
        : `rule ${decision.rule}${decision.name ? ` "${decision.name}"` : ''} (line ${decision.line})`;
    const rate =
      decision.rateLimit === 'off'
        ? 'none (the rule says off)'
        : decision.rateLimit
          ? `${decision.rateLimit.text} (the rule)`
          : envRate
            ? `${envRate.text} (MCP_RATE_LIMIT)`
            : 'none';
    const lines = [
      `${email}${account ? `, account ${account}` : ''}: ${rule} of ${policy.file}`,
      `  deny: ${decision.deny ? 'yes: no sign-in, every request refused (403)' : 'no'}`,
    ];
    if (!decision.deny) {
      lines.push(
        `  toolsets: ${decision.toolsets ? decision.toolsets.join(', ') : 'every served toolset'}`,
        `  readOnly: ${decision.readOnly ? 'yes' : 'no'}`,
        `  projects: ${decision.projects ? decision.projects.join(', ') : 'every project'}`,
        `  rateLimit: ${rate}`,
      );
      const toolRates = Object.entries(decision.toolRateLimits ?? {});
      if (toolRates.length > 0) {
        lines.push(`  toolRateLimits: ${toolRates.map(([tool, each]) => `${tool} ${each.text}`).join(', ')}`);
      }
    }
    if (needAccount.length > 0) {
      lines.push(
        `  passed over: rule${needAccount.length === 1 ? '' : 's'} ${needAccount.join(', ')} (they match an account; give --account <id>)`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`x-mcp-server policy: ${(error as Error).message}\n`);
    return 1;
  }
}

const AUDIT_HELP = `Usage: x-mcp-server audit verify [--sink <sink>] [--store <url>]
       x-mcp-server audit tail [--user <id|email>] [--since <time|15m|2h|7d>] [--tool <name>] [-n <count>] [--sink <sink>] [--store <url>]
verify: checks the audit log's hash chain (every record's hash, and that each follows the one
before it): exit 0 and the last record's seq and hash, or exit 1 naming the first bad record.
tail: the last matching records (default 20), oldest first, as JSON lines.

Options:
  --sink <sink>   file:<path> or redis (else MCP_AUDIT; else the server's default for the store:
                  audit.jsonl next to a sqlite: store, the stream on a redis:// store)
  --store <url>   the server's store (else MCP_STORE)
  -h, --help      show this help
`;

const AUDIT_OPTIONS = {
  store: { type: 'string' },
  sink: { type: 'string' },
  user: { type: 'string' },
  since: { type: 'string' },
  tool: { type: 'string' },
  count: { type: 'string', short: 'n' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * `x-mcp-server audit verify | tail`: checks the audit log's hash chain; prints its last records
 * (by user, time, tool). Reads the sink only: no secret needed, next to a running server.
 */
export async function auditCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof AUDIT_OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: AUDIT_OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    process.stderr.write(
      `x-mcp-server audit: ${(error as Error).message}\nRun x-mcp-server audit --help for usage.\n`,
    );
    return 2;
  }
  const { values } = parsed;
  if (values.help) {
    process.stdout.write(AUDIT_HELP);
    return 0;
  }
  const [action, ...rest] = parsed.positionals;
  const tailOnly = values.user ?? values.since ?? values.tool ?? values.count;
  if (rest.length > 0 || !(action === 'tail' || (action === 'verify' && tailOnly === undefined))) {
    process.stderr.write(AUDIT_HELP);
    return 2;
  }
  // The audit log alone (no authorization server): it reads on Node 20 too.
  try {
    const hosted = await hostedImport(import('@x/mcp-hosted/audit'));
    const target = hosted.auditTarget(values.sink ?? env.MCP_AUDIT, storeUrl(values.store, env));
    if (action === 'verify') {
      const report = await hosted.verifyAudit(target);
      process.stdout.write(`${JSON.stringify(report)}\n`);
      if (report.bad) {
        const { source, position, seq, reason } = report.bad;
        process.stderr.write(
          `x-mcp-server audit: the chain breaks at ${source} ${position}${seq === undefined ? '' : ` (seq ${seq})`}: ${reason}.\n`,
        );
        return 1;
      }
      if ((report.firstSeq ?? 1) > 1) {
        process.stderr.write(
          `x-mcp-server audit: the log starts at record ${report.firstSeq}; the ones before were rotated away or trimmed.\n`,
        );
      }
      return 0;
    }
    const count = values.count === undefined ? 20 : Number(values.count);
    if (!Number.isSafeInteger(count) || count < 1) {
      throw new ConfigError(`-n must be a positive whole number; got ${values.count}.`);
    }
    const records = await hosted.tailAudit(target, {
      limit: count,
      ...(values.user ? { user: values.user } : {}),
      ...(values.since ? { since: hosted.parseSince(values.since) } : {}),
      ...(values.tool ? { tool: values.tool } : {}),
    });
    for (const record of records) process.stdout.write(`${JSON.stringify(record)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`x-mcp-server audit: ${(error as Error).message}\n`);
    return (error as Error).name === 'ConfigError' ? 2 : 1;
  }
}
