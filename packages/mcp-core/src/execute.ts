import type { z } from 'zod';
import { DeclinedError, ERROR_CODES, InvalidInputError, McpToolError, ToolTimeoutError } from './errors.js';
import type { Logger } from './logger.js';
import { observed, startToolCall, type ToolCallOutcome } from './observability/events.js';
import { McpRequestError } from './request-error.js';
import { isToolCallResult, type ToolCallResult, toolError, toolSuccess } from './result.js';
import { keepSignInError, pendingSignIn, type SignInRound, signInStep } from './sign-in.js';
import type { AnyToolDefinition, RequestInfo, ToolContext } from './tool.js';
import { renderToolRefsDeep, type ToolNamer } from './tool-ref.js';

export interface ExecuteOptions {
  /** The tool's time budget. */
  timeoutMs: number;
  validateOutput: boolean;
  /** The tool's own logger. */
  logger: Logger;
  /** Renders `toolRef`s in the result with served names. Default: the bare names. */
  served?: ToolNamer;
}

export interface CallContext {
  /** Aborted by the caller (client cancellation). */
  signal?: AbortSignal;
  reportProgress?: ToolContext['reportProgress'];
  request?: RequestInfo;
  /**
   * Set when the person behind the client can be asked to confirm a destructive call (see
   * `ToolDefinition.confirm`); absent, nobody is asked and the handler runs as it always did.
   */
  confirmation?: Confirmation;
  /**
   * Set when the client can send its person to a sign-in page (URL elicitation): a call that fails
   * for a missing or dead login (`needsSignIn`) asks it to, and runs again once signed in.
   */
  signIn?: SignInRound;
  /** Set when the call runs as a task (see `ToolContext.task`). */
  task?: { taskId: string };
}

/** What the client answered to the confirmation asked under a key, in this round of the call. */
export interface Confirmation {
  answer(key: string): 'accept' | 'decline' | 'cancel' | undefined;
}

/** The question a call must ask before its handler runs, for the serving layer to ask. */
export interface PendingConfirmation {
  /** Names the exact call (tool and arguments), so an answer is never used for another one. */
  key: string;
  message: string;
}

const PENDING: unique symbol = Symbol('@x/mcp-core.pendingConfirmation');

/**
 * The question a result stands for, when the call stopped to ask the person: only a caller that
 * passed `confirmation` ever gets such a result, and it must ask instead of answering with it.
 */
export function pendingConfirmation(result: ToolCallResult): PendingConfirmation | undefined {
  return (result as { [PENDING]?: PendingConfirmation })[PENDING];
}

const PROTOCOL_ERROR: unique symbol = Symbol('@x/mcp-core.protocolError');

/**
 * The protocol error a call ended in, when its handler threw an `McpRequestError`: a task then
 * ends `failed` with it. A plain call answers with the error result it also carries.
 */
export function protocolErrorOf(
  result: ToolCallResult,
): { code: number; message: string; data?: unknown } | undefined {
  return (result as { [PROTOCOL_ERROR]?: { code: number; message: string; data?: unknown } })[PROTOCOL_ERROR];
}

const noProgress: ToolContext['reportProgress'] = async () => {};
const IN_PROCESS: RequestInfo = Object.freeze({ transport: 'in-process' });

/**
 * Runs one call: validates the arguments, runs the handler under a time budget and the
 * caller's cancellation, and maps every outcome onto the shared result vocabulary.
 * It never throws.
 */
export function executeTool(
  tool: AnyToolDefinition,
  args: unknown,
  context: CallContext,
  options: ExecuteOptions,
): Promise<ToolCallResult> {
  if (!observed()) return runTool(tool, args, context, options);
  return observedCall(tool, args, context, options);
}

/** The same call, announced to the observers (metrics, traces, logs) with its outcome. */
async function observedCall(
  tool: AnyToolDefinition,
  args: unknown,
  context: CallContext,
  options: ExecuteOptions,
): Promise<ToolCallResult> {
  // `tool.name` is the served name (prefixed by `use`).
  const scope = startToolCall({ tool: tool.name, request: context.request ?? IN_PROCESS }, args ?? {});
  let outcome: ToolCallOutcome = 'INTERNAL_ERROR';
  try {
    const result = await scope.run(() => runTool(tool, args, context, options));
    outcome =
      pendingConfirmation(result) || pendingSignIn(result)
        ? 'input_required'
        : result.isError
          ? errorCodeOf(result)
          : 'ok';
    return result;
  } finally {
    scope.end({ outcome });
  }
}

