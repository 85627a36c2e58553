import type { ToolDescriptor } from './descriptor.js';
import { type ErrorCode, McpToolError } from './errors.js';
import type { CallContext } from './execute.js';
import { createLogger, type Logger } from './logger.js';
import { observed, startToolCall } from './observability/events.js';
import type { ToolRegistry } from './registry.js';
import { type ToolCallResult, toolError } from './result.js';
import type { RequestInfo } from './tool.js';

/**
 * One narrowing of what a request may use. Several apply to one request (the connection URL and
 * headers, the token's scopes, the operator's policy); a tool is served only when every one
 * allows it. Narrowing never widens what the operator serves.
 */
export interface ToolAccess {
  /** Who narrows, for the tool error of a refused call: "this connection's URL", "your token's scopes", "the server's policy (rule 2)". */
  source: string;
  /** Only tools of these toolsets (names in the one documented form: `basecamp`, `basecamp.todos`). */
  toolsets?: readonly string[];
  /** Only these tools (served names, e.g. `basecamp_list_todos`). */
  tools?: readonly string[];
  /** Only tools whose annotations say `readOnlyHint: true` (as `--read-only`). */
  readOnly?: boolean;
  /**
   * Asked before every `tools/call` this access allows (after the allow checks): throw an
   * `McpToolError` (e.g. `RateLimitedError` with details `{ retry_after_ms }`) to refuse it.
   */
  admit?(call: { tool: string }): void | Promise<void>;
  /**
   * When this access refuses a `tools/call`, the HTTP answer to send instead of a tool error
   * (scope step-up: 403 with `WWW-Authenticate: Bearer error="insufficient_scope", ...`).
   */
  challenge?(call: { tool: string }): Response | undefined;
}

/** Why one access leaves a tool out. */
export interface AccessRefusal {
  access: ToolAccess;
  /** The rule of the access that leaves the tool out. */
  rule: 'toolsets' | 'tools' | 'readOnly';
  /** The sentence a refused call's `PERMISSION_DENIED` tool error carries. */
  message: string;
}

const IN_PROCESS: RequestInfo = Object.freeze({ transport: 'in-process' });
const MAX_LISTED = 20;

/**
 * One request's view of a registry under its narrowings: it lists only the tools every access
 * allows, answers a call to any other served tool with a `PERMISSION_DENIED` tool error naming
 * the access that refused it and why, asks every access's `admit` before running an allowed
 * tool, and announces refused and not-admitted calls to the observers (metrics, audit) with their
 * outcome code. Prompts that name a refused tool are not listed; under a `toolsets` narrowing
 * only the named providers' prompts and resources are. Pass it wherever a registry goes
 * (`createMcpServer`, `mountTools`, `connectInMemory`); it copies nothing, and is cheap enough
 * to build per request.
 */
export class RegistryView {
  readonly registry: ToolRegistry;
  readonly accesses: readonly ToolAccess[];
  readonly #toolsets: ReadonlyMap<ToolAccess, ReadonlySet<string>>;
  readonly #verdicts = new Map<string, readonly AccessRefusal[]>();
  readonly #logger: Logger | undefined;

  constructor(registry: ToolRegistry, accesses: readonly ToolAccess[], options: { logger?: Logger } = {}) {
    this.registry = registry;
    this.accesses = accesses;
    const toolsets = new Map<ToolAccess, ReadonlySet<string>>();
    for (const access of accesses) if (access.toolsets) toolsets.set(access, new Set(access.toolsets));
    this.#toolsets = toolsets;
    this.#logger = options.logger;
  }

  /** Every access that refuses the served tool `name`, in order; none when it is allowed or unknown. */
  refusals(name: string): readonly AccessRefusal[] {
    let verdict = this.#verdicts.get(name);
    if (!verdict) {
      verdict = this.#judge(name);
      this.#verdicts.set(name, verdict);
    }
    return verdict;
  }

  /** The first access that refuses `name`, or `undefined` when every access allows it (or it is unknown). */
  refusal(name: string): AccessRefusal | undefined {
    return this.refusals(name)[0];
  }

  /** Whether `name` is served and every access allows it. */
  allows(name: string): boolean {
    return this.registry.getByName(name) !== undefined && this.refusals(name).length === 0;
  }

  /** What `tools/list` shows: the registry's descriptors every access allows, in order. */
  toMcpTools(): ToolDescriptor[] {
    return this.registry.toMcpTools().filter((descriptor) => this.refusals(descriptor.name).length === 0);
  }

  /** Whether the prompt is listed: a `toolsets` narrowing names its provider, and every tool it names is allowed. */
  allowsPrompt(name: string): boolean {
    const origin = this.registry.content.promptOrigin(name);
    if (!origin) return false;
    return this.#allowsOwner(origin.owner) && origin.tools.every((tool) => this.refusals(tool).length === 0);
  }

  /** Whether the resource is listed: a `toolsets` narrowing names its provider. Resources only read. */
  allowsResource(name: string): boolean {
    const owner = this.registry.content.resourceOwner(name);
    return owner !== undefined && this.#allowsOwner(owner);
  }

