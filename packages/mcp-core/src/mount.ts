import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type ListToolsResult,
  McpServer,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { RegistryView } from './access.js';
import type { InputChannel, Question, RoundState, RoundStateCodec } from './ask.js';
import { mountContent } from './content-mount.js';
import type { ToolDescriptor } from './descriptor.js';
import { type CallContext, pendingInput } from './execute.js';
import { ToolRegistry } from './registry.js';
import type { ToolCallResult } from './result.js';
import { pendingSignIn, type SignInRound } from './sign-in.js';
import { SearchSurface, type Surface } from './surface/search.js';
import { mountTasks, type TaskHost, taskOwner, VERIFIED_STATE } from './tasks.js';
import type { AnyToolDefinition, RequestInfo, ToolProvider } from './tool.js';

/**
 * The slice of `McpServer` we need. Both the SDK v2 `McpServer` (`@modelcontextprotocol/server`)
 * and the v1 one (`@modelcontextprotocol/sdk/server/mcp.js`) have it.
 */
export interface McpServerLike {
  registerTool(
    name: string,
    config: {
      title?: string;
      description?: string;
      inputSchema?: never;
      outputSchema?: never;
      annotations?: Record<string, unknown>;
    },
    callback: never,
  ): unknown;
  /** Needed only when the source has prompts. */
  registerPrompt?(name: string, config: never, callback: never): unknown;
  /** Needed only when the source has resources. */
  registerResource?(name: string, uriOrTemplate: never, config: never, callback: never): unknown;
}

/** What to serve: a registry, one request's narrowed view of one, a provider, or tools. */
export type ToolSource = ToolRegistry | RegistryView | ToolProvider | readonly AnyToolDefinition[];

export interface MountOptions {
  /** Reported to handlers as `context.request.transport`. */
  transport?: RequestInfo['transport'];
  /**
   * `search`: three tools (`search_tools`, `describe_tool`, `call_tool`) that reach every tool
   * of the source, instead of the tools themselves. Default `list`.
   */
  surface?: Surface;
  /**
   * A server that answers one `tools/call` of this tool (a stateless HTTP request): only that
   * tool is mounted, no prompts or resources, instead of all of them. Ignored when the source
   * has no tool of that name (an unknown tool is answered as on a full server), and on the
   * search surface (its three tools are always mounted).
   */
  only?: string;
  /**
   * Ask the person to confirm a destructive call (a tool's `confirm` question) when the client
   * can (form elicitation, or `input_required` on 2026-07-28); SDK v2 servers only. `false`
   * never asks (`--no-confirm`, `MCP_CONFIRM=off`: unattended agents). Default `true`.
   */
  confirm?: boolean;
  /**
   * Runs the tools that declare `task` as tasks when the client asks (SDK v2 servers only): the
   * host keeps their state. Without it, every call answers with the plain result.
   */
  tasks?: TaskHost;
  /**
   * Signs the `requestState` that carries a call's earlier answers between 2026-07-28 rounds
   * (`ToolContext.ask`). Set by `createMcpServer`; without it, a 2026-07-28 call that asks gets
   * its questions without a state, and a question asked after an answered one is asked again.
   */
  roundState?: RoundStateCodec;
}

/**
 * Puts our tools, prompts and resources on an existing MCP server, SDK v2 or v1. Arguments
 * are validated by our own call path (so bad input gets our `INVALID_INPUT` result on either
 * SDK), and `tools/list` shows exactly our descriptors.
 */
