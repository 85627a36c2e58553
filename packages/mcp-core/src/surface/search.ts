import { z } from 'zod';
import type { RegistryView } from '../access.js';
import { describeTool, type ToolDescriptor } from '../descriptor.js';
import { ConfigError, NotFoundError, PermissionDeniedError } from '../errors.js';
import { type CallContext, executeTool } from '../execute.js';
import { createLogger } from '../logger.js';
import { DEFAULT_TIMEOUT_MS, type ToolRegistry } from '../registry.js';
import { type ToolCallResult, toolError } from '../result.js';
import { type AnyToolDefinition, defineTool, type ToolAnnotations } from '../tool.js';
import { ToolIndex } from './tool-index.js';

/**
 * What `tools/list` offers: `list`, every served tool (the default), or `search`, three tools
 * that reach all of them (`search_tools`, `describe_tool`, `call_tool`) for a fraction of the
 * context. See docs/clients.md ("The search surface").
 */
export type Surface = 'list' | 'search';

const SURFACES: readonly Surface[] = ['list', 'search'];
export const SEARCH_TOOLS = 'search_tools';
export const DESCRIBE_TOOL = 'describe_tool';
export const CALL_TOOL = 'call_tool';

/** The surface a flag, variable or config key names; `ConfigError` naming `source` otherwise. */
export function parseSurface(value: string, source: string): Surface {
  const surface = value.trim().toLowerCase();
  if ((SURFACES as readonly string[]).includes(surface)) return surface as Surface;
  throw new ConfigError(
    `${source} must be list or search, got "${value.slice(0, 40)}": list serves every tool, search serves ${SEARCH_TOOLS}, ${DESCRIBE_TOOL} and ${CALL_TOOL} instead.`,
  );
}

/** The sentence the server's instructions gain on the search surface. */
export const SEARCH_INSTRUCTIONS = `This server lists three tools instead of all of its own: find the tool for a task with ${SEARCH_TOOLS}, read one with ${DESCRIBE_TOOL}, and run it with ${CALL_TOOL} (its name and arguments). Tools named elsewhere in these instructions are run the same way.`;

const DEFAULT_MATCHES = 5;
const MAX_MATCHES = 10;
const CANDIDATES = 3;

const Definition = z.looseObject({
  name: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
});

const SearchInput = z.strictObject({
  query: z.string().min(1).max(500).describe('What you want to do, in a few words'),
  limit: z.number().int().min(1).max(MAX_MATCHES).optional().describe(`Default ${DEFAULT_MATCHES}`),
});
const SearchOutput = z.object({
  tools: z.array(Definition),
  hint: z.string().optional(),
});
const DescribeInput = z.strictObject({ name: z.string().min(1).max(64) });
const CallInput = z.strictObject({
  name: z.string().min(1).max(64),
  arguments: z.record(z.string(), z.unknown()).optional().describe("The tool's arguments"),
});

const LOOKUP: ToolAnnotations = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

interface Catalog {
  /** The registry's tool count when indexed: tools are only ever added (`enable_toolset`). */
  count: number;
  index: ToolIndex;
}

/** One index per registry, rebuilt when tools were added since. */
const catalogs = new WeakMap<ToolRegistry, Catalog>();

function catalogOf(registry: ToolRegistry): Catalog {
  const descriptors = registry.toMcpTools();
  let catalog = catalogs.get(registry);
  if (!catalog || catalog.count !== descriptors.length) {
    catalog = {
      count: descriptors.length,
      index: new ToolIndex(descriptors),
    };
    catalogs.set(registry, catalog);
  }
  return catalog;
}

/**
 * The search surface of one connection: three tools that reach every tool its registry (or
 * narrowed view) serves. `call_tool` runs a tool through the same path as a direct call (the
 * view's narrowings, admission and policy, then the tool's validation, time budget and errors);
 * its annotations are the worst case of the tools it can reach.
 */
