import { z } from 'zod';
import { type AnyToolDefinition, defineTool } from './tool.js';
import { toolRef } from './tool-ref.js';

/** One toolset as `list_toolsets` reports it. */
export interface ToolsetStatus {
  name: string;
  description: string;
  /** Served names of the tools the toolset brings to this server (write tools are absent when read-only). */
  tools: string[];
  tool_count: number;
  served_count: number;
  enabled: boolean;
}

export interface EnabledToolset {
  toolset: string;
  /** Served names of the tools this call added. */
  added: string[];
  already_enabled: boolean;
}

/** What the two tools need from the registry that serves the provider. */
export interface ToolsetControl {
  list(): ToolsetStatus[];
  /** Throws `InvalidInputError` naming the toolsets when `name` is not one. */
  enable(name: string): EnabledToolset;
}

export const LIST_TOOLSETS = 'list_toolsets';
export const ENABLE_TOOLSET = 'enable_toolset';

const ToolsetStatusSchema = z.object({
  name: z.string(),
  description: z.string(),
  tools: z.array(z.string()).describe('The tools it serves here'),
  tool_count: z.number().int(),
  served_count: z.number().int().describe('How many of them are served now'),
  enabled: z.boolean().describe('Every tool of the toolset is served'),
});

/** `list_toolsets` and `enable_toolset` for one provider, by its own (unprefixed) names. */
export function toolsetTools(
  providerId: string,
  toolsetNames: readonly string[],
  control: ToolsetControl,
): AnyToolDefinition[] {
  return [
    defineTool({
      name: LIST_TOOLSETS,
      title: `List the ${providerId} toolsets`,
      description: `Lists the ${providerId} toolsets with their tools and whether each is enabled. When a task needs a tool that is not in your tool list, enable its toolset with ${toolRef(ENABLE_TOOLSET)}.`,
      inputSchema: z.strictObject({}),
      outputSchema: z.object({ toolsets: z.array(ToolsetStatusSchema) }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      handler: () => ({ toolsets: control.list() }),
    }),
    defineTool({
      name: ENABLE_TOOLSET,
      title: `Enable a ${providerId} toolset`,
      description: `Adds the tools of one ${providerId} toolset to your tool list; they can be called at once. Enabling it again changes nothing. What each toolset has: ${toolRef(LIST_TOOLSETS)}.`,
      inputSchema: z.strictObject({
        toolset: z
          .string()
          .min(1)
          .max(64)
          .describe(`One of: ${toolsetNames.join(', ')}`),
      }),
      outputSchema: z.object({
        toolset: z.string(),
        added: z.array(z.string()).describe('The tools this call added'),
        already_enabled: z.boolean(),
      }),
      // It changes what this server offers, never anything upstream.
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      handler: ({ toolset }) => control.enable(toolset),
    }),
  ];
}
