import type { ErrorCode, ErrorDetails, ToolErrorBody } from './errors.js';

/** A text block, the only content kind our tools emit. */
export interface TextContent {
  type: 'text';
  text: string;
}

/** The `tools/call` result shape our tools produce. */
export interface ToolCallResult {
  content: TextContent[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

const RESULT_BRAND = Symbol.for('@x/mcp-core.ToolCallResult');

/**
 * Marks a result built here, so a handler can return one as is instead of data. A symbol
 * key never reaches JSON, and plain assignment keeps the object's shape fast.
 */
function mark(result: ToolCallResult): ToolCallResult {
  (result as unknown as Record<symbol, unknown>)[RESULT_BRAND] = true;
  return result;
}

export function isToolCallResult(value: unknown): value is ToolCallResult {
  return (
    typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[RESULT_BRAND] === true
  );
}

/** An error result in the shared vocabulary. */
export function toolError(
  code: ErrorCode,
  message: string,
  retryable: boolean,
  details: ErrorDetails = {},
): ToolCallResult {
  const body: ToolErrorBody = { error_code: code, message, retryable, ...details };
  return mark({ isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] });
}

export interface ToolSuccessOptions {
  /**
   * The text block, when the model is better served by something other than the JSON, e.g.
   * Markdown; `structuredContent` still carries the data. Default: the data as JSON.
   */
  text?: string;
}

/**
 * A success result. Objects are returned as `structuredContent` plus a text block (the same
 * JSON unless `options.text` is given; clients without structured output read the text);
 * strings are returned as text.
 */
export function toolSuccess(data: unknown, options: ToolSuccessOptions = {}): ToolCallResult {
  if (typeof data === 'string') return mark({ content: [{ type: 'text', text: data }] });
  const text = options.text ?? JSON.stringify(data ?? null);
  if (isPlainObject(data)) return mark({ content: [{ type: 'text', text }], structuredContent: data });
  return mark({ content: [{ type: 'text', text }] });
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
