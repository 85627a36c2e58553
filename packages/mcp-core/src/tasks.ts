import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { checkAnswer, type InputChannel, type Question, type Questions } from './ask.js';
import { McpToolError } from './errors.js';
import type { CallContext } from './execute.js';
import { preparedAnswers, protocolErrorOf } from './execute.js';
import type { ToolCallResult } from './result.js';
import type { AnyToolDefinition, RequestInfo } from './tool.js';

/** Where a request's already verified `requestState` rides past the SDK's second seam. */
export const VERIFIED_STATE: unique symbol = Symbol('@x/mcp-core.verifiedRequestState');

/** The extension key of tasks on protocol 2026-07-28 (SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** One task as a store keeps it. `owner` scopes it: nobody else ever reads or changes it. */
export interface StoredTask {
  taskId: string;
  owner: string;
  /** The served name of the tool the task runs. */
  tool: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  lastUpdatedAt: string;
  /** How long the task and its result are kept after it was created. */
  ttlMs: number;
  pollIntervalMs: number;
  /** `completed`: the tool's result, error results included. */
  result?: ToolCallResult;
  /** `failed`: the protocol error the call ended in. */
  error?: { code: number; message: string; data?: unknown };
  /** `input_required`: the questions still unanswered, by key (as `tasks/get` shows them). */
  inputRequests?: Questions;
  /** Answers `tasks/update` brought that the running call has not taken yet, by key. */
  inputResponses?: Record<string, unknown>;
}

/**
 * Where task state lives: in memory for one process (stdio, one HTTP replica), or shared so
 * that a task started on one HTTP replica is polled and cancelled on another. A record is gone
 * (`get` answers `undefined`) once `ttlMs` has passed since it was created.
 */
export interface TaskStore {
  /** Stores a new task; once it resolves, `get` finds it on every replica. */
  create(task: StoredTask): Promise<void>;
  /** The owner's task, or `undefined` when it does not exist, expired, or is someone else's. */
  get(owner: string, taskId: string): Promise<StoredTask | undefined>;
  /**
   * Changes the owner's task atomically: `change` gets the current record and returns the next
   * one, or `undefined` to leave it as it is (it may be called again if another writer got in
   * first). Resolves with the record as stored afterwards, `undefined` when there is none.
   */
  update(
    owner: string,
    taskId: string,
    change: (current: StoredTask) => StoredTask | undefined,
  ): Promise<StoredTask | undefined>;
  /** The owner's live tasks, newest first (2025-11-25 `tasks/list`). */
  list(owner: string): Promise<StoredTask[]>;
}

/** A `TaskStore` in this process's memory: for stdio and single-replica HTTP. */
export class MemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, { task: StoredTask; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async create(task: StoredTask): Promise<void> {
    this.#sweep();
    const key = `${task.owner}\u0000${task.taskId}`;
    if (this.#tasks.has(key)) throw new Error(`Task ${task.taskId} already exists.`);
    this.#tasks.set(key, { task: structuredClone(task), expiresAt: Date.parse(task.createdAt) + task.ttlMs });
  }

  async get(owner: string, taskId: string): Promise<StoredTask | undefined> {
    const entry = this.#live(owner, taskId);
    return entry && structuredClone(entry.task);
  }

  async update(
    owner: string,
    taskId: string,
    change: (current: StoredTask) => StoredTask | undefined,
  ): Promise<StoredTask | undefined> {
    const entry = this.#live(owner, taskId);
    if (!entry) return undefined;
    const next = change(structuredClone(entry.task));
    if (next) entry.task = structuredClone(next);
    return structuredClone(entry.task);
  }

  async list(owner: string): Promise<StoredTask[]> {
    this.#sweep();
    return [...this.#tasks.values()]
      .filter((entry) => entry.task.owner === owner)
      .map((entry) => structuredClone(entry.task))
      .reverse();
  }

  #live(owner: string, taskId: string) {
    const key = `${owner}\u0000${taskId}`;
    const entry = this.#tasks.get(key);
    if (entry && entry.expiresAt <= this.now()) {
      this.#tasks.delete(key);
      return undefined;
    }
    return entry;
  }

  #sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.#tasks) if (entry.expiresAt <= now) this.#tasks.delete(key);
  }
}

export interface TaskOptions {
  /** Where task state lives. Default: a `MemoryTaskStore`. */
  store?: TaskStore;
  /** How long a task and its result are kept. Default 1 hour; a client may ask for less. */
  ttlMs?: number;
  /** The poll interval suggested to clients. Default 1 s. */
  pollIntervalMs?: number;
  /**
   * How often a running task checks the store for a cancellation made on another replica.
   * Default: `pollIntervalMs`.
   */
  cancelCheckMs?: number;
}

