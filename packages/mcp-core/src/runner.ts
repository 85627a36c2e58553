import { format, parseArgs } from 'node:util';
import { RegistryView } from './access.js';
import { ConfigError, DuplicateToolError, McpToolError, ToolValidationError } from './errors.js';
import type { HttpAuth, HttpTimeouts, MetricGauge } from './http.js';
import { stderrLogSink } from './log-sink.js';
import { createLogger } from './logger.js';
import { isLoopbackHost } from './loopback.js';
import { DEFAULT_TIMEOUT_MS, filterToolNames, ToolRegistry, type UseOptions } from './registry.js';
import { RUNNER_ENVIRONMENT } from './runner-environment.js';
import { claimStdout, serveStdio } from './stdio.js';
import { parseSurface, type Surface } from './surface/search.js';
import type { TaskHost } from './tasks.js';
import type { ToolProvider } from './tool.js';

/** A provider with its own `use` options (prefix, filters, read-only), for composed servers. */
export interface ProviderEntry {
  provider: ToolProvider;
  use?: UseOptions;
}

/** One provider, or several composed into one server. */
export type ProviderSource = ToolProvider | readonly ProviderEntry[];

/** A subcommand such as `login`: `<bin> login [args]` runs it instead of a server. */
export interface BinCommand {
  /** One line for `--help`. */
  summary: string;
  /** Receives the arguments after the command name; resolves with the exit code. */
  run(argv: readonly string[]): Promise<number> | number;
}

/** A flag of this bin beyond the shared ones, shown in `--help` and passed to `createProvider`. */
export interface BinFlag {
  type: 'string' | 'boolean';
  /** Shown in `--help`, e.g. `<file>`. */
  value?: string;
  description: string;
}

/** What `createProvider` and `createSandbox` receive. */
export interface BinContext {
  /** Values of the bin's own `flags`, by name (a string, or true when a boolean flag is given). */
  flags: Readonly<Record<string, string | boolean | undefined>>;
  /** How the server is reached: `stdio` (stdout carries JSON-RPC), or `http` (`--http`). */
  transport?: 'stdio' | 'http';
}

export interface SandboxHandle<Source extends ProviderSource = ProviderSource> {
  /** A provider (or several) wired to the local fake upstream. */
  provider: Source;
  /** Shown on stderr at start, e.g. where the fake listens. */
  description?: string;
  close(): Promise<void>;
}

/** What `createHttpAuth` returns: the strategy, and what else `--http` needs for it. */
export interface HttpAuthSetup {
  auth: HttpAuth;
  /** `Host` names to accept besides loopback (e.g. the public host name). */
  allowedHosts?: readonly string[];
  /** `Origin` host names to accept besides loopback (e.g. the public host name, for its own forms). */
  allowedOrigins?: readonly string[];
  /** Called when the server stops (close stores, caches). */
  close?(): Promise<void>;
  /** What `/readyz` and `/healthz` report on in this mode, instead of the bin's providers. */
  provider?: ProviderSource;
  /** Gauges of this mode for `/metrics`, e.g. how many users' registries are held. */
  gauges?: readonly MetricGauge[];
  /** Fields `/healthz` adds to its answer, e.g. `{ sandbox: true }`. */
  health?: Readonly<Record<string, unknown>>;
  /**
   * Where this mode keeps tasks (tools that declare `task`), e.g. a host over the hosted store so
   * that every replica answers a task's polls. Default: this process's memory.
   */
  tasks?: TaskHost;
  /**
   * The key every replica of this mode signs a question's carried answers with (`requestState`,
   * see `CreateMcpServerOptions.requestStateKey`). Default: a key random to this process.
   */
  requestStateKey?: string;
}

/** What `createHttpAuth` receives. */
export interface HttpAuthContext extends BinContext {
  /** Builds a registry the way the bin builds its own (`--include`, `--exclude`, `--read-only` applied), e.g. one per user. */
  compose(source: ProviderSource): ToolRegistry;
  /** `--sandbox`: the strategy runs against local fakes of its upstreams (the bin's sandbox is not started). */
  sandbox?: boolean;
  /** The port the server will listen on (`--port`, else `PORT`, else 3000; 0: any free one). */
  port?: number;
}

