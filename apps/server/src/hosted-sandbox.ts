import { randomBytes } from 'node:crypto';
import { ConfigError } from '@x/mcp-core';
import type { HttpAuthContext, HttpAuthSetup, ProviderEntry, SandboxHandle } from '@x/mcp-core/node';
import type { ProviderId } from './catalog.js';
import { type CompositionOptions, composeSandbox, selectProviders } from './compose.js';
import { authMode, createOAuthSetup } from './hosted.js';

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
  /** The shared providers (BBj RAG, a shared Context Forge) on their own fakes. */
  shared(ids: readonly ProviderId[]): Promise<ProviderEntry[]>;
  /** What to print at start: who can sign in, where, and what this is not. */
  banner(): string;
  close(): Promise<void>;
}

/**
 * Starts the fakes of `--auth oauth --sandbox` (Basecamp and its Launchpad with sample people;
 * Forge when served) and fills what a real deployment must configure: the public URL
 * (`http://127.0.0.1:<port>`), a memory store, a secret made for this run, the fake Launchpad's
 * app and the allowlist. Refuses a real Launchpad app: a sandbox is never mistaken for production.
 */
export async function startHostedSandbox(
  composition: CompositionOptions,
  options: { env: NodeJS.ProcessEnv; port: number; publicUrl: string | undefined; store: string | undefined },
): Promise<HostedSandboxSetup> {
  const { env } = options;
  for (const name of ['BASECAMP_CLIENT_ID', 'BASECAMP_CLIENT_SECRET', 'BASECAMP_LAUNCHPAD_URL']) {
    if (env[name]) {
      throw new ConfigError(
        `--sandbox signs people in at a local fake Launchpad, never a real one: unset ${name}, or leave out --sandbox to run for real.`,
      );
    }
  }
  if (!options.publicUrl && options.port === 0) {
    throw new ConfigError('--sandbox needs a fixed --port (or MCP_PUBLIC_URL): its sign-in returns there.');
  }
  const ids = selectProviders(composition);
  const { createHostedSandbox } = await import('@x/mcp-basecamp/testing');
  const basecamp = await createHostedSandbox();
  const handles: Array<{ close(): Promise<void> }> = [basecamp];
  const close = async () => {
    await Promise.all(handles.map((handle) => handle.close().catch(() => {})));
  };
  try {
    let forgeUrl: string | undefined;
    if (ids.includes('forge')) {
      const { startFakeForge } = await import('@x/mcp-forge/testing');
      const forge = await startFakeForge();
      handles.push(forge);
      forgeUrl = forge.url;
    }
    // Every selected provider keeps its config; Basecamp and Forge get their fakes' addresses.
    const providers = Object.fromEntries(
      ids.map((id) => {
        const own = composition.config?.providers?.[id] ?? {};
        const fake =
          id === 'basecamp'
            ? { apiUrl: basecamp.apiUrl, contact: 'sandbox@localhost' }
            : id === 'forge' && forgeUrl
              ? { apiUrl: forgeUrl }
              : {};
        return [id, { ...own, settings: { ...own.settings, ...fake } }];
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
      BASECAMP_CLIENT_ID: basecamp.launchpad.clientId,
      BASECAMP_CLIENT_SECRET: basecamp.launchpad.clientSecret,
      BASECAMP_LAUNCHPAD_URL: basecamp.launchpad.url,
      BASECAMP_ALLOWED_ACCOUNTS: env.BASECAMP_ALLOWED_ACCOUNTS || basecamp.allowedAccounts.join(','),
      ...(forgeUrl ? { FORGE_API_URL: forgeUrl } : {}),
    };
    const allowed = new Set((sandboxEnv.BASECAMP_ALLOWED_ACCOUNTS ?? '').split(',').map((id) => id.trim()));
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
        const fakes: SandboxHandle = await composeSandbox({ ...composition, only: sharedIds });
        handles.push(fakes);
        return fakes.provider as ProviderEntry[];
      },
      banner: () => {
        const people = basecamp.people.map(({ identity }) => {
          const accounts = (identity.accounts ?? []).map((account) => `${account.name} (${account.id})`);
          const admitted = (identity.accounts ?? []).some((account) => allowed.has(String(account.id)));
          return `  - ${identity.firstName} ${identity.lastName} <${identity.email}>, account ${accounts.join(', ')}: ${
            admitted ? 'signs in' : 'refused (account not in BASECAMP_ALLOWED_ACCOUNTS)'
          }`;
        });
        return [
          '',
          '*** SANDBOX: not a production server. Every upstream is a local fake on 127.0.0.1; nothing leaves this machine. ***',
          `MCP endpoint: ${publicUrl}/mcp (point any MCP client at it: the Inspector, VS Code, Claude Code, an SDK client)`,
          `Sign-in: the client opens this server's consent page, then the fake Launchpad's page, where you pick who you are:`,
          ...people,
          `Fake Basecamp (Honcho Design's data): ${basecamp.apiUrl}; fake Launchpad: ${basecamp.launchpad.url}${forgeUrl ? `; fake Forge: ${forgeUrl} (link it at ${publicUrl}/connect/forge)` : ''}`,
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
