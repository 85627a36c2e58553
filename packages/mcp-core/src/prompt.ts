import { z } from 'zod';
import type { Completer } from './completion.js';
import { ToolValidationError } from './errors.js';
import type { Logger } from './logger.js';
import type { RequestInfo, ZodObjectSchema } from './tool.js';

/** What a prompt handler and a resource reader get: no progress, since both answer at once. */
export interface ContentContext {
  /** Aborted when the client cancels or the time budget runs out; pass it to `fetch`. */
  signal: AbortSignal;
  /** Writes to stderr, never to the client. */
  log: Logger;
  request: RequestInfo;
  /**
   * The name one of this provider's tools is served under (its prefix added). Prompt texts
   * that tell the model which tool to call use it, so they stay right in a composed server.
   */
  toolName(ownName: string): string;
}

/** One message of a prompt: text, or a resource embedded with its text. */
export type PromptMessage =
  | { role: 'user' | 'assistant'; content: { type: 'text'; text: string } }
  | {
      role: 'user' | 'assistant';
      content: { type: 'resource'; resource: { uri: string; mimeType?: string; text: string } };
    };

/** The `prompts/get` result shape. */
export interface PromptResult {
  description?: string;
  messages: PromptMessage[];
}

export interface PromptDefinition<Args extends ZodObjectSchema = ZodObjectSchema> {
  /** `^[a-zA-Z0-9_-]{1,64}$`, unique within a server; clients show it as a slash command. */
  name: string;
  title?: string;
  /** Written for the person choosing it: what the prompt sets the model up to do. */
  description: string;
  /**
   * A strict zod object (`z.strictObject`) of string fields (prompt arguments are strings on
   * the wire), each with `.describe()`; optional fields become optional arguments.
   */
  argsSchema: Args;
  /** Suggestions for arguments, by argument name (`completion/complete`). */
  complete?: { [Key in keyof z.input<Args>]?: Completer };
  /**
   * The provider's own tools the prompt's workflow tells the model to call. When a filter
   * (`include`, `exclude`, `readOnly`) removes one of them, the prompt is not served either.
   */
  tools?: readonly string[];
  /** Overrides the registry's time budget. */
  timeoutMs?: number;
  /** Returns the text of one user message, or messages. Failures are thrown as `McpToolError`s. */
  handler: (
    args: z.output<Args>,
    context: ContentContext,
  ) => Promise<string | PromptResult> | string | PromptResult;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds prompts of every argument type
export type AnyPromptDefinition = PromptDefinition<any>;

/** Declares a prompt; its only job is to infer the handler's argument type from `argsSchema`. */
export function definePrompt<Args extends ZodObjectSchema>(
  definition: PromptDefinition<Args>,
): PromptDefinition<Args> {
  return definition;
}

export interface PromptArgumentDescriptor {
  name: string;
  description: string;
  required: boolean;
}

/** Exactly what `prompts/list` carries for a prompt. */
export interface PromptDescriptor {
  name: string;
  title?: string;
  description: string;
  arguments: PromptArgumentDescriptor[];
}

export const PROMPT_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Builds and validates the descriptor of a prompt: a valid name, a description, a strict
 * object of described string arguments, completers only for arguments that exist. Throws
 * `ToolValidationError` naming every bad field.
 */
export function describePrompt(prompt: AnyPromptDefinition): PromptDescriptor {
  const issues: { field: string; message: string }[] = [];
  const name = typeof prompt.name === 'string' ? prompt.name : '';
  if (!PROMPT_NAME_PATTERN.test(name)) {
    issues.push({ field: 'name', message: 'must be 1-64 letters, digits, "_" or "-"' });
  }
  if (prompt.title !== undefined && (typeof prompt.title !== 'string' || prompt.title.trim() === '')) {
    issues.push({ field: 'title', message: 'must not be empty when present' });
  }
  if (typeof prompt.description !== 'string' || prompt.description.trim() === '') {
    issues.push({ field: 'description', message: 'is required and must not be empty' });
  }
  const argumentsList = promptArguments(prompt.argsSchema, issues);
  const names = new Set(argumentsList.map((argument) => argument.name));
  for (const key of Object.keys(prompt.complete ?? {})) {
    if (!names.has(key))
      issues.push({ field: `complete.${key}`, message: 'completes an argument that does not exist' });
  }
  if (typeof prompt.handler !== 'function') issues.push({ field: 'handler', message: 'must be a function' });
  if (issues.length > 0) throw new ToolValidationError(name || undefined, issues);
  const descriptor: PromptDescriptor = { name, description: prompt.description, arguments: argumentsList };
  if (prompt.title !== undefined) descriptor.title = prompt.title;
  return descriptor;
}

interface JsonProperty {
  type?: unknown;
  enum?: unknown[];
  description?: unknown;
}

function promptArguments(
  schema: unknown,
  issues: { field: string; message: string }[],
): PromptArgumentDescriptor[] {
  if (typeof schema !== 'object' || schema === null || !('_zod' in schema)) {
    issues.push({ field: 'argsSchema', message: 'must be a zod object schema (z.strictObject)' });
    return [];
  }
  let json: {
    type?: unknown;
    properties?: Record<string, JsonProperty>;
    required?: string[];
    additionalProperties?: unknown;
  };
  try {
    json = z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'throw' }) as typeof json;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    issues.push({ field: 'argsSchema', message: `cannot be expressed as JSON Schema: ${reason}` });
    return [];
  }
  if (json.type !== 'object' || typeof json.properties !== 'object') {
    issues.push({ field: 'argsSchema', message: 'must be an object schema' });
    return [];
  }
  if (json.additionalProperties !== false) {
    issues.push({
      field: 'argsSchema',
      message: 'must reject unknown arguments (use z.strictObject)',
    });
  }
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties).map(([key, property]) => {
    const isString =
      property.type === 'string' ||
      (Array.isArray(property.enum) && property.enum.every((value) => typeof value === 'string'));
    if (!isString) {
      issues.push({ field: `argsSchema.${key}`, message: 'must be a string (prompt arguments are strings)' });
    }
    const description = typeof property.description === 'string' ? property.description.trim() : '';
    if (description === '') issues.push({ field: `argsSchema.${key}`, message: 'has no .describe()' });
    return { name: key, description, required: required.has(key) };
  });
}