export function mountTools(server: McpServerLike, source: ToolSource, options: MountOptions = {}): void {
  const view = source instanceof RegistryView ? source : undefined;
  const registry = toRegistry(source);
  const register = server.registerTool.bind(server) as unknown as RegisterTool;
  const content = () =>
    mountContent(
      server,
      registry.content,
      (extra) => callContext(extra, options.transport),
      options.transport ?? 'unknown',
      view && { prompt: (name) => view.allowsPrompt(name), resource: (name) => view.allowsResource(name) },
    );
  if (options.surface === 'search') {
    mountSearch(
      server,
      new SearchSurface(registry, view),
      register,
      contextMaker(server, options),
      options.roundState,
    );
    content();
    return;
  }
  // Narrowed on our own SDK v2 server: every tool is registered, so a call to a refused one
  // reaches the view (a PERMISSION_DENIED tool error that says why, not "tool not found"), and
  // tools/list shows only the allowed ones. Any other server gets the allowed tools only.
  const listAll = view !== undefined && server instanceof McpServer;
  const context = contextMaker(server, options);
  const ask = (pending: Promise<ToolCallResult>, callContext: CallContext) =>
    asked(pending, callContext, options.roundState);
  const call = view
    ? (name: string, args: unknown, extra: unknown) => {
        const callContext = context(extra);
        return ask(view.call(name, args, callContext), callContext);
      }
    : (name: string, args: unknown, extra: unknown) => {
        const callContext = context(extra);
        return ask(registry.call(name, args, callContext), callContext);
      };
  const tasks = options.tasks && server instanceof McpServer ? options.tasks : undefined;
  const mount = (descriptor: ToolDescriptor) => {
    const schemas = sdkSchemas(descriptor);
    const taskSupport = tasks && registry.getByName(descriptor.name)?.task;
    const handle = register(
      descriptor.name,
      {
        ...(descriptor.title === undefined ? {} : { title: descriptor.title }),
        description: descriptor.description,
        inputSchema: schemas.input,
        ...(schemas.output === undefined ? {} : { outputSchema: schemas.output }),
        annotations: descriptor.annotations,
      },
      (args, extra) => call(descriptor.name, args, extra),
    );
    // 2025-11-25 `tools/list` shows `execution.taskSupport`; `registerTool` takes no `execution`,
    // and `tools/list` lists the registered tool's.
    if (taskSupport && handle && typeof handle === 'object') {
      (handle as { execution?: unknown }).execution = { taskSupport };
    }
  };
  const shown = view && !listAll ? view.toMcpTools() : registry.toMcpTools();
  const mounted = new Set<string>();
  const single = options.only === undefined ? undefined : shown.find((tool) => tool.name === options.only);
  for (const descriptor of single ? [single] : shown) {
    mount(descriptor);
    mounted.add(descriptor.name);
  }
  if (listAll) {
    // Our descriptors are exactly what the SDK lists for them (see sdkSchemas).
    server.server.setRequestHandler('tools/list', () => ({ tools: view.toMcpTools() }) as ListToolsResult);
  }
  // Tools added while serving (enable_toolset): the SDK sends notifications/tools/list_changed
  // when a tool is registered on a connected server. The server keeps the listener alive; the
  // registry holds it weakly, so a finished per-request server is not kept.
  const onAdded = (names: readonly string[]) => {
    for (const descriptor of registry.toMcpTools()) {
      if (!names.includes(descriptor.name) || mounted.has(descriptor.name)) continue;
      if (view && !listAll && !view.allows(descriptor.name)) continue;
      mount(descriptor);
      mounted.add(descriptor.name);
    }
  };
  listeners.set(server, onAdded);
  registry.onToolsAdded(onAdded);
  if (tasks && [...mounted].some((name) => registry.getByName(name)?.task)) {
    const plain = view
      ? (name: string, args: unknown, callContext: CallContext) => view.call(name, args, callContext)
      : (name: string, args: unknown, callContext: CallContext) => registry.call(name, args, callContext);
    mountTasks(server as McpServer, tasks, (name) => registry.getByName(name), plain, context, ask);
  }
  if (single) return;
  content();
}

/**
 * The search surface's three tools. When tools are added while serving (`enable_toolset`
 * through `call_tool`), a tool whose description or annotations change with them is updated,
 * which sends `notifications/tools/list_changed`; the list itself stays the same three tools.
 */
function mountSearch(
  server: McpServerLike,
  surface: SearchSurface,
  register: RegisterTool,
  context: (extra: unknown) => CallContext,
  roundState: RoundStateCodec | undefined,
): void {
  let shown = surface.descriptors();
  const handles = new Map<string, { update?(changes: Record<string, unknown>): void }>();
  for (const descriptor of shown) {
    const schemas = sdkSchemas(descriptor);
    const name = descriptor.name;
    const handle = register(
      name,
      {
        ...(descriptor.title === undefined ? {} : { title: descriptor.title }),
        description: descriptor.description,
        inputSchema: schemas.input,
        ...(schemas.output === undefined ? {} : { outputSchema: schemas.output }),
        annotations: descriptor.annotations,
      },
      (args, extra) => {
        const callContext = context(extra);
        return asked(
          surface.call(name, args, callContext) ??
            Promise.reject(new Error(`${name} is not a search surface tool`)),
          callContext,
          roundState,
        );
      },
    );
    handles.set(name, (handle ?? {}) as { update?(changes: Record<string, unknown>): void });
  }
  const onAdded = () => {
    const next = surface.descriptors();
    for (const descriptor of next) {
      const before = shown.find((each) => each.name === descriptor.name);
      if (
        before &&
        before.description === descriptor.description &&
        JSON.stringify(before.annotations) === JSON.stringify(descriptor.annotations)
      ) {
        continue;
      }
      handles
        .get(descriptor.name)
        ?.update?.({ description: descriptor.description, annotations: descriptor.annotations });
    }
    shown = next;
  };
  listeners.set(server, onAdded);
  surface.registry.onToolsAdded(onAdded);
}

const listeners = new WeakMap<McpServerLike, (names: readonly string[]) => void>();

