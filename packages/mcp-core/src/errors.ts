import { z } from 'zod';

/**
 * One error vocabulary for every tool. A tool failure is a *result* the model reads
 * (`isError: true` plus a JSON body), never an exception thrown through the protocol.
 */

export const ERROR_CODES = [
  'INVALID_INPUT',
  'NOT_FOUND',
  'PERMISSION_DENIED',
  'TOKEN_EXPIRED',
  'AUTH_REQUIRED',
  'RATE_LIMITED',
  'TOOL_NOT_ENABLED',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_ERROR',
  'LIMIT_EXCEEDED',
  'CONFLICT',
  'DECLINED',
  'INPUT_UNAVAILABLE',
  'INTERNAL_ERROR',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Extra fields that help an agent recover; they are merged into the error body. */
export interface ErrorDetails {
  /** Milliseconds to wait before retrying (rate limits, `Retry-After`). */
  retry_after_ms?: number;
  /** Close matches when an ID or name was not found. */
  candidates?: readonly string[];
  /** The next step the agent should take. */
  hint?: string;
  [key: string]: unknown;
}

export interface McpToolErrorOptions {
  /** Whether the same call may succeed later; each code has a default. */
  retryable?: boolean;
  details?: ErrorDetails;
  /** The underlying error. Kept for logs, never put into a result. */
  cause?: unknown;
}

/** The JSON body of an error result. */
export interface ToolErrorBody extends ErrorDetails {
  error_code: ErrorCode;
  message: string;
  retryable: boolean;
}

const BRAND = Symbol.for('@x/mcp-core.McpToolError');

/** Whether a code is, by default, worth retrying unchanged. */
const RETRYABLE_BY_DEFAULT: ReadonlySet<ErrorCode> = new Set(['RATE_LIMITED', 'UPSTREAM_UNAVAILABLE']);

export class McpToolError extends Error {
  readonly [BRAND] = true;
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Readonly<ErrorDetails>;

  constructor(code: ErrorCode, message: string, options: McpToolErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'McpToolError';
    this.code = code;
    this.retryable = options.retryable ?? RETRYABLE_BY_DEFAULT.has(code);
    this.details = options.details ?? {};
  }

  /** Works across duplicate installs of this package, unlike `instanceof`. */
  static isInstance(value: unknown): value is McpToolError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  toJSON(): ToolErrorBody {
    return { error_code: this.code, message: this.message, retryable: this.retryable, ...this.details };
  }
}

type ToolErrorClass = new (message: string, options?: McpToolErrorOptions) => McpToolError;

function errorClass(code: ErrorCode, name: string): ToolErrorClass {
  const cls = class extends McpToolError {
    constructor(message: string, options?: McpToolErrorOptions) {
      super(code, message, options);
      this.name = name;
    }
  };
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

/** Arguments failed validation; `details.fields` lists each bad field. */
export const InvalidInputError = errorClass('INVALID_INPUT', 'InvalidInputError');
export type InvalidInputError = McpToolError;
export const NotFoundError = errorClass('NOT_FOUND', 'NotFoundError');
export type NotFoundError = McpToolError;
export const PermissionDeniedError = errorClass('PERMISSION_DENIED', 'PermissionDeniedError');
export type PermissionDeniedError = McpToolError;
export const TokenExpiredError = errorClass('TOKEN_EXPIRED', 'TokenExpiredError');
export type TokenExpiredError = McpToolError;
/**
 * The user has not connected the upstream this tool needs (e.g. a hosted server's per-user Forge
 * link). `details.connect_url` is where the user goes to connect it; the message says so.
 */
export const AuthRequiredError = errorClass('AUTH_REQUIRED', 'AuthRequiredError');
export type AuthRequiredError = McpToolError;
export const RateLimitedError = errorClass('RATE_LIMITED', 'RateLimitedError');
export type RateLimitedError = McpToolError;
export const ToolNotEnabledError = errorClass('TOOL_NOT_ENABLED', 'ToolNotEnabledError');
export type ToolNotEnabledError = McpToolError;
export const UpstreamUnavailableError = errorClass('UPSTREAM_UNAVAILABLE', 'UpstreamUnavailableError');
export type UpstreamUnavailableError = McpToolError;
export const UpstreamError = errorClass('UPSTREAM_ERROR', 'UpstreamError');
export type UpstreamError = McpToolError;
export const LimitExceededError = errorClass('LIMIT_EXCEEDED', 'LimitExceededError');
export type LimitExceededError = McpToolError;
export const ConflictError = errorClass('CONFLICT', 'ConflictError');
export type ConflictError = McpToolError;
/**
 * The person was asked to confirm a destructive call (a tool's `confirm` question) and declined
 * or dismissed it: nothing was changed. Not worth retrying unless the person asks again.
 */
export const DeclinedError = errorClass('DECLINED', 'DeclinedError');
export type DeclinedError = McpToolError;
/**
 * A handler asked the client a question (`context.ask`) it cannot answer: the client did not declare
 * that kind of request (elicitation, sampling, roots), or nothing can carry it (a 2025-11-25 task).
 */
export const InputUnavailableError = errorClass('INPUT_UNAVAILABLE', 'InputUnavailableError');

export const InternalError = errorClass('INTERNAL_ERROR', 'InternalError');
export type InternalError = McpToolError;

/**
 * A tool is unusable as configured: a missing credential, a bad base URL. Its message
 * names the variable or login command that fixes it, so it reaches the model as
 * `TOOL_NOT_ENABLED` instead of being hidden as an internal error.
 */
export class ConfigError extends McpToolError {
  constructor(message: string, options?: McpToolErrorOptions) {
    super('TOOL_NOT_ENABLED', message, options);
    this.name = 'ConfigError';
  }
}

/** A call ran past its time budget and was aborted. */
export class ToolTimeoutError extends McpToolError {
  readonly timeoutMs: number;
  constructor(toolName: string, timeoutMs: number) {
    super(
      'UPSTREAM_UNAVAILABLE',
      `Tool ${toolName} did not finish within ${timeoutMs} ms and was cancelled. Retry, or narrow the request.`,
      { retryable: true, details: { timeout_ms: timeoutMs } },
    );
    this.name = 'ToolTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/** A second tool with the same name was registered. Thrown at registration, not a tool result. */
export class DuplicateToolError extends Error {
  readonly toolName: string;
  /** `kind` says what collided: prompts and resources have names of their own. */
  constructor(toolName: string, kind: 'tool' | 'prompt' | 'resource' = 'tool') {
    super(`A ${kind} named "${toolName}" is already registered.`);
    this.name = 'DuplicateToolError';
    this.toolName = toolName;
  }
}

/** One problem of a definition: the field (a dotted path) and what is wrong with it. */
export interface ValidationIssue {
  field: string;
  message: string;
}

/**
 * A tool, prompt or resource definition that breaks the published contract; `field` names the
 * first bad field. Built from the issues found (`(toolName, issues)`), from the `ZodError` of a
 * failed parse (`(zodError)` or `(toolName, zodError)`), which is then kept as `cause`, or from a
 * message alone (`('message')`, its field `(root)`).
 */
export class ToolValidationError extends Error {
  readonly field: string;
  readonly issues: readonly ValidationIssue[];
  constructor(zodError: z.core.$ZodError);
  constructor(message: string, options?: { cause?: unknown });
  constructor(
    toolName: string | undefined,
    problems: readonly ValidationIssue[] | z.core.$ZodError,
    options?: { cause?: unknown },
  );
  constructor(
    first: string | undefined | z.core.$ZodError,
    second?: readonly ValidationIssue[] | z.core.$ZodError | { cause?: unknown },
    third?: { cause?: unknown },
  ) {
    const { message, issues, cause } = describeProblems(first, second, third);
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ToolValidationError';
    this.field = issues[0]?.field ?? '';
    this.issues = issues;
  }
}

/** The message, issues and cause of each form of the `ToolValidationError` constructor. */
function describeProblems(
  first: string | undefined | z.core.$ZodError,
  second: readonly ValidationIssue[] | z.core.$ZodError | { cause?: unknown } | undefined,
  third: { cause?: unknown } | undefined,
): { message: string; issues: readonly ValidationIssue[]; cause: unknown } {
  let toolName: string | undefined;
  let problems: readonly ValidationIssue[] | z.core.$ZodError;
  let cause: unknown;
  if (isZodError(first)) {
    problems = first;
  } else if (Array.isArray(second) || isZodError(second)) {
    toolName = first;
    problems = second as readonly ValidationIssue[] | z.core.$ZodError;
    cause = third?.cause;
  } else if (typeof first === 'string') {
    // A message alone is said as it is.
    return {
      message: first,
      issues: [{ field: ROOT, message: first }],
      cause: (second as { cause?: unknown } | undefined)?.cause,
    };
  } else {
    problems = [];
  }
  const issues = isZodError(problems) ? issuesOf(problems) : problems;
  const label = toolName ? `Invalid tool definition "${toolName}"` : 'Invalid tool definition';
  return {
    message: `${label}: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join('; ')}`,
    issues,
    cause: isZodError(problems) ? problems : cause,
  };
}

/** A ZodError, also one of another copy of zod (an error with an `issues` list). */
function isZodError(value: unknown): value is z.core.$ZodError {
  return (
    value instanceof z.core.$ZodError ||
    (value instanceof Error && Array.isArray((value as { issues?: unknown }).issues))
  );
}

const ROOT = '(root)';

function issuesOf(error: z.core.$ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    field: issue.path?.length > 0 ? issue.path.join('.') : ROOT,
    message:
      issue.code === 'unrecognized_keys' && Array.isArray(issue.keys)
        ? `unknown field(s) ${issue.keys.join(', ')}`
        : issue.message,
  }));
}
