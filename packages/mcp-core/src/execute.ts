import type { z } from 'zod';
import {
  type Answers,
  callDigest,
  checkAnswer,
  checkQuestions,
  formQuestion,
  type InputChannel,
  InputRequired,
  type Questions,
} from './ask.js';
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
   * How the call's questions reach the client (`ToolContext.ask`, a destructive tool's `confirm`);
   * absent, the call cannot ask anything (`ask` throws `InputUnavailableError`).
   */
  input?: InputChannel;
  /** `false`: a destructive tool's `confirm` question is not asked (`--no-confirm`). Default `true`. */
  confirm?: boolean;
  /**
   * Ask the questions the call asks before its handler (`confirm`, `questions`), then stop: the
   * result carries their answers (`preparedAnswers`) instead of running the handler. For a call
   * about to become a task, so that it asks in rounds before the task exists.
   */
  prepare?: boolean;
  /**
   * Set when the client can send its person to a sign-in page (URL elicitation): a call that fails
   * for a missing or dead login (`needsSignIn`) asks it to, and runs again once signed in.
   */
  signIn?: SignInRound;
  /** Set when the call runs as a task (see `ToolContext.task`). */
  task?: { taskId: string };
}

/** The questions a call stopped to ask, for the serving layer to send. */
export interface PendingInput {
  questions: Questions;
  /** Every answer the call used so far (to carry into the next round). */
  answers: Record<string, unknown>;
  /** The call they belong to (`callDigest`). */
  call: string;
}

const PENDING: unique symbol = Symbol('@x/mcp-core.pendingInput');

/**
 * The questions a result stands for, when the call stopped to ask: only a caller that passed
 * `input` ever gets such a result, and it must ask instead of answering with it.
 */
export function pendingInput(result: ToolCallResult): PendingInput | undefined {
  return (result as { [PENDING]?: PendingInput })[PENDING];
}

const PREPARED: unique symbol = Symbol('@x/mcp-core.preparedAnswers');

/** The answers a `prepare` call gathered; `undefined` when it stopped to ask or failed. */
export function preparedAnswers(result: ToolCallResult): Record<string, unknown> | undefined {
  return (result as { [PREPARED]?: Record<string, unknown> })[PREPARED];
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
      pendingInput(result) || pendingSignIn(result)
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
      context.input,
    );
    // Answers carried in a requestState issued for another call are no answers to this one.
    // (Hashed only then, or when the call asks: a plain call starts its handler at once.)
    if (context.input?.boundTo !== undefined) {
      if (context.input.boundTo !== (await callDigest('call_', tool.name, input))) {
        throw new InvalidInputError(
          `The requestState sent with this call was issued for another call (other tool or arguments): call ${tool.name} again without it.`,
        );
      }
    }
    try {
      if (tool.confirm && context.confirm !== false && context.input?.can('elicitation/create')) {
        // Keyed by the exact call: an answer given for other arguments is not an answer to this one.
        const key = await callDigest('confirm_', tool.name, input);
        if (context.input.known(key) === undefined) {
          const message = await call.run(tool.confirm, input, options.timeoutMs);
          if (typeof message === 'string') await call.ask({ [key]: formQuestion(message, {}) });
        }
        const answer = context.input.known(key) as { action?: string } | undefined;
        if (answer !== undefined) {
          const { action } = checkAnswer(key, formQuestion('', {}), answer) as { action: string };
          call.answered[key] = answer;
          if (action !== 'accept') {
            throw new DeclinedError(
              `The person ${action === 'decline' ? 'declined' : 'dismissed'} the confirmation: nothing was changed. Do not call ${tool.name} again for this unless they ask you to.`,
            );
          }
        }
      }
      if (tool.questions) {
        const questions = (await call.run(tool.questions, input, options.timeoutMs)) as Questions | undefined;
        if (questions !== undefined) await call.ask(questions);
      }
      if (context.prepare) {
        const result: ToolCallResult = { content: [] };
        Object.defineProperty(result, PREPARED, { value: { ...call.answered } });
        return result;
      }
      const output = await call.run(tool.handler, input, options.timeoutMs);
      return renderToolRefsDeep(shapeOutput(tool, output, options), options.served);
    } catch (error) {
      if (error instanceof InputRequired) {
        return asking(error.questions, call, await callDigest('call_', tool.name, input));
      }
      throw error;
    }
  } catch (error) {
    // Messages and hints name tools wherever they were built, client code included.
    return keepSignInError(renderToolRefsDeep(errorResult(tool.name, error, log), options.served), error);
  }
}

const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/** A result that stands for the questions; its text is their messages, should anyone show it. */
function asking(questions: Questions, call: ToolCall, digest: string): ToolCallResult {
  const text = Object.values(questions)
    .map((question) => ('message' in question.params ? question.params.message : question.method))
    .join('\n');
  const result: ToolCallResult = { content: [{ type: 'text', text }] };
  const pending: PendingInput = { questions, answers: { ...call.answered }, call: digest };
  Object.defineProperty(result, PENDING, { value: pending });
  return result;
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
    private readonly input: InputChannel | undefined,
  ) {}

  /** Every answer this call has used, by key: carried into the next round when it asks again. */
  readonly answered: Record<string, unknown> = {};

  async ask<Q extends Questions>(questions: Q): Promise<Answers<Q>> {
    checkQuestions(questions, this.input);
    const input = this.input as InputChannel;
    const answers: Record<string, unknown> = {};
    const missing: Questions = {};
    for (const [key, question] of Object.entries(questions)) {
      const known = input.known(key);
      if (known === undefined) missing[key] = question;
      else answers[key] = checkAnswer(key, question, known);
    }
    Object.assign(this.answered, answers);
    if (Object.keys(missing).length === 0) return answers as Answers<Q>;
    if (!input.wait) throw new InputRequired(missing);
    const waited = await input.wait(missing, this.signal);
    for (const [key, question] of Object.entries(missing)) {
      answers[key] = checkAnswer(key, question, waited[key]);
    }
    Object.assign(this.answered, answers);
    return answers as Answers<Q>;
  }

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
