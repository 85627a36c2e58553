import { ContentCatalog, DIRECT } from './content.js';
import { describeTool, TOOL_NAME_PATTERN, type ToolDescriptor } from './descriptor.js';
import {
  ConfigError,
  DuplicateToolError,
  InvalidInputError,
  McpToolError,
  NotFoundError,
  ToolValidationError,
} from './errors.js';
import { type CallContext, type ExecuteOptions, executeTool } from './execute.js';
import { createLogger, type Logger } from './logger.js';
import type { AnyPromptDefinition } from './prompt.js';
import type { AnyResourceDefinition } from './resource.js';
import type { ToolCallResult } from './result.js';
import type { AnyToolDefinition, ProviderReadiness, ToolProvider, ToolsetInfo } from './tool.js';
import { renderToolRefs, renderToolRefsDeep, type ToolNamer, toolRef } from './tool-ref.js';
import {
  ENABLE_TOOLSET,
  type EnabledToolset,
  LIST_TOOLSETS,
  type ToolsetStatus,
  toolsetTools,
} from './toolset-tools.js';

export interface ToolRegistryOptions {
  /** Time budget of one call in milliseconds (a tool's own `timeoutMs` wins). Default 60 000. */
  timeoutMs?: number;
  /**
   * Check results against each tool's `outputSchema`; a mismatch becomes `INTERNAL_ERROR`.
   * Default: on unless `NODE_ENV` is `production`.
   */
  validateOutput?: boolean;
  /** Where handler logs and hidden error details go. Default: stderr. */
  logger?: Logger;
}

export interface UseOptions {
  /**
   * Prepended to every tool, prompt and resource name as given (`forge_` makes `get_ticket`
   * into `forge_get_ticket`). Resource URIs stay as they are.
   */
  prefix?: string;
  /**
   * Keep only these tools, prompts and resources: names or `*` patterns, matched against the
   * provider's own names.
   */
  include?: readonly string[];
  /** Drop these tools, prompts and resources: names or `*` patterns. */
  exclude?: readonly string[];
  /**
   * Keep only tools whose `readOnlyHint` is true. Resources only read and stay; a prompt stays
   * when every tool it names in `tools` stays.
   */
  readOnly?: boolean;
  /**
   * What the provider's readiness check means for `/readyz`. `required` (default): the server is
   * not ready while the provider is not. `reported`: it is reported (and its changes logged) but
   * the server stays ready without it: only its own tools fail until it is back. For a provider
   * every replica shares, such as an upstream service: its outage would otherwise take every
   * replica out of rotation at once.
   */
  readiness?: 'required' | 'reported';
}

interface Entry {
  tool: AnyToolDefinition;
  descriptor: ToolDescriptor;
  /** Renders the provider's `toolRef`s with served names (adds the prefix it was used with). */
  served: ToolNamer;
  /** The toolset names (in the one form `narrowing` uses) the tool belongs to; none for `register`ed tools. */
  toolsets: readonly string[];
  /** Built on the first call. */
  options?: ExecuteOptions;
}

/** Told the served names of tools added while the registry is serving (`enable_toolset`). */
export type ToolsAddedListener = (names: readonly string[]) => void;

/** A provider added with `use`: what it serves now, and what it could serve. */
interface Mounted {
  provider: ToolProvider;
  prefix: string;
  options: UseOptions;
  /** Its own names of the tools served now. */
  served: Set<string>;
  /** Its own tool name → the toolset that has it. */
  toolsetOf: Map<string, ToolsetInfo>;
  /** Toolsets built with `loadToolset`, by name. */
  loaded: Map<string, readonly AnyToolDefinition[]>;
}

export const DEFAULT_TIMEOUT_MS = 60_000;

/** What `/readyz` reports: every provider added with `use`, in order. */
export interface RegistryReadiness {
  /** Every `required` provider is ready, and at least one provider is (a server whose every provider is down serves nothing). */
  ready: boolean;
  /** The providers not ready now (with `ready` true, only `reported` ones: the server serves without their tools). */
  unavailable: string[];
  providers: Array<ProviderReadiness & { id: string; readiness: 'required' | 'reported' }>;
}

