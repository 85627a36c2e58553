import type { z } from 'zod';
import type { Answers, Questions } from './ask.js';
import type { Logger } from './logger.js';
import type { AnyPromptDefinition } from './prompt.js';
import type { AnyResourceDefinition } from './resource.js';
import type { ToolCallResult } from './result.js';

/** All four hints are explicit: a client must never have to guess whether a tool writes. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/*
 * The four usual annotation sets, so a tool states its kind in one word and providers agree on
 * what each kind means. All talk to the outside world (`openWorldHint: true`); a tool that only
 * touches local state spreads one and overrides it: `{ ...READ_ONLY, openWorldHint: false }`.
 */

/** Reads and changes nothing (list, get, search). */
export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
} as const satisfies ToolAnnotations;

/** Adds something new; calling it twice adds two (create, post, comment). */
export const CREATES = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
} as const satisfies ToolAnnotations;

/** Sets a state without losing data; calling it twice changes nothing more (complete, assign, move). */
export const SETS_STATE = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
} as const satisfies ToolAnnotations;

/** Removes or overwrites data (trash, delete, replace); repeating it removes nothing more. */
export const DESTRUCTIVE = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: true,
} as const satisfies ToolAnnotations;

/** Who is calling, as far as the transport knows. Never carries the raw token. */
export interface RequestInfo {
  transport: 'stdio' | 'http' | 'in-process' | 'unknown';
  /** Set on HTTP when the request was authenticated. */
  auth?: {
    clientId: string;
    scopes: readonly string[];
    extra?: Record<string, unknown>;
  };
}

export interface ToolContext {
  /** Aborted when the client cancels or the call times out; pass it to `fetch`. */
  signal: AbortSignal;
  /** Sends `notifications/progress` when the client asked for progress; a no-op otherwise. */
  reportProgress(progress: number, total?: number, message?: string): Promise<void>;
  /** Writes to stderr, never to the client. */
  log: Logger;
  request: RequestInfo;
  /**
   * Set when the call runs as a task (a tool with `task`, a client that asked): nobody waits on
   * the answer, so the handler may work until the job is done (poll a construction to its end)
   * instead of answering with the first step. Its `signal` aborts on `tasks/cancel`.
   */
  task?: { taskId: string };
  /**
   * Asks the client, and resolves with every answer, keyed like the questions: a form for the
   * person (`formQuestion`; never for secrets), a completion from the client's model
   * (`samplingQuestion`) or its roots (`rootsQuestion`). Several questions in one call are sent
   * together. On a plain call the handler runs again from the start once the client answers (a
   * 2026-07-28 retry, or the 2025-11-25 SDK's `elicitation/create` round), so everything before
   * `ask` must be safe to repeat, and what `ask` throws must reach the core (catch only
   * `InputUnavailableError`); answers already given in this call are returned at once. In a
   * task, the task waits in `input_required` for `tasks/update`.
   * A form answer may be a decline or a cancel: check `action`. Throws `InputUnavailableError`
   * when the client did not declare that kind of request, or nothing can carry it.
   */
  ask<Q extends Questions>(questions: Q): Promise<Answers<Q>>;
}

export type ZodObjectSchema = z.ZodObject<z.ZodRawShape>;

type HandlerOutput<Output extends ZodObjectSchema | undefined> = Output extends ZodObjectSchema
  ? z.input<Output>
  : unknown;

export interface ToolDefinition<
  Input extends ZodObjectSchema = ZodObjectSchema,
  Output extends ZodObjectSchema | undefined = ZodObjectSchema | undefined,
