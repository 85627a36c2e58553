import { randomBytes } from 'node:crypto';
import { ConfigError, type HostedSandboxFake } from '@x/mcp-core';
import type { HttpAuthContext, HttpAuthSetup, ProviderEntry, SandboxHandle } from '@x/mcp-core/node';
import { CATALOG, type ProviderId } from './catalog.js';
import { type CompositionOptions, composeSandbox, selectProviders } from './compose.js';
import { authMode, createOAuthSetup, oauthProviderPolicy } from './hosted.js';

/**
 * `--auth oauth`, and with `--sandbox` the same server against local fakes (`/healthz` says
 * `"sandbox": true`; the banner on stderr names the people who can sign in). Without oauth,
 * `--sandbox` is the bin's own (its providers on their fakes, no sign-in).
 */
export async function createOAuthOrSandboxSetup(
  context: HttpAuthContext,
  composition: CompositionOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<HttpAuthSetup | undefined> {
  if (!context.sandbox || authMode(context.flags.auth, env) !== 'oauth') {
    return createOAuthSetup(context, composition, env);
  }
  const flag = (name: string) =>
    typeof context.flags[name] === 'string' ? (context.flags[name] as string) : undefined;
  const sandbox = await startHostedSandbox(composition, {
    env,
    port: context.port ?? 3000,
    publicUrl: flag('public-url') ?? env.MCP_PUBLIC_URL,
    store: flag('store') ?? env.MCP_STORE,
  });
  try {
    const setup = await createOAuthSetup(context, sandbox.composition, sandbox.env, sandbox.shared);
    if (!setup) throw new Error('--auth oauth set up nothing');
    // Through the runner's stderr sink, in order with the log lines.
    console.error(sandbox.banner());
    return {
      ...setup,
      health: { ...setup.health, sandbox: true },
      close: async () => {
        await setup.close?.();
        await sandbox.close();
      },
    };
  } catch (error) {
    await sandbox.close();
    throw error;
  }
}

/** `--http --auth oauth --sandbox`: the hosted server against local fakes, ready to start. */
export interface HostedSandboxSetup {
  /** The environment the server reads instead of its own: the fakes' addresses, the defaults filled. */
  env: NodeJS.ProcessEnv;
  /** The composition with the per-user providers pointed at their fakes. */
  composition: CompositionOptions;
  /** The shared providers on their own fakes (each provider's `sandbox`). */
  shared(ids: readonly ProviderId[]): Promise<ProviderEntry[]>;
  /** What to print at start: who can sign in, where, and what this is not. */
  banner(): string;
  close(): Promise<void>;
}

/**
 * Starts the fakes of `--auth oauth --sandbox`: those each served per-user provider declares
 * (its connection's `sandbox()`: the sign-in's with sample people, a linked account's) and fills
 * what a real deployment must configure: the public URL (`http://127.0.0.1:<port>`), a memory
 * store, a secret made for this run, the fake sign-in's app and the allowlist. Refuses a real
 * sign-in app: a sandbox is never mistaken for production.
 */
export async function startHostedSandbox(
  composition: CompositionOptions,
  options: { env: NodeJS.ProcessEnv; port: number; publicUrl: string | undefined; store: string | undefined },
): Promise<HostedSandboxSetup> {
  const { env } = options;
  const { perUser } = oauthProviderPolicy(composition);
  const handles: Array<{ close(): Promise<void> }> = [];
  const close = async () => {
    await Promise.all(handles.map((handle) => handle.close().catch(() => {})));
  };
  try {
    // The sign-in first (the server's identity), then the linked accounts, in the catalog's order.
    const declared = perUser
      .map((id) => ({ id, connection: CATALOG.get(id)?.connection }))
      .sort((a, b) => Number(b.connection?.kind === 'sign-in') - Number(a.connection?.kind === 'sign-in'));
    const fakes: Array<{ id: ProviderId; kind: string; fake: HostedSandboxFake }> = [];
    for (const { id, connection } of declared) {
      if (!connection?.sandbox) continue;
      const fake = await connection.sandbox();
      handles.push(fake);
      fakes.push({ id, kind: connection.kind, fake });
    }
    const signInFake = fakes.find(({ fake }) => fake.signIn);
    const signIn = signInFake?.fake.signIn;
    const signInConnection = signInFake ? CATALOG.get(signInFake.id)?.connection : undefined;
    const signInEnv = signInConnection?.kind === 'sign-in' ? (await signInConnection.load()).env : undefined;
    if (signIn && signInEnv) {
      for (const name of [signInEnv.clientId, signInEnv.clientSecret, signInEnv.url]) {
        if (env[name]) {
          throw new ConfigError(
            `--sandbox signs people in at a local fake ${signIn.name}, never a real one: unset ${name}, or leave out --sandbox to run for real.`,
          );
        }
      }
    }
    if (!options.publicUrl && options.port === 0) {
      throw new ConfigError('--sandbox needs a fixed --port (or MCP_PUBLIC_URL): its sign-in returns there.');
    }
    // Every selected provider keeps its config; those with a fake are pointed at it.
    const fakeOf = new Map(fakes.map(({ id, fake }) => [id, fake]));
    const providers = Object.fromEntries(
      selectProviders(composition).map((id) => {
        const own = composition.config?.providers?.[id] ?? {};
        return [id, { ...own, settings: { ...own.settings, ...fakeOf.get(id)?.settings } }];
      }),
    );
    const secretMade = !env.MCP_SECRET && !env.MCP_SECRET_FILE;
    const publicUrl = options.publicUrl ?? `http://127.0.0.1:${options.port}`;
    const store = options.store ?? 'memory:';
    const sandboxEnv: NodeJS.ProcessEnv = {
      ...env,
      MCP_PUBLIC_URL: publicUrl,
      MCP_STORE: store,
      ...(secretMade ? { MCP_SECRET: randomBytes(48).toString('base64url') } : {}),
      ...Object.assign({}, ...fakes.map(({ fake }) => fake.env ?? {})),
      ...(signIn && signInEnv
        ? {
            [signInEnv.clientId]: signIn.clientId,
            [signInEnv.clientSecret]: signIn.clientSecret,
            [signInEnv.url]: signIn.url,
            [signInEnv.allowedAccounts]: env[signInEnv.allowedAccounts] || signIn.allowedAccounts.join(','),
          }
        : {}),
    };
    const allowed = new Set(
      (signInEnv ? (sandboxEnv[signInEnv.allowedAccounts] ?? '') : '').split(',').map((id) => id.trim()),
    );
    return {
      env: sandboxEnv,
      composition: {
        ...composition,
        config: {
          ...composition.config,
          providers: providers as NonNullable<typeof composition.config>['providers'],
        },
      },
      shared: async (sharedIds) => {
        if (sharedIds.length === 0) return [];
        const started: SandboxHandle = await composeSandbox({ ...composition, only: sharedIds });
        handles.push(started);
        return started.provider as ProviderEntry[];
      },
      banner: () => {
        const people = (signIn?.people ?? []).map((person) => {
          const accounts = person.accounts.map((account) => `${account.name} (${account.id})`);
          const admitted = person.accounts.some((account) => allowed.has(account.id));
          return `  - ${person.name} <${person.email}>, account ${accounts.join(', ')}: ${
            admitted ? 'signs in' : `refused (account not in ${signInEnv?.allowedAccounts})`
          }`;
        });
        const fakesLine = fakes
          .map(({ id, kind, fake }) =>
            kind === 'linked-account'
              ? `${fake.description} (link it at ${publicUrl}/connect/${id})`
              : fake.description,
          )
          .join('; ');
        return [
          '',
          '*** SANDBOX: not a production server. Every upstream is a local fake on 127.0.0.1; nothing leaves this machine. ***',
          `MCP endpoint: ${publicUrl}/mcp (point any MCP client at it: the Inspector, VS Code, Claude Code, an SDK client)`,
          ...(signIn
            ? [
                `Sign-in: the client opens this server's consent page, then the fake ${signIn.name}'s page, where you pick who you are:`,
                ...people,
              ]
            : []),
          fakesLine,
          `Store: ${store.split(':')[0]}${options.store ? '' : ' (forgotten when the server stops; --store to keep it)'}; MCP_SECRET: ${
            secretMade ? 'made for this run (set MCP_SECRET to keep sign-ins across restarts)' : 'yours'
          }`,
          '',
        ].join('\n');
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