const DEFAULT_TTL_MS = 60 * 60 * 1000;
const DEFAULT_POLL_MS = 1000;

type ToolCall = (name: string, args: unknown, context: CallContext) => Promise<ToolCallResult>;

/**
 * Runs tools as tasks: creates the task, runs the call in the background under an abort signal
 * of its own (a cancellation aborts it, on whichever replica the call runs), and keeps its
 * outcome in the store. One per server process (shared by the per-request servers of HTTP).
 */
export class TaskHost {
  readonly store: TaskStore;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  readonly #cancelCheckMs: number;
  /** The calls running in this process, by task id. */
  readonly #running = new Map<
    string,
    { owner: string; controller: AbortController; done: Promise<void>; wake?: () => void }
  >();

  constructor(options: TaskOptions = {}) {
    this.store = options.store ?? new MemoryTaskStore();
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_MS;
    this.#cancelCheckMs = options.cancelCheckMs ?? this.pollIntervalMs;
  }

  /** Starts `call` as a task of `owner`; resolves once the task can be read back. */
  async start(
    owner: string,
    tool: string,
    call: (signal: AbortSignal, taskId: string) => Promise<ToolCallResult>,
    requestedTtlMs?: number,
  ): Promise<StoredTask> {
    const now = new Date().toISOString();
    const ttlMs =
      requestedTtlMs !== undefined && Number.isInteger(requestedTtlMs) && requestedTtlMs > 0
        ? Math.min(requestedTtlMs, this.ttlMs)
        : this.ttlMs;
    const task: StoredTask = {
      taskId: globalThis.crypto.randomUUID(),
      owner,
      tool,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs,
      pollIntervalMs: this.pollIntervalMs,
    };
    await this.store.create(task);
    const controller = new AbortController();
    const done = this.#run(task, controller, call).finally(() => {
      this.#running.delete(task.taskId);
    });
    this.#running.set(task.taskId, { owner, controller, done });
    return task;
  }

  async #run(
    task: StoredTask,
    controller: AbortController,
    call: (signal: AbortSignal, taskId: string) => Promise<ToolCallResult>,
  ): Promise<void> {
    // A cancellation written by another replica reaches this one at the next check.
    const check = setInterval(() => {
      this.store.get(task.owner, task.taskId).then(
        (current) => {
          if (!current || current.status === 'cancelled') controller.abort();
        },
        () => {},
      );
    }, this.#cancelCheckMs);
    check.unref?.();
    let outcome: Pick<StoredTask, 'status' | 'result' | 'error'>;
    try {
      const result = await call(controller.signal, task.taskId);
      const protocolError = protocolErrorOf(result);
      outcome = protocolError
        ? { status: 'failed', error: protocolError }
        : { status: 'completed', result: plain(result) };
    } catch (error) {
      outcome = {
        status: 'failed',
        error: { code: -32603, message: error instanceof Error ? error.message : String(error) },
      };
    } finally {
      clearInterval(check);
    }
    // Written only over a task still running: a cancelled task stays cancelled.
    await this.store
      .update(task.owner, task.taskId, (current) =>
        TERMINAL.has(current.status)
          ? undefined
          : { ...current, ...outcome, lastUpdatedAt: new Date().toISOString() },
      )
      .catch(() => {});
  }

  get(owner: string, taskId: string): Promise<StoredTask | undefined> {
    return this.store.get(owner, taskId);
  }

  /**
   * Cancels the owner's task: marks it `cancelled` unless it already ended, and aborts its
   * handler (here, or on its replica at the next check). Resolves with the record afterwards.
   */
  async cancel(owner: string, taskId: string): Promise<StoredTask | undefined> {
    const updated = await this.store.update(owner, taskId, (current) =>
      TERMINAL.has(current.status)
        ? undefined
        : {
            ...current,
            status: 'cancelled',
            statusMessage: 'Cancelled by the client.',
            lastUpdatedAt: new Date().toISOString(),
          },
    );
    const running = this.#running.get(taskId);
    if (running && running.owner === owner && updated?.status === 'cancelled') running.controller.abort();
    return updated;
  }

  /**
   * Parks the owner's running task in `input_required` with `questions`, and resolves with their
   * answers once `tasks/update` has brought them all (on this replica, or written to the store by
   * another one and read here at the next check). Rejects when `signal` aborts (a cancellation).
   */
  async waitForInput(
    owner: string,
    taskId: string,
    questions: Questions,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const keys = Object.keys(questions);
    await this.store.update(owner, taskId, (current) =>
      TERMINAL.has(current.status)
        ? undefined
        : {
            ...current,
            status: 'input_required',
            inputRequests: { ...current.inputRequests, ...questions },
            lastUpdatedAt: new Date().toISOString(),
          },
    );
    for (;;) {
      if (signal.aborted) throw signal.reason;
      let taken: Record<string, unknown> | undefined;
      const task = await this.store.update(owner, taskId, (current) => {
        const responses = current.inputResponses ?? {};
        if (!keys.every((key) => Object.hasOwn(responses, key))) return undefined;
        taken = Object.fromEntries(keys.map((key) => [key, responses[key]]));
        const rest = Object.fromEntries(Object.entries(responses).filter(([key]) => !keys.includes(key)));
        const { inputResponses: _taken, ...next } = current;
        return Object.keys(rest).length > 0 ? { ...next, inputResponses: rest } : next;
      });
      if (taken) return taken;
      if (!task || TERMINAL.has(task.status)) {
        throw new McpToolError('INTERNAL_ERROR', `Task ${taskId} ended while it waited for input.`);
      }
      const running = this.#running.get(taskId);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.#cancelCheckMs);
        timer.unref?.();
        function done() {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          if (running) running.wake = undefined;
          resolve();
        }
        signal.addEventListener('abort', done, { once: true });
        if (running) running.wake = done;
      });
    }
  }

  /**
   * `tasks/update`: keeps the answers to questions the owner's task is waiting for (others are
   * ignored), takes their keys off `inputRequests`, and goes back to `working` once none is left.
   * A malformed answer to a pending question is refused whole (-32602) before anything is kept.
   */
  async answer(owner: string, taskId: string, responses: Record<string, unknown>): Promise<void> {
    let refused: Error | undefined;
    const updated = await this.store.update(owner, taskId, (current) => {
      refused = undefined;
      const pending = current.inputRequests ?? {};
      const answered = Object.keys(responses).filter((key) => Object.hasOwn(pending, key));
      if (current.status !== 'input_required' || answered.length === 0) return undefined;
      try {
        for (const key of answered) checkAnswer(key, pending[key] as Question, responses[key]);
      } catch (error) {
        refused = error as Error;
        return undefined;
      }
      const left = Object.fromEntries(Object.entries(pending).filter(([key]) => !answered.includes(key)));
      const next: StoredTask = {
        ...current,
        inputResponses: {
          ...current.inputResponses,
          ...Object.fromEntries(answered.map((key) => [key, responses[key]])),
        },
        lastUpdatedAt: new Date().toISOString(),
      };
      if (Object.keys(left).length > 0) next.inputRequests = left;
      else {
        delete next.inputRequests;
        next.status = 'working';
      }
      return next;
    });
    if (refused) throw new ProtocolError(ProtocolErrorCode.InvalidParams, refused.message);
    if (updated) this.#running.get(taskId)?.wake?.();
  }

  /** How a task's call asks: it waits in `input_required`; `known` are answers given before it began. */
  channel(
    owner: string,
    taskId: string,
    can: (method: Question['method']) => boolean,
    known: Record<string, unknown> = {},
  ): InputChannel {
    const answers = { ...known };
    return {
      can,
      known: (key) => answers[key],
      wait: async (questions, signal) => {
        const waited = await this.waitForInput(owner, taskId, questions, signal);
        Object.assign(answers, waited);
        return waited;
      },
    };
  }

  /** Resolves when the owner's task has ended (or is gone), polling the store between looks. */
  async settled(owner: string, taskId: string, signal?: AbortSignal): Promise<StoredTask | undefined> {
    for (;;) {
      const task = await this.store.get(owner, taskId);
      if (!task || TERMINAL.has(task.status)) return task;
      const running = this.#running.get(taskId);
      await Promise.race([
        running?.done ?? new Promise((resolve) => setTimeout(resolve, task.pollIntervalMs).unref?.()),
        signal ? new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true })) : never,
      ]);
      if (signal?.aborted) throw new ProtocolError(ProtocolErrorCode.InternalError, 'Request cancelled.');
    }
  }

  /** Resolves when nothing runs in this process any more (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running.values()].map((entry) => entry.done));
  }
}

const never = new Promise<never>(() => {});

/** A result as JSON carries it (no symbol-keyed marks). */
function plain(result: ToolCallResult): ToolCallResult {
  return JSON.parse(JSON.stringify(result)) as ToolCallResult;
}

