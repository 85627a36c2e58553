import { type ToolCallResult, toolSuccess } from '@x/mcp-core';

/** A success whose text block is written for a model (Markdown, a verdict); `data` is the structuredContent. */
export const textWithData = (text: string, data: Record<string, unknown>): ToolCallResult =>
  toolSuccess(data, { text });
