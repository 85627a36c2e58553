import { UriTemplate } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { Completer } from './completion.js';
import {
  ConfigError,
  DuplicateToolError,
  InvalidInputError,
  McpToolError,
  ToolTimeoutError,
} from './errors.js';
import type { CallContext } from './execute.js';
import type { Logger } from './logger.js';
import {
  type AnyPromptDefinition,
  type ContentContext,
  describePrompt,
  PROMPT_NAME_PATTERN,
  type PromptDescriptor,
  type PromptResult,
} from './prompt.js';
import { INVALID_PARAMS, McpRequestError, toRequestError } from './request-error.js';
import {
  type AnyResourceDefinition,
  type AnyResourceTemplateDefinition,
  describeResource,
  isResourceTemplate,
  type ListedResource,
  type ResourceContent,
  type ResourceDescriptor,
  resourceAuthority,
} from './resource.js';
import { renderToolRefs, renderToolRefsDeep, type ToolNamer } from './tool-ref.js';

interface PromptEntry {
  prompt: AnyPromptDefinition;
  descriptor: PromptDescriptor;
  owner: string;
  /** Served names of the tools its workflow calls (`prompt.tools`). */
  tools: readonly string[];
  toolName: (ownName: string) => string;
}

interface ResourceEntry {
  resource: AnyResourceDefinition;
  descriptor: ResourceDescriptor;
  owner: string;
  template?: UriTemplate;
  toolName: (ownName: string) => string;
}

/** What `add` takes from one provider, already filtered. */
export interface ContentBatch {
  owner: string;
  prefix: string;
  /** The served name of each of the provider's own tools (what `toolRef` renders to). */
  served?: ToolNamer;
  prompts: readonly AnyPromptDefinition[];
  resources: readonly AnyResourceDefinition[];
}

const IN_PROCESS = Object.freeze({ transport: 'in-process' as const });
/** The owner of prompts and resources added with `registerPrompt` / `registerResource`. */
export const DIRECT = 'registry';
const SAME_NAME = (name: string) => name;

/**
 * The prompts and resources a `ToolRegistry` serves next to its tools: validated at
 * registration, names prefixed like tool names, resource URIs left as they are (each
 * scheme and host belongs to one provider), and every request's failure mapped onto a
 * typed JSON-RPC error.
 */
export class ContentCatalog {
  readonly #prompts = new Map<string, PromptEntry>();
  readonly #resources = new Map<string, ResourceEntry>();
  /** `scheme://host` → the provider that serves it. */
  readonly #authorities = new Map<string, string>();
  /** Every URI and URI template served. */
  readonly #addresses = new Set<string>();