/** Who owns tasks started by this caller: the user, else the OAuth client, else the local user. */
export function taskOwner(request: RequestInfo | undefined): string {
  const userId = request?.auth?.extra?.userId;
  if (typeof userId === 'string' && userId !== '') return `user:${userId}`;
  if (request?.auth) return `client:${request.auth.clientId}`;
  return 'local';
}

// ---- the wire: 2026-07-28 extension and 2025-11-25 task-augmented calls ----------------------

interface SdkRequestContext {
  mcpReq?: {
    signal?: AbortSignal;
    envelope?: { [CLIENT_CAPABILITIES_META_KEY]?: ClientCapabilities };
  };
}

type Handler = (
  request: { method: string; params?: Record<string, unknown> },
  ctx: unknown,
) => Promise<unknown>;

const TaskIdParams = z.looseObject({ taskId: z.string().min(1).max(200) });
const ListParams = z.looseObject({ cursor: z.string().optional() });

/**
 * Serves tasks on an SDK v2 server whose tools are already mounted: the extension is advertised
 * (2026-07-28 `server/discover`) next to the 2025-11-25 `tasks` capability, `tools/call` of a
 * tool with `task` set returns a task when the client asked for one, and `tasks/*` answer.
 */
export function mountTasks(
  server: McpServer,
  host: TaskHost,
  lookup: (name: string) => AnyToolDefinition | undefined,
  call: ToolCall,
  context: (extra: unknown) => CallContext,
  answerAsking: (pending: Promise<ToolCallResult>, context: CallContext) => Promise<unknown>,
): void {
  const low = server.server;
  const modern = () => {
    const version = low.getNegotiatedProtocolVersion();
    return version !== undefined && version >= '2026-07-28';
  };
  const declared = (ctx: unknown): boolean => {
    if (!modern()) return low.getClientCapabilities()?.tasks !== undefined;
    const capabilities = (ctx as SdkRequestContext).mcpReq?.envelope?.[CLIENT_CAPABILITIES_META_KEY];
    return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
  };
  const requireExtension = (ctx: unknown) => {
    if (modern() && !declared(ctx)) {
      throw new MissingRequiredClientCapabilityError({
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
    }
  };
  low.registerCapabilities({
    extensions: { [TASKS_EXTENSION]: {} },
    tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
  } as Parameters<typeof low.registerCapabilities>[0]);

  const original = (
    low as unknown as { _getRequestHandler(method: string): Handler | undefined }
  )._getRequestHandler('tools/call');
  if (!original) throw new Error('mountTasks: mount the tools first.');
  // The SDK's original handler is wrapped in its input_required seam too, which would check the
  // requestState once more: it gets it as already verified (see VERIFIED_STATE), not again.
  const plain = (request: Parameters<Handler>[0], ctx: unknown) => {
    const mcpReq = (ctx as { mcpReq?: { requestState?: () => unknown } }).mcpReq;
    const state = mcpReq?.requestState?.();
    if (state === undefined) return original(request, ctx);
    return original(request, {
      ...(ctx as object),
      mcpReq: { ...mcpReq, requestState: () => undefined, [VERIFIED_STATE]: state },
    });
  };
  low.setRequestHandler('tools/call', async (request, ctx) => {
    const tool = lookup(request.params.name);
    if (!tool?.task) return (await plain(request, ctx)) as never;
    const params = request.params as { name: string; arguments?: unknown; task?: { ttl?: unknown } };
    const asked = modern() ? declared(ctx) : params.task !== undefined && typeof params.task === 'object';
    if (!asked) {
      if (tool.task !== 'required') return (await plain(request, ctx)) as never;
      if (modern()) requireExtension(ctx);
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        `Tool ${params.name} runs only as a task: call it with the task parameter.`,
      );
    }
    const callContext = context(ctx);
    const owner = taskOwner(callContext.request);
    const args = params.arguments ?? {};
    // The questions the call asks before it runs (a confirmation, the tool's `questions`) are
    // asked now, in rounds, before any task exists (MRTR, then a task: SEP-2663).
    let known: Record<string, unknown> = {};
    if (tool.questions || tool.confirm) {
      const prepared = await call(params.name, args, { ...callContext, prepare: true });
      const answers = preparedAnswers(prepared);
      if (!answers) return (await answerAsking(Promise.resolve(prepared), callContext)) as never;
      known = answers;
    }
    const { input, signIn: _signIn, ...base } = callContext;
    // 2025-11-25 tasks have no way to ask (their side channel is not served): ask answers
    // INPUT_UNAVAILABLE there, never a task that waits for ever.
    const can = (method: Question['method']) => modern() && input?.can(method) === true;
    const ttl = typeof params.task?.ttl === 'number' ? params.task.ttl : undefined;
    const task = await host.start(
      owner,
      params.name,
      (signal, taskId) =>
        call(params.name, args, {
          ...base,
          signal,
          task: { taskId },
          input: host.channel(owner, taskId, can, known),
        }),
      ttl,
    );
    if (modern()) return { resultType: 'task', ...wireTask(task, true) } as never;
    // The SDK checks a 2025-11-25 `tools/call` answer as a CallToolResult, which needs `content`
    // next to `task`: an empty one, which a client that asked for the task ignores.
    return { task: wireTask(task, false), content: [] } as never;
  });

  const find = async (ctx: unknown, taskId: string) => {
    const owner = taskOwner(context(ctx).request);
    const task = await host.get(owner, taskId);
    if (!task)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown or expired task: ${taskId}.`);
    return { owner, task };
  };
  low.setRequestHandler('tasks/get', { params: TaskIdParams }, async (params, ctx) => {
    requireExtension(ctx);
    const { task } = await find(ctx, params.taskId);
    if (!modern()) return wireTask(task, false) as never;
    const detailed: Record<string, unknown> = { resultType: 'complete', ...wireTask(task, true) };
    if (task.status === 'completed' && task.result) detailed.result = task.result;
    if (task.status === 'failed' && task.error) detailed.error = task.error;
    if (task.status === 'input_required') detailed.inputRequests = task.inputRequests ?? {};
    return detailed as never;
  });
  low.setRequestHandler('tasks/cancel', { params: TaskIdParams }, async (params, ctx) => {
    requireExtension(ctx);
    const { owner, task } = await find(ctx, params.taskId);
    if (!modern() && TERMINAL.has(task.status)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Task ${task.taskId} already ended (${task.status}); it cannot be cancelled.`,
      );
    }
    const updated = (await host.cancel(owner, task.taskId)) ?? task;
    return (modern() ? { resultType: 'complete' } : wireTask(updated, false)) as never;
  });
  // 2026-07-28: answers for a task waiting on input (unknown or already answered keys ignored).
  low.setRequestHandler(
    'tasks/update',
    { params: TaskIdParams.extend({ inputResponses: z.record(z.string(), z.unknown()).optional() }) },
    async (params, ctx) => {
      requireExtension(ctx);
      const { owner, task } = await find(ctx, params.taskId);
      // The SDK lifts `inputResponses` off the params of every request into the context.
      const responses =
        (ctx as { mcpReq?: { inputResponses?: Record<string, unknown> } }).mcpReq?.inputResponses ??
        params.inputResponses;
      if (responses) await host.answer(owner, task.taskId, responses);
      return { resultType: 'complete' } as never;
    },
  );
  // 2025-11-25 only (the SDK answers -32601 for them on 2026-07-28).
  low.setRequestHandler('tasks/result', { params: TaskIdParams }, async (params, ctx) => {
    const { owner, task } = await find(ctx, params.taskId);
    const settled =
      (await host.settled(owner, task.taskId, (ctx as SdkRequestContext).mcpReq?.signal)) ?? task;
    const related = { [RELATED_TASK_META_KEY]: { taskId: task.taskId } };
    if (settled.status === 'completed' && settled.result) {
      return { ...settled.result, _meta: { ...(settled.result._meta as object), ...related } } as never;
    }
    if (settled.status === 'failed' && settled.error) {
      throw new ProtocolError(settled.error.code, settled.error.message, settled.error.data);
    }
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Task ${task.taskId} was cancelled: it has no result.`,
    );
  });
  low.setRequestHandler('tasks/list', { params: ListParams }, async (params, ctx) => {
    if (params.cursor !== undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'Invalid cursor: tasks/list has a single page.',
      );
    }
    const tasks = await host.store.list(taskOwner(context(ctx).request));
    return { tasks: tasks.map((task) => wireTask(task, false)) } as never;
  });
}

/** The Task fields on the wire: 2026-07-28 names (`ttlMs`, `pollIntervalMs`) or 2025-11-25 ones. */
function wireTask(task: StoredTask, modern: boolean): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    taskId: task.taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
  };
  if (task.statusMessage !== undefined) wire.statusMessage = task.statusMessage;
  if (modern) {
    wire.ttlMs = task.ttlMs;
    wire.pollIntervalMs = task.pollIntervalMs;
  } else {
    wire.ttl = task.ttlMs;
    wire.pollInterval = task.pollIntervalMs;
  }
  return wire;
}
