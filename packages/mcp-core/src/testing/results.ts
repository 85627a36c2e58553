import type { ToolErrorBody } from '../errors.js';

interface ResultLike {
  isError?: boolean;
  content?: unknown;
  structuredContent?: unknown;
}

/** The first text block of a result. */
export function resultText(result: ResultLike): string {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const first = blocks.find((block): block is { type: 'text'; text: string } => block?.type === 'text');
  if (!first) throw new Error(`Result has no text block: ${JSON.stringify(result)}`);
  return first.text;
}

/** The parsed error body of an `isError` result; throws if the result is not an error in our vocabulary. */
export function errorBody(result: ResultLike): ToolErrorBody {
  if (result.isError !== true) throw new Error(`Expected an error result, got: ${JSON.stringify(result)}`);
  const body = JSON.parse(resultText(result)) as ToolErrorBody;
  if (
    typeof body.error_code !== 'string' ||
    typeof body.message !== 'string' ||
    typeof body.retryable !== 'boolean'
  ) {
    throw new Error(`Error result is not in the shared vocabulary: ${resultText(result)}`);
  }
  return body;
}

/** The parsed JSON data of a success result. */
export function resultData<T = unknown>(result: ResultLike): T {
  if (result.isError) throw new Error(`Expected success, got error: ${resultText(result)}`);
  return JSON.parse(resultText(result)) as T;
}
