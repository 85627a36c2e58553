// The one-tool provider served by the `ours` fixture bin.
import { defineTool, type ToolProvider } from '@x/mcp-core';
import { z } from 'zod';

const echo = defineTool({
  name: 'echo',
  description: 'Returns the given text unchanged. Used only to measure serving overhead.',
  inputSchema: z.strictObject({
    text: z.string().describe('The text to send back.'),
  }),
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  handler: async ({ text }) => text,
});

export function createEchoProvider(): ToolProvider {
  return { id: 'echo', version: '0.0.0', tools: [echo] };
}