  /**
   * The HTTP answer to a `tools/call` of `name` instead of a tool error: the challenge of the
   * first access that refuses it, when every access that refuses it has one (a step-up cannot
   * help when another narrowing refuses the tool too). A challenge given is announced to the
   * observers as a refused call (`PERMISSION_DENIED`), with `context.request` as its caller.
   */
  challenge(name: string, context: CallContext = {}): Response | undefined {
    const refusals = this.refusals(name);
    if (refusals.length === 0 || refusals.some((refusal) => !refusal.access.challenge)) return undefined;
    for (const refusal of refusals) {
      const response = refusal.access.challenge?.({ tool: name });
      if (response) {
        // A refused call all the same: observers (metrics, audit) see it.
        announce(name, context, 'PERMISSION_DENIED');
        return response;
      }
    }
    return undefined;
  }

  /**
   * Calls a tool under the narrowings. A refused or not-admitted call comes back as an error
   * result (and is announced); an unknown name throws `NotFoundError`, as `ToolRegistry.call`.
   */
  async call(name: string, args: unknown, context: CallContext = {}): Promise<ToolCallResult> {
    if (!this.registry.getByName(name)) return this.registry.call(name, args, context);
    const refusal = this.refusal(name) ?? this.#enableRefusal(name, args);
    if (refusal) {
      announce(name, context, 'PERMISSION_DENIED');
      return toolError('PERMISSION_DENIED', refusal.message, false, {
        refused_by: refusal.access.source,
        rule: refusal.rule,
      });
    }
    for (const access of this.accesses) {
      if (!access.admit) continue;
      try {
        await access.admit({ tool: name });
      } catch (error) {
        const code = McpToolError.isInstance(error) ? error.code : 'INTERNAL_ERROR';
        announce(name, context, code);
        return this.#notAdmitted(name, access, error);
      }
    }
    return this.registry.call(name, args, context);
  }

  #judge(name: string): readonly AccessRefusal[] {
    if (this.accesses.length === 0) return [];
    const toolsets = this.registry.toolsetsOf(name);
    if (toolsets === undefined) return [];
    const refusals: AccessRefusal[] = [];
    for (const access of this.accesses) {
      const allowed = this.#toolsets.get(access);
      if (allowed && !toolsets.some((toolset) => allowed.has(toolset))) {
        const where = toolsets.length > 0 ? `it is in ${toolsets.at(-1)}` : 'it belongs to no toolset';
        refusals.push({
          access,
          rule: 'toolsets',
          message: `${name} is not available here: ${access.source} allows only the toolsets ${listed(access.toolsets ?? [])} (${where}).`,
        });
        continue;
      }
      if (access.tools && !access.tools.includes(name)) {
        refusals.push({
          access,
          rule: 'tools',
          message: `${name} is not available here: ${access.source} allows only the tools ${listed(access.tools)}.`,
        });
        continue;
      }
      if (access.readOnly && this.registry.getByName(name)?.annotations.readOnlyHint !== true) {
        refusals.push({
          access,
          rule: 'readOnly',
          message: `${name} is not available here: ${access.source} allows only read-only tools, and ${name} can change data.`,
        });
      }
    }
    return refusals;
  }

  /** `enable_toolset` of a toolset a `toolsets` narrowing leaves out is refused: its tools could not be called. */
  #enableRefusal(name: string, args: unknown): AccessRefusal | undefined {
    const toolset = this.registry.toolsetEnabledBy(name, args);
    if (toolset === undefined) return undefined;
    for (const access of this.accesses) {
      const allowed = this.#toolsets.get(access);
      if (allowed && !allowed.has(toolset) && !allowed.has(toolset.slice(0, toolset.indexOf('.')))) {
        return {
          access,
          rule: 'toolsets',
          message: `${name} cannot enable ${toolset} here: ${access.source} allows only the toolsets ${listed(access.toolsets ?? [])}.`,
        };
      }
    }
    return undefined;
  }

  #allowsOwner(owner: string): boolean {
    for (const allowed of this.#toolsets.values()) {
      if (allowed.has(owner)) continue;
      let named = false;
      for (const toolset of allowed) {
        if (toolset.startsWith(`${owner}.`)) {
          named = true;
          break;
        }
      }
      if (!named) return false;
    }
    return true;
  }

  #notAdmitted(name: string, access: ToolAccess, error: unknown): ToolCallResult {
    if (McpToolError.isInstance(error)) {
      return toolError(error.code, error.message, error.retryable, { ...error.details });
    }
    const logger = this.#logger ?? createLogger('access');
    logger.error(`admitting a call to ${name} failed (${access.source})`, { error });
    return toolError(
      'INTERNAL_ERROR',
      `${name} could not be admitted: the check of ${access.source} failed. The details are in the server log.`,
      true,
    );
  }
}

/** Tells the observers about a call that never reached the tool, with its outcome code. */
function announce(name: string, context: CallContext, outcome: ErrorCode): void {
  if (observed()) startToolCall({ tool: name, request: context.request ?? IN_PROCESS }).end({ outcome });
}

function listed(names: readonly string[]): string {
  const shown = names.slice(0, MAX_LISTED).join(', ');
  return names.length > MAX_LISTED ? `${shown} and ${names.length - MAX_LISTED} more` : shown;
}
