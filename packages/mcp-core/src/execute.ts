import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { InvalidInputError, McpToolError, ToolTimeoutError } from './errors.js';
import type { Logger } from './logger.js';
import { isToolCallResult, type ToolCallResult, toolError, toolSuccess } from './result.js';
import type { AnyToolDefinition, RequestInfo, ToolContext } from './tool.js';

export interface ExecuteOptions {
  timeoutMs: number;
  validateOutput: boolean;
  /** The tool's own logger. */
  logger: Logger;
}

export interface CallContext {
  /** Aborted by the caller (client cancellation). */
  signal?: AbortSignal;
  reportProgress?: ToolContext['reportProgress'];
  request?: RequestInfo;
}

const noProgress: ToolContext['reportProgress'] = async () => {};
const IN_PROCESS: RequestInfo = Object.freeze({ transport: 'in-process' });

/**
 * Runs one call: validates the arguments, runs the handler under a time budget and the
 * caller's cancellation, and maps every outcome onto the shared result vocabulary.
 * It never throws.
 */
export async function executeTool(
  tool: AnyToolDefinition,
  args: unknown,
  context: CallContext,
  options: ExecuteOptions,
): Promise<ToolCallResult> {
  const log = options.logger;
  try {
    const input = parseInput(tool, args);
    const output = await runHandler(tool, input, context, options, log);
    return shapeOutput(tool, output, options);
  } catch (error) {
    return errorResult(tool.name, error, log);
  }
}

function parseInput(tool: AnyToolDefinition, args: unknown): unknown {
  const parsed = (tool.inputSchema as z.ZodType).safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: [...issue.path, key].join('.'), message: 'unknown field' }));
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
 * Runs the handler under the time budget and the caller's cancellation. One promise settles
 * on whichever comes first, so a handler that ignores its signal cannot hold the call open
 * past the budget. Costs are paid only when used: a synchronous handler skips all of it, and
 * the abort controller and the link to the client's cancellation are built only when the
 * handler reads `context.signal` (a handler that never reads it cannot react to a
 * cancellation anyway; the SDK drops the result of a cancelled request).
 */
function runHandler(
  tool: AnyToolDefinition,
  input: unknown,
  context: CallContext,
  options: ExecuteOptions,
  log: Logger,
): unknown {
  const callerSignal = context.signal;
  let controller: AbortController | undefined;
  let rejectCall: ((reason: unknown) => void) | undefined;
  const onCallerAbort = () => {
    controller?.abort(callerSignal?.reason);
    rejectCall?.(new McpToolError('INTERNAL_ERROR', `Call to ${tool.name} was cancelled by the client.`));
  };
  const toolContext: ToolContext = {
    get signal() {
      if (!controller) {
        controller = new AbortController();
        if (callerSignal?.aborted) controller.abort(callerSignal.reason);
        else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
      }
      return controller.signal;
    },
    reportProgress: context.reportProgress ?? noProgress,
    log,
    request: context.request ?? IN_PROCESS,
  };
  const output: unknown = tool.handler(input, toolContext);
  if (!isPromiseLike(output)) {
    if (controller) callerSignal?.removeEventListener('abort', onCallerAbort);
    return output;
  }

  const timeoutMs = tool.timeoutMs ?? options.timeoutMs;
  return new Promise<unknown>((resolve, reject) => {
    rejectCall = reject;
    const timer = setTimeout(() => {
      const timeout = new ToolTimeoutError(tool.name, timeoutMs);
      controller?.abort(timeout);
      reject(timeout);
    }, timeoutMs);
    timer.unref?.();
    const settle = () => {
      clearTimeout(timer);
      if (controller) callerSignal?.removeEventListener('abort', onCallerAbort);
    };
    if (controller?.signal.aborted)
      reject(new McpToolError('INTERNAL_ERROR', `Call to ${tool.name} was cancelled by the client.`));
    output.then(
      (value) => {
        settle();
        resolve(value);
      },
      (error: unknown) => {
        settle();
        reject(error);
      },
    );
  });
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

function shapeOutput(tool: AnyToolDefinition, output: unknown, options: ExecuteOptions): ToolCallResult {
  if (isToolCallResult(output)) return output;
  const result = toolSuccess(output);
  if (tool.outputSchema !== undefined && options.validateOutput) {
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
  if (McpToolError.isInstance(error)) {
    if (error.code === 'INTERNAL_ERROR' && error.cause !== undefined) {
      log.error(error.message, { cause: describeCause(error.cause) });
    }
    return toolError(error.code, error.message, error.retryable, { ...error.details });
  }
  const reference = randomUUID().slice(0, 8);
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