  constructor(
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {}

  get hasPrompts(): boolean {
    return this.#prompts.size > 0;
  }
  get hasResources(): boolean {
    return this.#resources.size > 0;
  }
  get hasCompletions(): boolean {
    for (const { prompt } of this.#prompts.values()) if (hasAny(prompt.complete)) return true;
    for (const { resource } of this.#resources.values()) {
      if (isResourceTemplate(resource) && hasAny(resource.complete)) return true;
    }
    return false;
  }

  /**
   * Adds one provider's prompts and resources, all or nothing: a name taken by another prompt
   * (or resource), or a URI scheme and host another provider serves, is an error.
   */
  add(batch: ContentBatch): void {
    const toolName =
      batch.served ?? (batch.prefix === '' ? SAME_NAME : (ownName: string) => `${batch.prefix}${ownName}`);
    const prompts = batch.prompts.map((prompt) => {
      const descriptor = renderToolRefsDeep(describePrompt(prompt), toolName);
      const renamed = { ...descriptor, name: `${batch.prefix}${descriptor.name}` };
      if (!PROMPT_NAME_PATTERN.test(renamed.name)) {
        throw new ConfigError(
          `Provider ${batch.owner}: prompt name "${renamed.name}" is too long after adding prefix "${batch.prefix}".`,
        );
      }
      if (this.#prompts.has(renamed.name)) throw new DuplicateToolError(renamed.name, 'prompt');
      const tools = (prompt.tools ?? []).map((own) => `${batch.prefix}${own}`);
      return { prompt, descriptor: renamed, owner: batch.owner, tools, toolName };
    });
    const authorities = new Map<string, string>();
    const resources = batch.resources.map((resource) => {
      const descriptor = renderToolRefsDeep(describeResource(resource), toolName);
      const renamed = { ...descriptor, name: `${batch.prefix}${descriptor.name}` };
      if (this.#resources.has(renamed.name)) throw new DuplicateToolError(renamed.name, 'resource');
      const address = descriptor.uri ?? descriptor.uriTemplate ?? '';
      const authority = resourceAuthority(address);
      const holder = this.#authorities.get(authority);
      // Resources registered one by one share the registry's authorities; a provider does not.
      if (holder !== undefined && !(holder === DIRECT && batch.owner === DIRECT)) {
        throw new ConfigError(
          `Provider ${batch.owner}: resource ${address}: ${authority} is already served by ${holder}. Resource URIs are not prefixed; serve one of them, or drop its resources with exclude.`,
        );
      }
      if (this.#addresses.has(address)) throw new DuplicateToolError(address, 'resource');
      authorities.set(authority, batch.owner);
      const entry: ResourceEntry = { resource, descriptor: renamed, owner: batch.owner, toolName };
      if (descriptor.uriTemplate !== undefined) entry.template = new UriTemplate(descriptor.uriTemplate);
      return entry;
    });
    assertUnique(
      prompts.map((entry) => entry.descriptor.name),
      'prompt',
    );
    assertUnique(
      resources.map((entry) => entry.descriptor.name),
      'resource',
    );
    assertUnique(
      resources.map((entry) => entry.descriptor.uri ?? entry.descriptor.uriTemplate ?? ''),
      'resource',
    );
    for (const entry of prompts) this.#prompts.set(entry.descriptor.name, entry);
    for (const entry of resources) this.#resources.set(entry.descriptor.name, entry);
    for (const [authority, owner] of authorities) this.#authorities.set(authority, owner);
    for (const entry of resources)
      this.#addresses.add(entry.descriptor.uri ?? entry.descriptor.uriTemplate ?? '');
  }

  /** Descriptors in registration order: exactly what `prompts/list` returns. */
  listPrompts(): PromptDescriptor[] {
    return [...this.#prompts.values()].map((entry) => entry.descriptor);
  }

  /** Fixed resources and resource templates, in registration order. */
  listResourceDescriptors(): ResourceDescriptor[] {
    return [...this.#resources.values()].map((entry) => entry.descriptor);
  }

  /** Who serves a prompt (a provider id, or `registry`) and the served names of the tools it names. */
  promptOrigin(name: string): { owner: string; tools: readonly string[] } | undefined {
    const entry = this.#prompts.get(name);
    return entry && { owner: entry.owner, tools: entry.tools };
  }

  /** Who serves a resource or template, by name: a provider id, or `registry`. */
  resourceOwner(name: string): string | undefined {
    return this.#resources.get(name)?.owner;
  }

  promptCompleter(name: string, argument: string): Completer | undefined {
    return this.#prompts.get(name)?.prompt.complete?.[argument];
  }

  templateCompleter(resourceName: string, variable: string): Completer | undefined {
    const resource = this.#resources.get(resourceName)?.resource;
    return resource && isResourceTemplate(resource) ? resource.complete?.[variable] : undefined;
  }

  /** Runs a prompt. Unknown names, bad arguments and failures throw `McpRequestError`. */
  async getPrompt(name: string, args: unknown, context: CallContext = {}): Promise<PromptResult> {
    const entry = this.#prompts.get(name);
    if (!entry) {
      throw new McpRequestError(INVALID_PARAMS, `Unknown prompt: ${name}. prompts/list shows the prompts.`, {
        error_code: 'NOT_FOUND',
      });
    }
    const log = this.logger.child(name);
    try {
      const input = parseArguments(entry, args);
      const output = await this.#run(entry.prompt.timeoutMs, name, context, entry.toolName, log, (inner) =>
        entry.prompt.handler(input, inner),
      );
      return renderToolRefsDeep(
        typeof output === 'string'
          ? { messages: [{ role: 'user', content: { type: 'text', text: output } }] }
          : output,
        entry.toolName,
      );
    } catch (error) {
      throw withServedNames(toRequestError(error, `Prompt ${name}`, log), entry.toolName);
    }
  }

  /** Reads a resource. Unknown URIs, malformed ids and failures throw `McpRequestError`. */
  async readResource(uri: string, context: CallContext = {}): Promise<{ contents: ResourceContent[] }> {
    const url = URL.canParse(uri) ? new URL(uri) : undefined;
    const found = url ? (this.#match(url.href) ?? this.#match(uri)) : undefined;
    if (!url || !found) {
      throw new McpRequestError(
        INVALID_PARAMS,
        `Resource not found: ${uri}. resources/list and resources/templates/list show what this server has.`,
        {
          error_code: 'NOT_FOUND',
          uri,
        },
      );
    }
    return this.readMatched(found.entry.descriptor.name, url, found.variables, context);
  }

  /** Reads a resource the caller already matched (the SDK matches templates itself). */
  async readMatched(
    name: string,
    url: URL,
    rawVariables: Record<string, string | string[]>,
    context: CallContext = {},
  ): Promise<{ contents: ResourceContent[] }> {
    const entry = this.#resources.get(name);
    if (!entry)
      throw new McpRequestError(INVALID_PARAMS, `Resource not found: ${url.href}.`, { uri: url.href });
    const log = this.logger.child(entry.descriptor.name);
    const { resource } = entry;
    try {
      const output = await this.#run(
        resource.timeoutMs,
        entry.descriptor.name,
        context,
        entry.toolName,
        log,
        (inner) => {
          if (!isResourceTemplate(resource)) return resource.read(url, inner);
          return resource.read(url, parseVariables(resource, url.href, rawVariables), inner);
        },
      );
      const contents =
        typeof output === 'string' ? [{ uri: url.href, mimeType: resource.mimeType, text: output }] : output;
      return renderToolRefsDeep({ contents }, entry.toolName);
    } catch (error) {
      throw withServedNames(toRequestError(error, `Reading ${url.href}`, log, url.href), entry.toolName);
    }
  }

  /** Fixed resources, then what each template lists; a template whose listing fails is logged and skipped. */
  async listResources(context: CallContext = {}): Promise<ListedResource[]> {
    const listed: ListedResource[] = [];
    for (const entry of this.#resources.values())
      listed.push(...(await this.listOne(entry.descriptor.name, context)));
    return listed;
  }

  /** What one resource contributes to `resources/list`. */
  async listOne(name: string, context: CallContext = {}): Promise<ListedResource[]> {
    const entry = this.#resources.get(name);
    if (!entry) return [];
    const { resource, descriptor } = entry;
    if (!isResourceTemplate(resource)) {
      const { uriTemplate: _template, uri, ...rest } = descriptor;
      return [{ ...rest, uri: uri ?? '' }];
    }
    if (!resource.list) return [];
    const log = this.logger.child(descriptor.name);
    try {
      const items = await this.#run(
        resource.timeoutMs,
        descriptor.name,
        context,
        entry.toolName,
        log,
        (inner) => resource.list?.(inner) ?? [],
      );
      return items.map((item) => ({ mimeType: resource.mimeType, ...item }));
    } catch (error) {
      const reason = McpToolError.isInstance(error) ? error.message : 'the listing failed';
      log.warn(`resources/list skips ${descriptor.uriTemplate}: ${reason}`);
      return [];
    }
  }

  /** Suggestions for a prompt argument or template variable; a failing completer suggests nothing. */
  async complete(
    completer: Completer | undefined,
    value: string,
    args: Record<string, string> = {},
  ): Promise<string[]> {
    if (!completer) return [];
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      // The SDK sends the first 100 and reports the total.
      return [...(await completer(value, { arguments: args, signal }))];
    } catch (error) {
      const reason = McpToolError.isInstance(error) ? error.message : String(error);
      this.logger.warn(`completion failed: ${reason}`);
      return [];
    }
  }

  #match(uri: string): { entry: ResourceEntry; variables: Record<string, string | string[]> } | undefined {
    for (const entry of this.#resources.values()) {
      if (entry.template) {
        const variables = entry.template.match(uri);
        if (variables) return { entry, variables };
      } else if (entry.descriptor.uri !== undefined && sameUri(entry.descriptor.uri, uri)) {
        return { entry, variables: {} };
      }
    }
    return undefined;
  }

  async #run<T>(
    ownTimeout: number | undefined,
    name: string,
    context: CallContext,
    toolName: (ownName: string) => string,
    log: Logger,
    body: (context: ContentContext) => Promise<T> | T,
  ): Promise<T> {
    const timeoutMs = ownTimeout ?? this.timeoutMs;
    const controller = new AbortController();
    const onAbort = () => controller.abort(context.signal?.reason);
    if (context.signal?.aborted) onAbort();
    else context.signal?.addEventListener('abort', onAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new ToolTimeoutError(name, timeoutMs);
        controller.abort(error);
        reject(error);
      }, timeoutMs);
      timer.unref?.();
    });
    try {
      return await Promise.race([
        Promise.resolve().then(() =>
          body({ signal: controller.signal, log, request: context.request ?? IN_PROCESS, toolName }),
        ),
        timedOut,
      ]);
    } finally {
      clearTimeout(timer);
      context.signal?.removeEventListener('abort', onAbort);
    }
  }
}