export class SearchSurface {
  readonly registry: ToolRegistry;
  readonly view: RegistryView | undefined;
  readonly #tools: readonly AnyToolDefinition[];
  readonly #options = {
    timeoutMs: DEFAULT_TIMEOUT_MS,
    validateOutput: process.env.NODE_ENV !== 'production',
    logger: createLogger('search'),
  };

  constructor(registry: ToolRegistry, view?: RegistryView) {
    this.registry = registry;
    this.view = view;
    this.#tools = [
      defineTool({
        ...SEARCH_DEFINITION,
        handler: ({ query, limit }) => this.search(query, limit ?? DEFAULT_MATCHES),
      }),
      defineTool({ ...DESCRIBE_DEFINITION, handler: ({ name }) => this.describe(name) }),
    ];
  }

  /** The served tools this connection may use, in order. */
  reachable(): ToolDescriptor[] {
    return this.view ? this.view.toMcpTools() : this.registry.toMcpTools();
  }

  /** What `tools/list` shows: the three tools, described for what they reach now. */
  descriptors(): ToolDescriptor[] {
    const reachable = this.reachable();
    const owners = [...new Set(reachable.map((tool) => this.registry.toolsetsOf(tool.name)?.[0]))].filter(
      (owner): owner is string => owner !== undefined,
    );
    const covers = owners.length > 0 ? ` (${owners.join(', ')})` : '';
    return [
      {
        ...describeOnce(SEARCH_DEFINITION),
        description: `Finds this server's tools for a task: ${reachable.length} tools${covers}. Say what you want done in a few words (e.g. "add a to-do to the launch list"); returns the best matches with their input schemas. Run one with ${CALL_TOOL}.`,
      },
      describeOnce(DESCRIBE_DEFINITION),
      { ...describeOnce(CALL_DEFINITION), annotations: worstCase(reachable) },
    ];
  }

  /** Runs one of the three tools; `undefined` when `name` is none of them. */
  call(name: string, args: unknown, context: CallContext): Promise<ToolCallResult> | undefined {
    if (name === CALL_TOOL) return this.#callTool(args, context);
    const tool = this.#tools.find((each) => each.name === name);
    return tool && executeTool(tool, args, context, this.#options);
  }

  search(query: string, limit: number) {
    const hits = catalogOf(this.registry).index.search(query, limit, (name) => this.#allows(name));
    const tools = hits.flatMap((hit) => {
      const descriptor = this.#descriptor(hit.id);
      return descriptor ? [summary(descriptor)] : [];
    });
    if (tools.length > 0) return { tools };
    return {
      tools,
      hint: `No tool matches "${query.slice(0, 80)}". Try other words for what the tool does (e.g. "list to-dos", "build context").`,
    };
  }

  describe(name: string) {
    const descriptor = this.#descriptor(name);
    if (!descriptor) throw this.#unknown(name);
    const refusal = this.view?.refusal(name);
    if (refusal) {
      throw new PermissionDeniedError(refusal.message, {
        details: { refused_by: refusal.access.source, rule: refusal.rule },
      });
    }
    const { outputSchema, ...rest } = descriptor;
    return { ...summary(rest), ...(outputSchema ? { outputSchema } : {}) };
  }

  async #callTool(args: unknown, context: CallContext): Promise<ToolCallResult> {
    const parsed = CallInput.safeParse(args ?? {});
    if (!parsed.success) {
      const fields = parsed.error.issues.map((issue) => ({
        field: issue.path.length > 0 ? issue.path.join('.') : '(arguments)',
        message: issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message,
      }));
      return toolError(
        'INVALID_INPUT',
        `Invalid arguments for ${CALL_TOOL}: ${fields.map((field) => `${field.field}: ${field.message}`).join('; ')}. Pass { "name": "<tool>", "arguments": { ... } }.`,
        false,
        { fields },
      );
    }
    const { name, arguments: inner = {} } = parsed.data;
    if (!this.registry.getByName(name)) {
      const error = this.#unknown(name);
      return toolError(error.code, error.message, false, { ...error.details });
    }
    return this.view ? this.view.call(name, inner, context) : this.registry.call(name, inner, context);
  }

  #allows(name: string): boolean {
    return this.view ? this.view.allows(name) : this.registry.getByName(name) !== undefined;
  }

  #descriptor(name: string): ToolDescriptor | undefined {
    if (!this.registry.getByName(name)) return undefined;
    return this.registry.toMcpTools().find((descriptor) => descriptor.name === name);
  }

  /** An unknown tool: the closest names by search, so the model can retry. */
  #unknown(name: string): NotFoundError {
    const candidates = catalogOf(this.registry)
      .index.search(name, CANDIDATES, (each) => this.#allows(each))
      .map((hit) => hit.id);
    return new NotFoundError(
      `No tool named "${name.slice(0, 64)}" here.${candidates.length > 0 ? ` Did you mean ${candidates.join(', ')}?` : ''} Find tools with ${SEARCH_TOOLS}.`,
      { details: { candidates } },
    );
  }
}

const SEARCH_DEFINITION = defineTool({
  name: SEARCH_TOOLS,
  title: 'Search the tools',
  // Replaced by one that says what this connection reaches (see `descriptors`).
  description: 'Finds tools for a task.',
  inputSchema: SearchInput,
  outputSchema: SearchOutput,
  annotations: LOOKUP,
  handler: () => ({ tools: [] }),
});

const DESCRIBE_DEFINITION = defineTool({
  name: DESCRIBE_TOOL,
  title: 'Describe a tool',
  description:
    "Returns one tool's full definition by name: description, input and output schemas, annotations.",
  inputSchema: DescribeInput,
  outputSchema: Definition,
  annotations: LOOKUP,
  handler: () => ({ name: '', description: '', inputSchema: {} }),
});

const CALL_DEFINITION = defineTool({
  name: CALL_TOOL,
  title: 'Call a tool',
  description: `Runs one of this server's tools by name (from ${SEARCH_TOOLS}) with arguments matching its input schema, and returns that tool's result.`,
  inputSchema: CallInput,
  // Replaced by the worst case of what the connection reaches (see `descriptors`).
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  // Never run: `SearchSurface.call` runs the named tool itself, so only that tool is observed.
  handler: () => ({}),
});

const described = new WeakMap<AnyToolDefinition, ToolDescriptor>();

/** A lookup tool's descriptor, built once, as every tool's is (descriptor.ts). */
function describeOnce(tool: AnyToolDefinition): ToolDescriptor {
  let descriptor = described.get(tool);
  if (!descriptor) {
    descriptor = describeTool(tool);
    described.set(tool, descriptor);
  }
  return descriptor;
}

/** What a match shows: enough to call the tool (its output schema is in `describe_tool`). */
function summary(descriptor: Omit<ToolDescriptor, 'outputSchema'> & { outputSchema?: unknown }) {
  return {
    name: descriptor.name,
    ...(descriptor.title === undefined ? {} : { title: descriptor.title }),
    description: descriptor.description,
    inputSchema: descriptor.inputSchema,
    annotations: descriptor.annotations,
  };
}

/** The annotations of `call_tool`: the worst case of the tools it reaches. */
function worstCase(tools: readonly ToolDescriptor[]): ToolAnnotations {
  const readOnly = tools.every((tool) => tool.annotations.readOnlyHint);
  return {
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && tools.some((tool) => tool.annotations.destructiveHint),
    idempotentHint: tools.every((tool) => tool.annotations.idempotentHint),
    openWorldHint: tools.some((tool) => tool.annotations.openWorldHint),
  };
}