export interface EnvironmentVariable {
  name: string;
  description: string;
}

export interface RunBinOptions {
  /** The command name, e.g. `forge-mcp`. */
  name: string;
  version: string;
  /** One line for `--help`. */
  description: string;
  /**
   * Loads the provider, or several with their own options. Import heavy modules inside it so
   * `--help` and the handshake stay fast.
   */
  createProvider: (context: BinContext) => ProviderSource | Promise<ProviderSource>;
  /** Fills `--sandbox`: start a local fake of the upstream and return a provider wired to it. */
  createSandbox?: (context: BinContext) => Promise<SandboxHandle>;
  /**
   * `--http` only: an auth strategy instead of `MCP_HTTP_TOKEN` (e.g. OAuth for many users), or
   * `undefined` to keep the token. Errors are configuration errors (exit 2).
   */
  createHttpAuth?: (context: HttpAuthContext) => Promise<HttpAuthSetup | undefined>;
  /** Subcommands, e.g. `login` and `logout`. */
  commands?: Readonly<Record<string, BinCommand>>;
  /** Flags of this bin beyond the shared ones. */
  flags?: Readonly<Record<string, BinFlag>>;
  /** Documented in `--help`. */
  environment?: readonly EnvironmentVariable[];
  /** Defaults to `process.argv.slice(2)`. */
  argv?: readonly string[];
  /**
   * The surface the bin's own configuration asks for (a config file's `surface` key), below
   * `--surface` and `MCP_SURFACE`. Asked only when neither is given, when the tools load.
   */
  surface?: (context: BinContext) => Surface | undefined | Promise<Surface | undefined>;
}

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  http: { type: 'boolean' },
  port: { type: 'string' },
  host: { type: 'string' },
  'allowed-hosts': { type: 'string' },
  'allow-unauthenticated': { type: 'boolean' },
  'read-only': { type: 'boolean' },
  toolsets: { type: 'string' },
  include: { type: 'string' },
  exclude: { type: 'string' },
  'timeout-ms': { type: 'string' },
  surface: { type: 'string' },
  sandbox: { type: 'boolean' },
  'no-confirm': { type: 'boolean' },
} as const;

/**
 * The `main` of every provider bin. Resolves when the server has stopped; exits the process
 * itself only on a usage error or a signal.
 */