function parseArguments(entry: PromptEntry, args: unknown): unknown {
  const raw = args ?? {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new InvalidInputError(
      `Invalid arguments for prompt ${entry.descriptor.name}: arguments must be an object.`,
    );
  }
  // Clients render prompt arguments as form fields and send "" for a field left empty.
  const optional = new Set(
    entry.descriptor.arguments.filter((argument) => !argument.required).map((a) => a.name),
  );
  const cleaned = Object.fromEntries(
    Object.entries(raw as Record<string, unknown>).filter(
      ([key, value]) => !(value === '' && optional.has(key)),
    ),
  );
  return parseWith(entry.prompt.argsSchema as z.ZodType, cleaned, `prompt ${entry.descriptor.name}`);
}

function parseVariables(
  resource: AnyResourceTemplateDefinition,
  uri: string,
  raw: Record<string, string | string[]>,
): unknown {
  const variables = Object.fromEntries(
    Object.entries(raw).map(([key, value]) => [
      key,
      Array.isArray(value) ? value.join(',') : safeDecode(value),
    ]),
  );
  return parseWith(resource.variables as z.ZodType, variables, uri);
}

function parseWith(schema: z.ZodType, value: unknown, what: string): unknown {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          field: key.length > 64 ? `${key.slice(0, 64)}…` : key,
          message: 'unknown argument',
        }))
      : [{ field: issue.path.length > 0 ? issue.path.join('.') : '(arguments)', message: issue.message }],
  );
  const summary = fields.map((field) => `${field.field}: ${field.message}`).join('; ');
  throw new InvalidInputError(`Invalid arguments for ${what}: ${summary}.`, { details: { fields } });
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function sameUri(a: string, b: string): boolean {
  return a === b || (URL.canParse(a) && URL.canParse(b) && new URL(a).href === new URL(b).href);
}

function hasAny(record: object | undefined): boolean {
  return record !== undefined && Object.values(record).some((value) => typeof value === 'function');
}

function assertUnique(names: string[], kind: 'prompt' | 'resource'): void {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw new DuplicateToolError(name, kind);
    seen.add(name);
  }
}

/** The same protocol error with its tool references rendered as served. */
function withServedNames(error: McpRequestError, served: ToolNamer): McpRequestError {
  return new McpRequestError(
    error.code,
    renderToolRefs(error.message, served),
    renderToolRefsDeep(error.data, served),
  );
}
