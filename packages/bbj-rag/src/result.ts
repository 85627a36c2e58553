import { type ToolCallResult, toolSuccess } from '@x/mcp-core';

/**
 * A success whose text block is written for a model (Markdown, a verdict) while
 * `structuredContent` carries the same answer as data. `toolSuccess` alone would send the
 * data's JSON as the text, so the readable text is built here and the data added to it.
 */
export function textWithData(text: string, data: Record<string, unknown>): ToolCallResult {
  const result = toolSuccess(text);
  result.structuredContent = data;
  return result;
}