export async function runBin(options: RunBinOptions): Promise<void> {
  const argv = options.argv ?? process.argv.slice(2);
  const command = argv[0] === undefined ? undefined : options.commands?.[argv[0]];
  if (command) {
    process.exitCode = await command.run(argv.slice(1));
    return;
  }
  const wantsStdio = !argv.includes('--http') && !argv.some((arg) => /^(-h|--help|-v|--version)$/.test(arg));
  // Before any provider code loads: from here on a stray console.log cannot reach the protocol stream.
  if (wantsStdio) claimStdout();
  const logger = createLogger(options.name);
  // Everything for stderr through the logger's sink, so it all keeps one order and is written at exit.
  const sink = stderrLogSink();
  const stderr = (text: string) => sink.write(text);
  for (const method of ['log', 'info', 'debug', 'warn', 'error'] as const) {
    console[method] = (...args: unknown[]) => stderr(`${format(...args)}\n`);
  }

  let flags: ReturnType<typeof parseFlags>;
  try {
    flags = parseFlags(argv, options.flags ?? {});
  } catch (error) {
    stderr(`${options.name}: ${(error as Error).message}\nRun ${options.name} --help for usage.\n`);
    process.exitCode = 2;
    return;
  }
  // --help and --version are not server modes, so they answer on stdout like any CLI.
  if (flags.help) {
    process.stdout.write(helpText(options));
    return;
  }
  if (flags.version) {
    process.stdout.write(`${options.version}\n`);
    return;
  }
  if (flags.sandbox && !options.createSandbox) {
    stderr(`${options.name}: --sandbox is not available for this server.\n`);
    process.exitCode = 2;
    return;
  }

  let sandbox: SandboxHandle | undefined;
  const context: BinContext = { flags: flags.own, transport: flags.http ? 'http' : 'stdio' };
  // --surface, else MCP_SURFACE, else the bin's configuration, else list.
  let surface: Promise<Surface> | undefined = flags.surface && Promise.resolve(flags.surface);
  const servedSurface = (): Promise<Surface> => {
    surface ??= Promise.resolve(options.surface?.(context)).then((configured) => configured ?? 'list');
    return surface;
  };
  const loadRegistry = async (): Promise<ToolRegistry> => {
    let source: ProviderSource;
    if (flags.sandbox && options.createSandbox) {
      sandbox = await options.createSandbox(context);
      logger.info(`sandbox: ${sandbox.description ?? 'local fake upstream started'}`);
      source = sandbox.provider;
    } else {
      source = await options.createProvider(context);
    }
    const registry = new ToolRegistry({ logger, ...(flags.timeoutMs ? { timeoutMs: flags.timeoutMs } : {}) });
    return composeInto(registry, isProviderList(source) ? source : [{ provider: source }], flags);
  };

  // `--toolsets` narrows what is served, in the form connection URLs use (basecamp.todos).
  const loadServed = async (): Promise<ToolRegistry | RegistryView> => {
    const registry = await loadRegistry();
    if (!flags.toolsets) return registry;
    const valid = registry.toolsetNames();
    const unknown = flags.toolsets.filter((name) => !valid.includes(name));
    if (unknown.length > 0) {
      throw new ConfigError(
        `--toolsets: unknown toolset${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}. The toolsets are: ${valid.join(', ')} (a provider, or a provider, a dot and one of its toolsets).`,
      );
    }
    return new RegistryView(registry, [{ source: 'the --toolsets flag', toolsets: flags.toolsets }], {
      logger,
    });
  };

  const token = process.env.MCP_HTTP_TOKEN || undefined;
  const host = flags.host ?? '127.0.0.1';
  const openBeyondLoopback = flags.http && !token && !flags.allowUnauthenticated && !isLoopbackHost(host);
  const refuseOpen = () => {
    stderr(
      `${options.name}: refusing to listen on ${host} without a bearer token: anyone who can reach it could call the tools. Set MCP_HTTP_TOKEN, use --host 127.0.0.1, or pass --allow-unauthenticated (only on a trusted network behind your own authentication).\n`,
    );
    process.exitCode = 2;
  };
  // A bin with its own auth strategy (createHttpAuth) is checked once the strategy is known.
  if (openBeyondLoopback && !options.createHttpAuth) {
    refuseOpen();
    return;
  }

  let stop: (() => Promise<void>) | undefined;
  let stopped: Promise<void>;
  try {
    if (flags.http) {
      // Loaded only in HTTP mode: stdio servers never pay for node:http.
      const { serveHttp } = await import('./http.js');
      const compose = (source: ProviderSource) =>
        composeInto(
          new ToolRegistry({ logger, ...(flags.timeoutMs ? { timeoutMs: flags.timeoutMs } : {}) }),
          isProviderList(source) ? source : [{ provider: source }],
          flags,
        );
      const port = flags.port ?? (process.env.PORT ? parsePort(process.env.PORT) : 3000);
      const setup = await options.createHttpAuth?.({ ...context, compose, sandbox: flags.sandbox, port });
      if (setup && flags.toolsets) {
        throw new ConfigError(
          '--toolsets narrows a server for one user; with an auth mode give people narrowed connector URLs (/mcp/x/<toolsets>) instead.',
        );
      }
      if (setup && token) {
        throw new ConfigError('MCP_HTTP_TOKEN and an auth mode cannot be used together: unset one.');
      }
      if (!setup && openBeyondLoopback) {
        refuseOpen();
        return;
      }
      const allowedHosts = [...(flags.allowedHosts ?? []), ...(setup?.allowedHosts ?? [])];
      const registry = setup?.provider ? compose(setup.provider) : await loadServed();
      const handle = await serveHttp({
        name: options.name,
        version: options.version,
        registry,
        surface: await servedSurface(),
        ...(flags.confirm ? {} : { confirm: false }),
        port,
        host,
        ...(token ? { token } : {}),
        ...(setup ? { auth: setup.auth } : {}),
        allowUnauthenticated: flags.allowUnauthenticated,
        ...(allowedHosts.length > 0 ? { allowedHosts } : {}),
        ...(setup?.allowedOrigins ? { allowedOrigins: setup.allowedOrigins } : {}),
        metrics: metricsOption(host),
        timeouts: httpTimeouts(process.env),
        ...(setup?.gauges ? { gauges: setup.gauges } : {}),
        ...(setup?.health ? { health: setup.health } : {}),
        ...(setup?.tasks ? { tasks: setup.tasks } : {}),
        ...(setup?.requestStateKey ? { requestStateKey: setup.requestStateKey } : {}),
        logger,
      });
      logger.info(
        `listening on ${handle.url}${token ? ' (bearer token required)' : setup ? ' (auth strategy)' : ''}`,
      );
      stop = async () => {
        await handle.close();
        await setup?.close?.();
      };
      stopped = new Promise((resolve) => handle.server.once('close', resolve));
    } else {
      let registry: Promise<ToolRegistry | RegistryView> | undefined;
      const handle = serveStdio({
        name: options.name,
        version: options.version,
        registry: () => {
          registry ??= loadServed();
          return registry;
        },
        surface: servedSurface,
        ...(flags.confirm ? {} : { confirm: false }),
        logger,
        drainTimeoutMs: flags.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      });
      stop = handle.close;
      stopped = handle.closed;
      logger.info(
        process.stdin.isTTY
          ? `serving MCP over stdio and waiting for a client on stdin. This is not hung: an MCP client (Claude Desktop, Claude Code, Cursor, VS Code) starts this command itself. Press Ctrl+C to stop; see ${options.name} --help.`
          : 'serving MCP over stdio; waiting for a client on stdin',
      );
      // Load the provider right after connecting, so a bad configuration shows at once.
      registry ??= loadServed();
      await registry;
      await servedSurface();
    }
  } catch (error) {
    await stop?.().catch(() => {});
    await sandbox?.close().catch(() => {});
    const message = error instanceof Error ? error.message : String(error);
    stderr(`${options.name}: ${message}\n`);
    // A configuration problem is a usage error; stdin may still hold the process open, so exit.
    process.exit(
      McpToolError.isInstance(error) ||
        error instanceof ToolValidationError ||
        error instanceof DuplicateToolError
        ? 2
        : 1,
    );
  }

  let shuttingDown = false;
  const shutdown = async (reason: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.debug(`stopping (${reason})`);
    await stop?.().catch((error: unknown) => logger.error('error while stopping', { error }));
    await sandbox?.close().catch(() => {});
  };
  const onSignal = (signal: NodeJS.Signals) => {
    void shutdown(signal).then(() => process.exit(0));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  await stopped;
  await shutdown('client disconnected');
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}

const isProviderList = (source: ProviderSource): source is readonly ProviderEntry[] => Array.isArray(source);

/**
 * Adds every entry with its own options, then applies the command line on top: `--read-only`
 * to all, and `--include` / `--exclude` matched against the final (prefixed) names across all
 * providers. A rule that matches no tool anywhere is an error, as for a single provider.
 */
function composeInto(
  registry: ToolRegistry,
  entries: readonly ProviderEntry[],
  flags: Pick<ReturnType<typeof parseFlags>, 'include' | 'exclude' | 'readOnly'>,
): ToolRegistry {
  if (entries.length === 1 && entries[0] && !entries[0].use) {
    return registry.use(entries[0].provider, {
      ...(flags.include ? { include: flags.include } : {}),
      ...(flags.exclude ? { exclude: flags.exclude } : {}),
      readOnly: flags.readOnly,
    });
  }
  if (!flags.include && !flags.exclude) {
    // Each provider keeps its own rules, so tools enable_toolset adds later are filtered by them too.
    for (const { provider, use = {} } of entries) {
      registry.use(provider, { ...use, readOnly: (use.readOnly ?? false) || flags.readOnly });
    }
    return registry;
  }
  const staged = new ToolRegistry();
  for (const { provider, use = {} } of entries) {
    staged.use(provider, { ...use, readOnly: (use.readOnly ?? false) || flags.readOnly });
  }
  const names = [
    ...staged.getAll().map((tool) => tool.name),
    ...staged.content.listPrompts().map((prompt) => prompt.name),
    ...staged.content.listResourceDescriptors().map((resource) => resource.name),
  ];
  const chosen = new Set(
    filterToolNames(names, {
      ...(flags.include ? { include: flags.include } : {}),
      ...(flags.exclude ? { exclude: flags.exclude } : {}),
    }),
  );
  for (const { provider, use = {} } of entries) {
    const prefix = use.prefix ?? '';
    const own = [...provider.tools, ...(provider.prompts ?? []), ...(provider.resources ?? [])]
      .map((item) => item.name)
      .filter((name) => chosen.has(`${prefix}${name}`));
    if (!provider.tools.some((tool) => own.includes(tool.name))) continue;
    registry.use(provider, { prefix, include: own, readOnly: (use.readOnly ?? false) || flags.readOnly });
  }
  return registry;
}

function parseFlags(argv: readonly string[], own: Readonly<Record<string, BinFlag>>) {
  const extra = Object.fromEntries(Object.entries(own).map(([name, flag]) => [name, { type: flag.type }]));
  const { values } = parseArgs({
    args: [...argv],
    options: { ...extra, ...OPTIONS },
    strict: true,
    allowPositionals: false,
  });
  const list = (value: string | undefined) =>
    value
      ?.split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  const httpOnly = (['port', 'host', 'allowed-hosts', 'allow-unauthenticated'] as const).filter(
    (name) => values[name] !== undefined,
  );
  if (!values.http && !values.help && !values.version && httpOnly.length > 0) {
    const given = httpOnly.map((name) => `--${name}`).join(', ');
    throw new Error(
      `${given} only ${httpOnly.length === 1 ? 'applies' : 'apply'} with --http. Add --http to serve HTTP, or leave ${httpOnly.length === 1 ? 'it' : 'them'} out to serve stdio.`,
    );
  }
  const timeoutMs = values['timeout-ms'] === undefined ? undefined : Number(values['timeout-ms']);
  // --help and --version answer whatever the environment says.
  const surfaceSetting =
    values.surface !== undefined
      ? { value: values.surface, source: '--surface' }
      : process.env.MCP_SURFACE && !values.help && !values.version
        ? { value: process.env.MCP_SURFACE, source: 'MCP_SURFACE' }
        : undefined;
  const surface = surfaceSetting && parseSurface(surfaceSetting.value, surfaceSetting.source);
  // --no-confirm, else MCP_CONFIRM (on, the default, or off).
  const confirmSetting = process.env.MCP_CONFIRM?.trim().toLowerCase() || 'on';
  if (!values['no-confirm'] && !values.help && !values.version && !['on', 'off'].includes(confirmSetting)) {
    throw new Error(`MCP_CONFIRM must be on or off, got "${process.env.MCP_CONFIRM?.slice(0, 40)}".`);
  }
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
    throw new Error(`--timeout-ms must be a positive integer, got "${values['timeout-ms']}".`);
  }
  return {
    help: values.help ?? false,
    version: values.version ?? false,
    http: values.http ?? false,
    port: values.port === undefined ? undefined : parsePort(values.port),
    host: values.host,
    allowedHosts: list(values['allowed-hosts']),
    allowUnauthenticated: values['allow-unauthenticated'] ?? false,
    readOnly: values['read-only'] ?? false,
    // A bin with its own --toolsets (basecamp-mcp: its toolsets to load) reads it itself.
    toolsets: own.toolsets ? undefined : list(values.toolsets),
    include: list(values.include),
    exclude: list(values.exclude),
    timeoutMs,
    surface,
    sandbox: values.sandbox ?? false,
    confirm: !values['no-confirm'] && confirmSetting !== 'off',
    own: Object.fromEntries(
      Object.keys(own).map((name) => [name, (values as Record<string, string | boolean | undefined>)[name]]),
    ),
  };
}