async function runTool(
  tool: AnyToolDefinition,
  args: unknown,
  context: CallContext,
  options: ExecuteOptions,
): Promise<ToolCallResult> {
  const result = await runOnce(tool, args, context, options);
  if (!context.signIn || !result.isError) return result;
  // After the sign-in, the call runs once more, as for a client that cannot sign in.
  const { signIn: _asked, ...once } = context;
  return signInStep(
    result,
    context.signIn,
    context.signal,
    () => runOnce(tool, args, once, options),
    context.reportProgress,
  );
}

async function runOnce(
  tool: AnyToolDefinition,
  args: unknown,
  context: CallContext,
  options: ExecuteOptions,
): Promise<ToolCallResult> {
  const log = options.logger;
  try {
    const input = parseInput(tool, args);
    const call = new ToolCall(
      tool.name,
      context.signal,
      log,
      context.request ?? IN_PROCESS,
      context.reportProgress ?? noProgress,
      context.task,
    );
    if (tool.confirm && context.confirmation) {
      const key = await confirmationKey(tool.name, input);
      const answer = context.confirmation.answer(key);
      if (answer === undefined) {
        const message = await call.run(tool.confirm, input, options.timeoutMs);
        if (typeof message === 'string') return asking({ key, message });
      } else if (answer !== 'accept') {
        throw new DeclinedError(
          `The person ${answer === 'decline' ? 'declined' : 'dismissed'} the confirmation: nothing was changed. Do not call ${tool.name} again for this unless they ask you to.`,
        );
      }
    }
    const output = await call.run(tool.handler, input, options.timeoutMs);
    return renderToolRefsDeep(shapeOutput(tool, output, options), options.served);
  } catch (error) {
    // Messages and hints name tools wherever they were built, client code included.
    return keepSignInError(renderToolRefsDeep(errorResult(tool.name, error, log), options.served), error);
  }
}

const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/** A result that stands for the question; its text is the question, should anyone show it. */
function asking(pending: PendingConfirmation): ToolCallResult {
  const result: ToolCallResult = { content: [{ type: 'text', text: pending.message }] };
  Object.defineProperty(result, PENDING, { value: pending });
  return result;
}

/**
 * `confirm_` and 16 hex digits of SHA-256 over the tool's name and its validated input (keys in
 * the schema's order): an answer given for other arguments is not an answer to this call.
 */
async function confirmationKey(toolName: string, input: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify([toolName, input]));
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes));
  let hex = '';
  for (const byte of digest.subarray(0, 8)) hex += byte.toString(16).padStart(2, '0');
  return `confirm_${hex}`;
}

/** The `error_code` of an error result; `error` when it carries none of ours (a bounded label). */
function errorCodeOf(result: ToolCallResult): ToolCallOutcome {
  const text = result.content[0]?.text;
  if (typeof text !== 'string') return 'error';
  const match = /"error_code"\s*:\s*"([A-Z_]+)"/.exec(text);
  return match?.[1] && KNOWN_CODES.has(match[1]) ? (match[1] as ToolCallOutcome) : 'error';
}

function parseInput(tool: AnyToolDefinition, args: unknown): unknown {
  const parsed = (tool.inputSchema as z.ZodType).safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      // Key names come from the client: cap them so a huge key is not echoed back whole.
      return issue.keys.map((key) => ({
        field: [...issue.path, key.length > 64 ? `${key.slice(0, 64)}…` : key].join('.'),
        message: 'unknown field',
      }));
    }
    return [{ field: issue.path.length > 0 ? issue.path.join('.') : '(arguments)', message: issue.message }];
  });
  const summary = fields.map((field) => `${field.field}: ${field.message}`).join('; ');
  throw new InvalidInputError(
    `Invalid arguments for ${tool.name}: ${summary}. Fix these fields and call again.`,
    {
      details: { fields },
    },
  );
}