export function toRegistry(source: ToolSource): ToolRegistry {
  if (source instanceof ToolRegistry) return source;
  if (source instanceof RegistryView) return source.registry;
  const registry = new ToolRegistry();
  if (!Array.isArray(source)) return registry.use(source as ToolProvider);
  for (const tool of source) registry.register(tool);
  return registry;
}

type RegisterTool = (
  name: string,
  config: Record<string, unknown>,
  callback: (args: unknown, extra: unknown) => Promise<ToolCallResult | InputRequiredResult>,
) => unknown;

/**
 * How a mounted tool's call context is built. On an SDK v2 server, a call can ask what its client
 * declared (in `initialize` on 2025-11-25, on the request itself on 2026-07-28); the answers arrive
 * as the round's `inputResponses` (on 2025-11-25 the SDK sends `elicitation/create` itself and
 * calls again with the answer there), and those of earlier rounds in the verified `requestState`.
 */
function contextMaker(server: McpServerLike, options: MountOptions): (extra: unknown) => CallContext {
  const transport = options.transport;
  if (!(server instanceof McpServer)) return (extra) => callContext(extra, transport);
  return (extra) => {
    const context = callContext(extra, transport);
    const request = (extra as SdkExtra | undefined)?.mcpReq;
    const modern = isModern(server);
    const capabilities: ClientCapabilities | undefined = modern
      ? request?.envelope?.[CLIENT_CAPABILITIES_META_KEY]
      : server.server.getClientCapabilities();
    const elicitation = objectOr(capabilities?.elicitation);
    const state = (request?.requestState?.() ?? request?.[VERIFIED_STATE]) as RoundState | undefined;
    const round = new RoundAnswers(request?.inputResponses, typeof state === 'object' ? state : undefined);
    round.declared = {
      'elicitation/create': canAskForm(elicitation),
      'sampling/createMessage': capabilities?.sampling !== undefined,
      'roots/list': capabilities?.roots !== undefined,
    };
    context.input = round;
    if (options.confirm === false) context.confirm = false;
    // Sign-in is not a confirmation: `--no-confirm` leaves it on.
    if (elicitation && 'url' in elicitation) {
      const signIn = new RoundAnswers(request?.inputResponses, undefined);
      const id = request?.id;
      if (!modern && id !== undefined) {
        signIn.completed = (elicitationId) =>
          server.server.createElicitationCompletionNotifier(elicitationId, { relatedRequestId: id })();
      }
      context.signIn = signIn;
    }
    return context;
  };
}

function isModern(server: McpServer): boolean {
  const version = server.server.getNegotiatedProtocolVersion();
  return version !== undefined && version >= '2026-07-28';
}

function objectOr(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
}

function canAskForm(elicitation: Record<string, unknown> | undefined): boolean {
  if (!elicitation) return false;
  // An empty `elicitation: {}` means form mode (the spec keeps it for older clients).
  return 'form' in elicitation || !('url' in elicitation);
}

/** One round's answers: this round's `inputResponses`, then those carried in its `requestState`. */
class RoundAnswers implements InputChannel, SignInRound {
  completed?: (elicitationId: string) => Promise<void>;
  declared: Record<Question['method'], boolean> = {
    'elicitation/create': false,
    'sampling/createMessage': false,
    'roots/list': false,
  };
  readonly boundTo: string | undefined;

  constructor(
    private readonly responses: Record<string, unknown> | undefined,
    private readonly state: RoundState | undefined,
  ) {
    this.boundTo = state?.call;
  }

  can(method: Question['method']): boolean {
    return this.declared[method] === true;
  }

  known(key: string): unknown {
    if (this.responses !== undefined && Object.hasOwn(this.responses, key)) return this.responses[key];
    if (this.state !== undefined && Object.hasOwn(this.state.answers, key)) return this.state.answers[key];
    return undefined;
  }

  answer(key: string): 'accept' | 'decline' | 'cancel' | undefined {
    if (this.responses === undefined) return undefined;
    const response = inputResponse(this.responses, key);
    return response.kind === 'elicit' ? response.action : undefined;
  }

  keys(): readonly string[] {
    return this.responses === undefined ? [] : Object.keys(this.responses);
  }
}

/**
 * A call that stopped to ask becomes the SDK's `input_required` answer (on 2025-11-25 the SDK
 * sends its requests, `elicitation/create` with our `elicitationId` for a URL, and runs the call
 * again with the answers). Its `requestState` carries the answers given so far, signed and bound
 * to the call and its owner.
 */
