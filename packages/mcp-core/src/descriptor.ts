import { z } from 'zod';
import { ToolValidationError } from './errors.js';
import { dropNoise, openPlainObjects, shareRepeatedShapes } from './lean-schema.js';
import type { AnyToolDefinition, ToolAnnotations } from './tool.js';

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

const JsonSchemaObject = z.looseObject({
  type: z.literal('object', { error: 'must be "object"' }),
  properties: z.record(z.string(), z.unknown(), { error: 'must be an object of property schemas' }),
});

/** The published descriptor of a tool: exactly what `tools/list` carries for it. */
export const ToolDefinitionSchema = z
  .strictObject({
    name: z
      .string({ error: 'must be a string' })
      .min(1, 'must not be empty')
      .max(64, 'must be at most 64 characters')
      .regex(TOOL_NAME_PATTERN, 'may only contain letters, digits, "_" and "-"'),
    title: z.string().min(1, 'must not be empty when present').optional(),
    description: z
      .string({ error: 'is required' })
      .refine((text) => text.trim().length > 0, 'must not be empty'),
    inputSchema: JsonSchemaObject.extend({
      additionalProperties: z.literal(false, {
        error: 'must be false (use z.strictObject so unknown argument keys are rejected)',
      }),
    }),
    outputSchema: JsonSchemaObject.optional(),
    annotations: z.strictObject({
      readOnlyHint: z.boolean({ error: 'must be set explicitly' }),
      destructiveHint: z.boolean({ error: 'must be set explicitly' }),
      idempotentHint: z.boolean({ error: 'must be set explicitly' }),
      openWorldHint: z.boolean({ error: 'must be set explicitly' }),
    }),
  })
  .superRefine((tool, ctx) => {
    if (tool.annotations.readOnlyHint && tool.annotations.destructiveHint) {
      ctx.addIssue({
        code: 'custom',
        path: ['annotations', 'destructiveHint'],
        message: 'must be false when readOnlyHint is true (a read-only tool cannot be destructive)',
      });
    }
  });

export interface ToolDescriptor {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; [key: string]: unknown };
  outputSchema?: { type: 'object'; properties: Record<string, unknown>; [key: string]: unknown };
  annotations: ToolAnnotations;
}

/** Validates a raw descriptor; throws `ToolValidationError` naming every bad field. */
export function validateToolDefinition(raw: unknown): ToolDescriptor {
  const parsed = ToolDefinitionSchema.safeParse(raw);
  if (parsed.success) return parsed.data as ToolDescriptor;
  const name =
    typeof raw === 'object' && raw !== null && typeof (raw as { name?: unknown }).name === 'string'
      ? (raw as { name: string }).name
      : undefined;
  throw new ToolValidationError(name || undefined, parsed.error);
}

/** Builds and validates the descriptor of a tool definition. */
export function describeTool(tool: AnyToolDefinition): ToolDescriptor {
  const raw: Record<string, unknown> = {
    name: tool.name,
    description: tool.description,
    inputSchema: toJsonSchema(tool.inputSchema, 'input', tool.name, 'inputSchema'),
    annotations: tool.annotations,
  };
  if (tool.title !== undefined) raw.title = tool.title;
  if (tool.outputSchema !== undefined) {
    raw.outputSchema = toJsonSchema(tool.outputSchema, 'output', tool.name, 'outputSchema');
  }
  return validateToolDefinition(raw);
}

/**
 * The JSON Schema of a zod schema object, per direction: converted once and shared (frozen) by
 * every descriptor built on that object, e.g. the per-user registries of a hosted server whose
 * provider instances share their tools' schemas.
 */
const jsonSchemas = new WeakMap<object, { input?: unknown; output?: unknown }>();

function toJsonSchema(schema: unknown, io: 'input' | 'output', toolName: string, field: string): unknown {
  // Duck-typed so schemas from another zod v4 copy are accepted too.
  if (typeof schema !== 'object' || schema === null || !('_zod' in schema)) {
    throw new ToolValidationError(toolName, [{ field, message: 'must be a zod object schema' }]);
  }
  const converted = jsonSchemas.get(schema);
  if (converted?.[io] !== undefined) return converted[io];
  try {
    const json = deepFreeze(lean(schema as z.ZodType, io));
    jsonSchemas.set(schema, { ...converted, [io]: json });
    return json;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolValidationError(
      toolName,
      [{ field, message: `cannot be expressed as JSON Schema: ${reason}` }],
      {
        cause: error,
      },
    );
  }
}

/**
 * The JSON Schema of a tool's zod schema as published: portable spellings, nothing that says
 * nothing, and in an output schema each repeated shape once (docs/decisions/0025-lean-tool-schemas.md).
 * Input schemas keep every shape inline: they are what the model reads, and not every client
 * that turns them into function declarations follows `$ref`.
 */
function lean(schema: z.ZodType, io: 'input' | 'output'): unknown {
  const json = dropNoise(
    portable(
      z.toJSONSchema(schema, {
        io,
        target: 'draft-2020-12',
        unrepresentable: 'throw',
        ...(io === 'output' ? { override: openPlainObjects } : {}),
      }),
    ) as Record<string, unknown>,
  );
  return io === 'output' ? shareRepeatedShapes(json) : json;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Keywords that describe a value rather than constrain it: they stay beside `anyOf`. */
const ANNOTATION_KEYWORDS = new Set([
  'description',
  'title',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
]);

/**
 * Rewrites two spellings that clients mapping schemas onto a single-`type` dialect reject or
 * misread (docs/decisions/0004-nullable-output-fields.md), without changing what is valid:
 * `type: ["string", "null"]` (zod's spelling of a nullable primitive) becomes
 * `anyOf: [{ type: "string", ... }, { type: "null" }]`, and `additionalProperties: {}` (a loose
 * object) becomes `additionalProperties: true`.
 */
export function portable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(portable);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = portable(value);
  const extra = out.additionalProperties;
  if (typeof extra === 'object' && extra !== null && Object.keys(extra).length === 0) {
    out.additionalProperties = true;
  }
  if (!Array.isArray(out.type) || out.type.length < 2) return out;
  const annotations: Record<string, unknown> = {};
  const constraints: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(out)) {
    if (key === 'type') continue;
    if (ANNOTATION_KEYWORDS.has(key)) annotations[key] = value;
    else constraints[key] = value;
  }
  return {
    ...annotations,
    anyOf: (out.type as unknown[]).map((type) => (type === 'null' ? { type } : { type, ...constraints })),
  };
}