> {
  /** `^[a-zA-Z0-9_-]{1,64}$`, unique within a server. */
  name: string;
  /** A short human-readable name. */
  title?: string;
  /** Written for a model: what it does, when to call it, which tool supplies its IDs. */
  description: string;
  /** A strict zod object (`z.strictObject`); every field has `.describe()`. */
  inputSchema: Input;
  /** When set, results carry `structuredContent` that conforms to it. */
  outputSchema?: Output;
  annotations: ToolAnnotations;
  /** Overrides the registry's per-call time budget. */
  timeoutMs?: number;
  /**
   * The call may run long (a construction to poll, a large upload or build): when the client
   * asks for a task (a 2026-07-28 request declaring the `io.modelcontextprotocol/tasks`
   * extension, or a 2025-11-25 `tools/call` with `task`), the server answers at once with a task
   * it runs in the background, under the handler's `signal` (aborted by `tasks/cancel`).
   * `optional`: a client that does not ask gets the plain result, as always. `required`: such a
   * client gets an error. Give such a tool a `timeoutMs` that fits the work.
   */
  task?: 'optional' | 'required';
  /**
   * For a destructive tool: the question that names exactly what this call will destroy, built
   * from the validated input (it may read upstream first), e.g. "Trash project 'The Leto Laptop'
   * (1001) and everything in it?". When the client can ask its user (form elicitation, or an
   * `input_required` result on 2026-07-28), the person is asked it before the handler runs; a
   * decline answers `DECLINED` and the handler never runs. `undefined`: this call needs no
   * question (e.g. a restore). A thrown `McpToolError` is the call's answer, and nobody is asked.
   * Not asked when the client cannot ask, or the server runs with `--no-confirm`.
   */
  confirm?: (
    input: z.output<Input>,
    context: ToolContext,
  ) => Promise<string | undefined> | string | undefined;
  /**
   * Questions the call needs answered before its handler runs, built from the validated input
   * (e.g. a name the arguments do not give). They are asked like `context.ask` (after `confirm`);
   * for a tool with `task`, in rounds before the task is created, so the task never waits for
   * them. The handler reads the answers with `context.ask` under the same keys, which returns
   * them at once. `undefined`: nothing to ask for this call.
   */
  questions?: (
    input: z.output<Input>,
    context: ToolContext,
  ) => Promise<Questions | undefined> | Questions | undefined;
  /**
   * Returns data (sent as JSON, and as `structuredContent` when it is an object), a
   * string (sent as text), or a result built with `toolSuccess`. Failures are thrown as
   * `McpToolError` subclasses.
   */
  handler: (
    input: z.output<Input>,
    context: ToolContext,
  ) => Promise<HandlerOutput<Output> | ToolCallResult> | HandlerOutput<Output> | ToolCallResult;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every input type
export type AnyToolDefinition = ToolDefinition<any, any>;

/** Declares a tool; its only job is to infer the handler's argument type from `inputSchema`. */
export function defineTool<
  Input extends ZodObjectSchema,
  Output extends ZodObjectSchema | undefined = undefined,
>(definition: ToolDefinition<Input, Output>): ToolDefinition<Input, Output> {
  return definition;
}

/** What a provider package exports: `createForgeProvider(settings) -> ToolProvider`. */
export interface ToolProvider {
  /** Short, stable identifier, e.g. `forge`. */
  id: string;
  version: string;
  tools: readonly AnyToolDefinition[];
  /** Prompts (`prompts/list`), e.g. workflow guides; clients show them as slash commands. */
  prompts?: readonly AnyPromptDefinition[];
  /** Resources and resource templates (`resources/list`), which clients attach as context. */
  resources?: readonly AnyResourceDefinition[];
  /** Server instructions for the model, merged when providers are composed. */
  instructions?: string;
  /**
   * Every tool the provider has, in named groups, including tools not in `tools` (a toolset the
   * user did not choose). `toolRef` may name any of them: a reference to one that is not served
   * says which toolset has it.
   */
  toolsets?: readonly ToolsetInfo[];
  /**
   * Dynamic toolsets: when present, a registry serving the provider adds `list_toolsets` and
   * `enable_toolset`, and builds a toolset's tools with this on `enable_toolset` (or when it must
   * know their annotations), then adds the ones not yet served and tells connected clients
   * (`notifications/tools/list_changed`). Returns every tool named in the toolset's `tools`.
   */
  loadToolset?: (name: string) => readonly AnyToolDefinition[];
  /**
   * Whether the provider can serve calls now: credentials present, upstream reachable. Used by
   * `/readyz`. Details must never contain a secret; they are shown to anyone who can reach it.
   */
  checkReadiness?: (options: { signal: AbortSignal }) => Promise<ProviderReadiness>;
}

/** A named group of a provider's tools. */
export interface ToolsetInfo {
  /** `^[a-z][a-z0-9_-]*$`, e.g. `cards`. */
  name: string;
  /** One line for a model: what the tools are for. */
  description: string;
  /** The provider's own names of every tool in the group, served now or not. */
  tools: readonly string[];
}

/** One readiness check of a provider, e.g. `credentials` or `upstream`. */
export interface ReadinessCheck {
  name: string;
  ok: boolean;
  /** What was found, or what to do; never a secret. */
  detail?: string;
}

export interface ProviderReadiness {
  ready: boolean;
  checks: ReadinessCheck[];
}