async function asked(
  pending: Promise<ToolCallResult>,
  context: CallContext,
  roundState: RoundStateCodec | undefined,
): Promise<ToolCallResult | InputRequiredResult> {
  const result = await pending;
  const signIn = pendingSignIn(result);
  if (signIn) {
    return inputRequired({
      inputRequests: {
        [signIn.key]: inputRequired.elicitUrl({
          message: signIn.message,
          url: signIn.url,
          // 2026-07-28 has no elicitationId; 2025-11-25 needs one, and we send its completion.
          ...(signIn.legacy ? { elicitationId: signIn.flowId } : {}),
        }),
      },
    });
  }
  const questions = pendingInput(result);
  if (!questions) return result;
  const requestState =
    roundState &&
    (await roundState.mint({
      call: questions.call,
      owner: taskOwner(context.request),
      answers: questions.answers,
    }));
  return inputRequired({
    inputRequests: questions.questions as Parameters<typeof inputRequired>[0]['inputRequests'],
    ...(requestState === undefined ? {} : { requestState }),
  });
}

interface SdkSchemas {
  input: z.ZodType;
  output: z.ZodType | undefined;
}

const schemaCache = new WeakMap<ToolDescriptor, SdkSchemas>();

/**
 * Both SDKs take a zod schema; this one accepts any object (our call path validates) and
 * converts to exactly our JSON Schema, because `.meta()` fields override the generated ones.
 */
function sdkSchemas(descriptor: ToolDescriptor): SdkSchemas {
  let schemas = schemaCache.get(descriptor);
  if (!schemas) {
    schemas = { input: passThrough(descriptor.inputSchema), output: undefined };
    if (descriptor.outputSchema) schemas.output = passThrough(descriptor.outputSchema);
    schemaCache.set(descriptor, schemas);
  }
  return schemas;
}

function passThrough(jsonSchema: Record<string, unknown>): z.ZodType {
  const { type: _type, ...rest } = jsonSchema;
  // v1 converts the zod schema itself: the meta replaces what zod writes for an empty loose
  // object, and an undefined key removes one of zod's (its `$schema`, its `additionalProperties`).
  const schema = z.looseObject({}).meta({ $schema: undefined, additionalProperties: undefined, ...rest });
  // SDK v2 validates through Standard Schema: hand the arguments on untouched instead of
  // copying them, since executeTool validates them properly; and it lists the JSON Schema that
  // Standard Schema gives, which is ours as it is.
  const standard = schema['~standard'];
  const json = () => jsonSchema;
  Object.defineProperty(schema, '~standard', {
    value: {
      ...standard,
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: json, output: json },
    },
    configurable: true,
  });
  return schema;
}

interface SdkExtra {
  // SDK v2 handler context
  mcpReq?: {
    id?: string | number;
    signal?: AbortSignal;
    _meta?: { progressToken?: string | number };
    envelope?: { [CLIENT_CAPABILITIES_META_KEY]?: ClientCapabilities };
    inputResponses?: Record<string, unknown>;
    requestState?: () => unknown;
    [VERIFIED_STATE]?: unknown;
    notify?: (notification: { method: string; params: Record<string, unknown> }) => Promise<void>;
  };
  http?: { authInfo?: SdkAuthInfo };
  // SDK v1 handler extra
  signal?: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification?: (notification: { method: string; params: Record<string, unknown> }) => Promise<void>;
  authInfo?: SdkAuthInfo;
}

interface SdkAuthInfo {
  clientId?: string;
  scopes?: string[];
  extra?: Record<string, unknown>;
}

const UNAUTHENTICATED: Record<RequestInfo['transport'], RequestInfo> = {
  stdio: Object.freeze({ transport: 'stdio' }),
  http: Object.freeze({ transport: 'http' }),
  'in-process': Object.freeze({ transport: 'in-process' }),
  unknown: Object.freeze({ transport: 'unknown' }),
};

export function callContext(rawExtra: unknown, transport: RequestInfo['transport'] | undefined): CallContext {
  const extra = (rawExtra ?? {}) as SdkExtra;
  const signal = extra.mcpReq?.signal ?? extra.signal;
  const progressToken = (extra.mcpReq?._meta ?? extra._meta)?.progressToken;
  const notify = extra.mcpReq?.notify ?? extra.sendNotification;
  const auth = extra.http?.authInfo ?? extra.authInfo;
  let request: RequestInfo;
  if (auth) {
    request = {
      transport: transport ?? 'http',
      auth: { clientId: auth.clientId ?? 'unknown', scopes: auth.scopes ?? [] },
    };
    if (auth.extra && request.auth) request.auth.extra = auth.extra;
  } else {
    request = UNAUTHENTICATED[transport ?? 'unknown'];
  }
  const context: CallContext = { request };
  if (signal) context.signal = signal;
  if (progressToken !== undefined && notify) {
    context.reportProgress = async (progress, total, message) => {
      const params: Record<string, unknown> = { progressToken, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      await notify({ method: 'notifications/progress', params });
    };
  }
  return context;
}