function parsePort(raw: string): number {
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`port must be an integer between 0 and 65535, got "${raw}".`);
  }
  return port;
}

function helpText(options: RunBinOptions): string {
  const environment = [...(options.environment ?? []), ...RUNNER_ENVIRONMENT];
  const width = Math.max(...environment.map((variable) => variable.name.length));
  const commands = Object.entries(options.commands ?? {});
  const commandWidth = Math.max(0, ...commands.map(([name]) => name.length));
  const usage = commands.length
    ? `Usage: ${options.name} [options]\n       ${options.name} <command> [args]\n\nCommands:\n${commands
        .map(([name, command]) => `  ${name.padEnd(commandWidth)}  ${command.summary}`)
        .join('\n')}\n`
    : `Usage: ${options.name} [options]\n`;
  const ownFlags = Object.entries(options.flags ?? {}).map(([name, flag]) => {
    const left = `--${name}${flag.value ? ` ${flag.value}` : ''}`;
    return `  ${left.padEnd(23)}  ${flag.description}\n`;
  });
  return `${options.name} ${options.version}
${options.description}

${usage}
Serves MCP over stdio by default (for Claude Desktop, Claude Code, Cursor, VS Code).

Options:
${ownFlags.join('')}  --http                   serve stateless Streamable HTTP instead of stdio
  --port <n>               HTTP port (default $PORT or 3000)
  --host <addr>            HTTP listen address (default 127.0.0.1)
  --allowed-hosts <a,b>    extra Host header names to accept over HTTP
  --allow-unauthenticated  listen beyond loopback without MCP_HTTP_TOKEN (trusted networks only)
  --read-only              serve only tools that never change anything
${options.flags?.toolsets ? '' : '  --toolsets <a,b>         serve only these toolsets: a provider (forge) or provider.toolset (basecamp.todos)\n'}  --include <a,b>          serve only these tools, prompts, resources (names or * patterns)
  --exclude <a,b>          do not serve these tools, prompts, resources (names or * patterns)
  --timeout-ms <n>         time budget of one tool call (default 60000)
  --surface <list|search>  search: serve search_tools, describe_tool, call_tool instead of every tool
  --sandbox                serve against a local fake of the upstream (no account needed)${options.createSandbox ? '' : ' [not available]'}
  --no-confirm             never ask the person to confirm a destructive call (unattended agents)
  -h, --help               show this help
  -v, --version            print the version

Environment:
${environment.map((variable) => `  ${variable.name.padEnd(width)}  ${variable.description}`).join('\n')}
`;
}