export class ToolRegistry {
  readonly #entries = new Map<string, Entry>();
  readonly #instructions: string[] = [];
  readonly #providers: ToolProvider[] = [];
  readonly #mounted: Mounted[] = [];
  readonly #timeoutMs: number;
  readonly #validateOutput: boolean;
  readonly #logger: Logger;
  readonly #content: ContentCatalog;
  /** The served name of each `enable_toolset` → the provider whose toolsets it enables. */
  readonly #enablers = new Map<string, Mounted>();
  /** Held weakly: a server that is gone (one per HTTP request) must not be kept alive by us. */
  readonly #listeners = new Set<WeakRef<ToolsAddedListener>>();
  /** The size of `#listeners` at which the collected ones are next dropped. */
  #sweepAt = 64;
  /** Each provider's last readiness, to log its changes once. */
  readonly #lastReady = new Map<string, boolean>();

  constructor(options: ToolRegistryOptions = {}) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new ConfigError(`timeoutMs must be a positive number of milliseconds, got ${timeoutMs}.`);
    }
    this.#timeoutMs = timeoutMs;
    this.#validateOutput = options.validateOutput ?? process.env.NODE_ENV !== 'production';
    this.#logger = options.logger ?? createLogger('mcp');
    this.#content = new ContentCatalog(timeoutMs, this.#logger);
  }

  /** The prompts and resources served next to the tools. */
  get content(): ContentCatalog {
    return this.#content;
  }

  /** Validates a prompt and adds it under its own name. */
  registerPrompt(prompt: AnyPromptDefinition): this {
    this.#content.add({ owner: DIRECT, prefix: '', prompts: [prompt], resources: [] });
    return this;
  }

  /** Validates a resource or resource template and adds it. */
  registerResource(resource: AnyResourceDefinition): this {
    this.#content.add({ owner: DIRECT, prefix: '', prompts: [], resources: [resource] });
    return this;
  }

  /** Validates the tool's published descriptor and adds it. */
  register(tool: AnyToolDefinition): this {
    return this.#add(tool, (name) => name, []);
  }

  #add(tool: AnyToolDefinition, served: ToolNamer, toolsets: readonly string[]): this {
    if (this.#entries.has(tool.name)) throw new DuplicateToolError(tool.name);
    const descriptor = renderToolRefsDeep(describeTool(tool), served);
    this.#entries.set(tool.name, { tool, descriptor, served, toolsets });
    return this;
  }

  /**
   * The toolset names a served tool belongs to, in the one form narrowing uses: its provider's
   * id (`basecamp`) and, when the provider declares toolsets, `<id>.<toolset>` (`basecamp.todos`).
   * `list_toolsets` and `enable_toolset` belong to every toolset of their provider. A tool added
   * with `register` belongs to none; an unknown name gives `undefined`.
   */
  toolsetsOf(name: string): readonly string[] | undefined {
    return this.#entries.get(name)?.toolsets;
  }

  /**
   * The toolset (`<id>.<toolset>`) a call of `name` with `args` would enable, when `name` is an
   * `enable_toolset` and `args` name one of its provider's toolsets.
   */
  toolsetEnabledBy(name: string, args: unknown): string | undefined {
    const mounted = this.#enablers.get(name);
    const wanted = (args as { toolset?: unknown } | null | undefined)?.toolset;
    if (!mounted || typeof wanted !== 'string') return undefined;
    const toolset = mounted.provider.toolsets?.find((each) => each.name === wanted);
    return toolset && `${mounted.provider.id}.${toolset.name}`;
  }

  /**
   * The served name of every tool this registry serves or could serve once its toolset is
   * enabled (`enable_toolset`), sorted.
   */
  knownToolNames(): string[] {
    const names = new Set(this.#entries.keys());
    for (const mounted of this.#mounted) {
      const { include, exclude } = mounted.options;
      for (const name of mounted.toolsetOf.keys()) {
        if (include && !include.some((rule) => matches(rule, name))) continue;
        if (exclude?.some((rule) => matches(rule, name))) continue;
        names.add(`${mounted.prefix}${name}`);
      }
    }
    return [...names].sort();
  }

  /** Every toolset name narrowing accepts, sorted: each provider's id and its `<id>.<toolset>`s. */
  toolsetNames(): string[] {
    const names = new Set<string>();
    for (const provider of this.#providers) {
      names.add(provider.id);
      for (const toolset of provider.toolsets ?? []) names.add(`${provider.id}.${toolset.name}`);
    }
    return [...names].sort();
  }

  /** Adds a provider's tools, optionally prefixed and filtered. A rule that matches no tool is an error. */
  use(provider: ToolProvider, options: UseOptions = {}): this {
    const { tools, prompts, resources } = selectContent(provider, options);
    const prefix = options.prefix ?? '';
    if (prefix !== '' && !/^[a-zA-Z0-9_-]+$/.test(prefix)) {
      throw new ConfigError(
        `Provider ${provider.id}: prefix "${prefix}" may only contain letters, digits, "_" and "-".`,
      );
    }
    const renamed = tools.map((tool) => (prefix ? { ...tool, name: `${prefix}${tool.name}` } : tool));
    for (const tool of renamed) {
      if (!TOOL_NAME_PATTERN.test(tool.name)) {
        throw new ToolValidationError(tool.name, [
          {
            field: 'name',
            message: `is not a valid tool name after adding prefix "${prefix}" (at most 64 characters)`,
          },
        ]);
      }
      if (this.#entries.has(tool.name)) throw new DuplicateToolError(tool.name);
    }
    const badToolset = provider.toolsets?.find((toolset) => !/^[a-z][a-z0-9_-]{0,63}$/.test(toolset.name));
    if (badToolset) {
      throw new ConfigError(
        `Provider ${provider.id}: toolset name "${badToolset.name.slice(0, 64)}" must match ^[a-z][a-z0-9_-]*$ (at most 64 characters).`,
      );
    }
    const mounted: Mounted = {
      provider,
      prefix,
      options,
      served: new Set(tools.map((tool) => tool.name)),
      toolsetOf: new Map(
        (provider.toolsets ?? []).flatMap((toolset) => toolset.tools.map((name) => [name, toolset] as const)),
      ),
      loaded: new Map(),
    };
    const served: ToolNamer = (name) => this.#servedName(mounted, name);
    const meta = provider.loadToolset ? this.#toolsetTools(mounted) : [];
    for (const tool of meta) {
      const name = `${prefix}${tool.name}`;
      if (!TOOL_NAME_PATTERN.test(name) || this.#entries.has(name) || mounted.served.has(tool.name)) {
        throw new ConfigError(
          `Provider ${provider.id}: cannot add ${name} for its toolsets (an invalid or taken name).`,
        );
      }
      mounted.served.add(tool.name);
    }
    this.#content.add({ owner: provider.id, prefix, served, prompts, resources });
    for (const tool of renamed) this.#add(tool, served, toolsetsOf(mounted, tool.name.slice(prefix.length)));
    const all = [
      provider.id,
      ...(provider.toolsets ?? []).map((toolset) => `${provider.id}.${toolset.name}`),
    ];
    for (const tool of meta) this.#add({ ...tool, name: `${prefix}${tool.name}` }, served, all);
    if (meta.length > 0) this.#enablers.set(`${prefix}${ENABLE_TOOLSET}`, mounted);
    if (provider.instructions) this.#instructions.push(renderToolRefs(provider.instructions, served));
    this.#providers.push(provider);
    this.#mounted.push(mounted);
    return this;
  }

  /**
   * How a reference to one of the provider's tools reads. Results are rendered inside their JSON
   * text, so the words must need no escaping (no quotes or backslashes). The served name, or, for a tool that is
   * not served, the name and why (its toolset is off, or the filters or read-only mode drop it).
   */
  #servedName(mounted: Mounted, name: string): string {
    const served = `${mounted.prefix}${name}`;
    if (mounted.served.has(name)) return served;
    const toolset = mounted.toolsetOf.get(name);
    if (toolset && this.#servable(mounted, name)) {
      return mounted.provider.loadToolset
        ? `${served} (toolset ${toolset.name}; if not listed, call ${mounted.prefix}${ENABLE_TOOLSET} first)`
        : `${served} (toolset ${toolset.name}, not served here)`;
    }
    return `${served} (not enabled on this server)`;
  }

  /** Whether the `use` filters and read-only mode let the tool in once its toolset is enabled. */
  #servable(mounted: Mounted, name: string): boolean {
    const { include, exclude, readOnly } = mounted.options;
    if (include && !include.some((rule) => matches(rule, name))) return false;
    if (exclude?.some((rule) => matches(rule, name))) return false;
    if (!readOnly) return true;
    // Without loadToolset the annotations are unknown; such a provider has no enable_toolset either.
    const toolset = mounted.toolsetOf.get(name);
    if (!toolset || !mounted.provider.loadToolset) return true;
    return this.#loadToolset(mounted, toolset.name).some(
      (tool) => tool.name === name && tool.annotations.readOnlyHint,
    );
  }

  #loadToolset(mounted: Mounted, name: string): readonly AnyToolDefinition[] {
    let tools = mounted.loaded.get(name);
    if (!tools) {
      tools = mounted.provider.loadToolset?.(name) ?? [];
      mounted.loaded.set(name, tools);
    }
    return tools;
  }

  #toolsetTools(mounted: Mounted): AnyToolDefinition[] {
    const toolsets = mounted.provider.toolsets ?? [];
    if (toolsets.length === 0) {
      throw new ConfigError(
        `Provider ${mounted.provider.id}: loadToolset is set, but it declares no toolsets.`,
      );
    }
    const status = (toolset: ToolsetInfo): ToolsetStatus => {
      const tools = toolset.tools.filter((name) => this.#servable(mounted, name));
      const servedCount = tools.filter((name) => mounted.served.has(name)).length;
      return {
        name: toolset.name,
        description: toolset.description,
        tools: tools.map((name) => `${mounted.prefix}${name}`),
        tool_count: tools.length,
        served_count: servedCount,
        enabled: servedCount === tools.length,
      };
    };
    return toolsetTools(
      mounted.provider.id,
      toolsets.map((toolset) => toolset.name),
      {
        list: () => toolsets.map(status),
        enable: (name) => this.#enableToolset(mounted, name),
      },
    );
  }

  /** Adds the tools of one toolset that are not served yet, and tells every connected server. */
  #enableToolset(mounted: Mounted, name: string): EnabledToolset {
    const toolsets = mounted.provider.toolsets ?? [];
    const toolset = toolsets.find((each) => each.name === name);
    if (!toolset) {
      throw new InvalidInputError(
        `Unknown toolset "${name.slice(0, 64)}". The toolsets are: ${toolsets.map((each) => each.name).join(', ')}. ${toolRef(LIST_TOOLSETS)} describes them.`,
        { details: { candidates: toolsets.map((each) => each.name) } },
      );
    }
    const wanted = new Set(toolset.tools.filter((tool) => !mounted.served.has(tool)));
    const tools = this.#loadToolset(mounted, toolset.name)
      .filter((tool) => wanted.has(tool.name) && this.#servable(mounted, tool.name))
      .map((tool) => ({ ...tool, name: `${mounted.prefix}${tool.name}` }));
    for (const tool of tools) {
      if (this.#entries.has(tool.name)) throw new DuplicateToolError(tool.name);
      describeTool(tool);
    }
    const served: ToolNamer = (each) => this.#servedName(mounted, each);
    // Served first, so the new tools' references to each other render plainly.
    for (const tool of tools) mounted.served.add(tool.name.slice(mounted.prefix.length));
    for (const tool of tools) {
      this.#add(tool, served, toolsetsOf(mounted, tool.name.slice(mounted.prefix.length)));
    }
    const added = tools.map((tool) => tool.name);
    if (added.length > 0) this.#notify(added);
    return { toolset: toolset.name, added, already_enabled: added.length === 0 };
  }

  /**
   * Calls `listener` with the names of tools added while serving (by `enable_toolset`). The
   * registry holds the listener weakly: keep a reference for as long as it should be called.
   * Returns a function that removes it.
   */
  onToolsAdded(listener: ToolsAddedListener): () => void {
    const reference = new WeakRef(listener);
    // Every HTTP request's server adds one and none removes it: drop the collected ones whenever
    // the set has doubled since the last sweep (amortized O(1)), or it grows with every request.
    if (this.#listeners.size >= this.#sweepAt) {
      for (const known of this.#listeners) if (!known.deref()) this.#listeners.delete(known);
      this.#sweepAt = Math.max(64, 2 * this.#listeners.size);
    }
    this.#listeners.add(reference);
    return () => {
      this.#listeners.delete(reference);
    };
  }

  #notify(names: readonly string[]): void {
    for (const reference of this.#listeners) {
      const listener = reference.deref();
      if (!listener) {
        this.#listeners.delete(reference);
        continue;
      }
      try {
        listener(names);
      } catch (error) {
        this.#logger.error('a tools-added listener failed', { error });
      }
    }
  }

  /**
   * Runs every provider's readiness check at once, each bounded by `timeoutMs` (default 5 s).
   * A provider without a check is ready; a check that throws or times out is not. The server is
   * ready when every provider added with `readiness: 'required'` (the default) is, and at least one
   * provider is (all of them `reported` and all down: nothing can be served); a change of a
   * provider's readiness is logged once (a warning naming its failed checks, then its recovery).
   */
  async readiness({ timeoutMs = 5_000 }: { timeoutMs?: number } = {}): Promise<RegistryReadiness> {
    const providers = await Promise.all(
      this.#mounted.map(async ({ provider, options }) => ({
        id: provider.id,
        readiness: options.readiness ?? ('required' as const),
        ...(await checkProvider(provider, timeoutMs)),
      })),
    );
    for (const provider of providers) {
      const before = this.#lastReady.get(provider.id);
      this.#lastReady.set(provider.id, provider.ready);
      if (before === provider.ready || (before === undefined && provider.ready)) continue;
      if (provider.ready) {
        this.#logger.info(`${provider.id} is ready again`, { provider: provider.id });
        continue;
      }
      const failed = provider.checks
        .filter((check) => !check.ok)
        .map((check) => `${check.name}: ${check.detail ?? 'not ok'}`)
        .join('; ');
      this.#logger.warn(
        provider.readiness === 'reported'
          ? `${provider.id} is not available (${failed}): its tools fail until it is; the server stays ready without it`
          : `${provider.id} is not ready (${failed}): /readyz answers 503 until it is`,
        { provider: provider.id },
      );
    }
    return {
      ready:
        providers.every((provider) => provider.ready || provider.readiness === 'reported') &&
        (providers.length === 0 || providers.some((provider) => provider.ready)),
      unavailable: providers.filter((provider) => !provider.ready).map((provider) => provider.id),
      providers,
    };
  }

  getAll(): AnyToolDefinition[] {
    return [...this.#entries.values()].map((entry) => entry.tool);
  }

  getByName(name: string): AnyToolDefinition | undefined {
    return this.#entries.get(name)?.tool;
  }

  /** Descriptors in registration order: exactly what `tools/list` returns. */
  toMcpTools(): ToolDescriptor[] {
    return [...this.#entries.values()].map((entry) => entry.descriptor);
  }

  /** Instructions of every provider added with `use`, in order. */
  get instructions(): string | undefined {
    return this.#instructions.length > 0 ? this.#instructions.join('\n\n') : undefined;
  }

  /** Calls a tool in process. Failures come back as error results; an unknown name throws `NotFoundError`. */
  call(name: string, args: unknown, context: CallContext = {}): Promise<ToolCallResult> {
    const entry = this.#entries.get(name);
    if (!entry) {
      const candidates = [...this.#entries.keys()].filter((known) => similar(known, name));
      throw new NotFoundError(`Unknown tool: ${name}.`, { details: { candidates } });
    }
    entry.options ??= {
      timeoutMs: entry.tool.timeoutMs ?? this.#timeoutMs,
      validateOutput: this.#validateOutput,
      logger: this.#logger.child(name),
      served: entry.served,
    };
    return executeTool(entry.tool, args, context, entry.options);
  }
}

/** The toolset names of one of the provider's own tools: the provider, and its toolset if any. */
function toolsetsOf(mounted: Mounted, ownName: string): readonly string[] {
  const toolset = mounted.toolsetOf.get(ownName);
  const id = mounted.provider.id;
  return toolset ? [id, `${id}.${toolset.name}`] : [id];
}

async function checkProvider(provider: ToolProvider, timeoutMs: number): Promise<ProviderReadiness> {
  if (!provider.checkReadiness) return { ready: true, checks: [] };
  const signal = AbortSignal.timeout(timeoutMs);
  const timedOut = new Promise<ProviderReadiness>((resolve) =>
    signal.addEventListener('abort', () =>
      resolve({
        ready: false,
        checks: [{ name: 'readiness', ok: false, detail: `no answer within ${timeoutMs} ms` }],
      }),
    ),
  );
  try {
    return await Promise.race([provider.checkReadiness({ signal }), timedOut]);
  } catch (error) {
    const detail = McpToolError.isInstance(error) ? error.message : 'the readiness check failed';
    return { ready: false, checks: [{ name: 'readiness', ok: false, detail }] };
  }
}

/** Convenience for scripts; nothing in this repository relies on it. */
export const globalToolRegistry = new ToolRegistry();

/** The provider's tools, prompts and resources that pass the filters; rules match all three. */
function selectContent(provider: ToolProvider, options: UseOptions) {
  const prompts = provider.prompts ?? [];
  const resources = provider.resources ?? [];
  const own = [...provider.tools, ...prompts, ...resources].map((item) => item.name);
  // Rules may name tools of toolsets not served yet (enable_toolset applies them).
  const later = (provider.toolsets ?? [])
    .flatMap((toolset) => toolset.tools)
    .filter((name) => !own.includes(name));
  const kept = new Set(filterToolNames([...own, ...new Set(later)], options, `Provider ${provider.id}: `));
  const tools = provider.tools.filter(
    (tool) => kept.has(tool.name) && (!options.readOnly || tool.annotations.readOnlyHint),
  );
  if (tools.length === 0) {
    throw new ConfigError(`Provider ${provider.id}: the filters leave none of its tools.`);
  }
  const served = new Set(tools.map((tool) => tool.name));
  const known = new Set(provider.tools.map((tool) => tool.name));
  for (const prompt of prompts) {
    const unknown = (prompt.tools ?? []).filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw new ConfigError(
        `Provider ${provider.id}: prompt ${prompt.name} names tools this provider does not have: ${unknown.join(', ')}.`,
      );
    }
  }
  return {
    tools,
    prompts: prompts.filter(
      (prompt) => kept.has(prompt.name) && (prompt.tools ?? []).every((name) => served.has(name)),
    ),
    resources: resources.filter((resource) => kept.has(resource.name)),
  };
}

/**
 * The names kept by `include` / `exclude` rules (names or `*` patterns). A rule that matches no
 * name is a `ConfigError` listing the names, prefixed with `scope`.
 */
export function filterToolNames(
  names: readonly string[],
  { include, exclude }: Pick<UseOptions, 'include' | 'exclude'>,
  scope = '',
): string[] {
  const unmatched = [...(include ?? []), ...(exclude ?? [])].filter(
    (rule) => !names.some((name) => matches(rule, name)),
  );
  if (unmatched.length > 0) {
    throw new ConfigError(
      `${scope}filter rule(s) ${unmatched.map((rule) => `"${rule}"`).join(', ')} match no tool, prompt or resource. The names are: ${names.join(', ')}.`,
    );
  }
  return names.filter(
    (name) =>
      (!include || include.some((rule) => matches(rule, name))) &&
      !(exclude ?? []).some((rule) => matches(rule, name)),
  );
}

function matches(rule: string, name: string): boolean {
  if (!rule.includes('*')) return rule === name;
  const pattern = rule
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`).test(name);
}

function similar(known: string, wanted: string): boolean {
  const a = known.toLowerCase();
  const b = wanted.toLowerCase();
  return a.includes(b) || b.includes(a) || a.replace(/^[^_]*_/, '') === b.replace(/^[^_]*_/, '');
}