/**
 * One running call, and the handler's context. It runs the handler under the time budget and
 * the caller's cancellation; one promise settles on whichever comes first, so a handler that
 * ignores its signal cannot hold the call open past the budget. Costs are paid only when
 * used: a synchronous handler skips the timer, and the abort controller and the link to the
 * client's cancellation are built only when the handler reads `signal` (a handler that never
 * reads it cannot react to a cancellation; the SDK drops a cancelled request's result).
 */
class ToolCall implements ToolContext {
  #controller: AbortController | undefined;
  #reject: ((reason: unknown) => void) | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly toolName: string,
    private readonly callerSignal: AbortSignal | undefined,
    readonly log: Logger,
    readonly request: RequestInfo,
    readonly reportProgress: ToolContext['reportProgress'],
    readonly task: ToolContext['task'],
  ) {}

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.callerSignal?.aborted) this.#controller.abort(this.callerSignal.reason);
      else this.callerSignal?.addEventListener('abort', this, { once: true });
    }
    return this.#controller.signal;
  }

  /** The caller cancelled (the EventListener interface, so no closure per call). */
  handleEvent(): void {
    this.#controller?.abort(this.callerSignal?.reason);
    this.#reject?.(
      new McpToolError('INTERNAL_ERROR', `Call to ${this.toolName} was cancelled by the client.`),
    );
  }

  /** Runs the handler (or the `confirm` question); once per call. */
  run(work: (input: never, context: ToolContext) => unknown, input: unknown, timeoutMs: number): unknown {
    const output: unknown = work(input as never, this);
    if (!isPromiseLike(output)) {
      this.#unlink();
      return output;
    }
    return new Promise<unknown>((resolve, reject) => {
      this.#reject = reject;
      this.#timer = setTimeout(onTimeout, timeoutMs, this, timeoutMs);
      this.#timer.unref?.();
      if (this.#controller?.signal.aborted) this.handleEvent();
      output.then(
        (value) => {
          this.#unlink();
          resolve(value);
        },
        (error: unknown) => {
          this.#unlink();
          reject(error);
        },
      );
    });
  }

  timeout(timeoutMs: number): void {
    const error = new ToolTimeoutError(this.toolName, timeoutMs);
    this.#controller?.abort(error);
    this.#reject?.(error);
  }

  #unlink(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#controller) this.callerSignal?.removeEventListener('abort', this);
  }
}

function onTimeout(call: ToolCall, timeoutMs: number): void {
  call.timeout(timeoutMs);
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

function shapeOutput(tool: AnyToolDefinition, output: unknown, options: ExecuteOptions): ToolCallResult {
  const result = isToolCallResult(output) ? output : toolSuccess(output);
  if (tool.outputSchema !== undefined && options.validateOutput && !result.isError) {
    const checked = (tool.outputSchema as z.ZodType).safeParse(result.structuredContent);
    if (!checked.success) {
      throw new Error(
        `Tool ${tool.name} returned data that does not match its outputSchema: ${checked.error.issues
          .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
          .join('; ')}`,
      );
    }
  }
  return result;
}

function errorResult(toolName: string, error: unknown, log: Logger): ToolCallResult {
  if (error instanceof McpRequestError) {
    const result = toolError('INTERNAL_ERROR', error.message, false, { code: error.code });
    Object.defineProperty(result, PROTOCOL_ERROR, {
      value: { code: error.code, message: error.message, data: error.data },
    });
    return result;
  }
  if (McpToolError.isInstance(error)) {
    if (error.code === 'INTERNAL_ERROR' && error.cause !== undefined) {
      log.error(error.message, { cause: describeCause(error.cause) });
    }
    return toolError(error.code, error.message, error.retryable, { ...error.details });
  }
  const reference = globalThis.crypto.randomUUID().slice(0, 8);
  log.error(`unexpected failure (ref ${reference})`, { error: describeCause(error) });
  return toolError(
    'INTERNAL_ERROR',
    `Tool ${toolName} failed unexpectedly (ref ${reference}). The details are in the server log; retrying will probably not help.`,
    false,
  );
}

function describeCause(error: unknown): unknown {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return String(error);
}