/**
 * `/metrics`: behind `MCP_METRICS_TOKEN` when it is set; without it only on loopback (the
 * counts of a public server are not for everyone); `MCP_METRICS=off` turns metrics off.
 */
/** `MCP_HTTP_HEADERS_TIMEOUT`, `MCP_HTTP_REQUEST_TIMEOUT`, `MCP_HTTP_KEEPALIVE_TIMEOUT` (milliseconds). */
function httpTimeouts(env: NodeJS.ProcessEnv): HttpTimeouts {
  const timeouts: HttpTimeouts = {};
  for (const [name, key] of [
    ['MCP_HTTP_HEADERS_TIMEOUT', 'headersMs'],
    ['MCP_HTTP_REQUEST_TIMEOUT', 'requestMs'],
    ['MCP_HTTP_KEEPALIVE_TIMEOUT', 'keepAliveMs'],
  ] as const) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isInteger(value) || value <= 0) {
      throw new ConfigError(`${name} must be a positive whole number of milliseconds, got "${raw}".`);
    }
    timeouts[key] = value;
  }
  return timeouts;
}

function metricsOption(host: string): boolean | { token: string } {
  if (process.env.MCP_METRICS?.toLowerCase() === 'off') return false;
  const token = process.env.MCP_METRICS_TOKEN || undefined;
  if (token) return { token };
  return isLoopbackHost(host);
}
