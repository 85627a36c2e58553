import { UriTemplate } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Completer } from './completion.js';
import { ToolValidationError } from './errors.js';
import type { ContentContext } from './prompt.js';
import type { ZodObjectSchema } from './tool.js';

/** One item of a `resources/read` result. */
export type ResourceContent =
  | { uri: string; mimeType?: string; text: string }
  | { uri: string; mimeType?: string; blob: string };

/** A listed resource (`resources/list`). */
export interface ListedResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

interface ResourceCommon {
  /** `^[a-zA-Z0-9_-]{1,64}$`, unique within a server; prefixed like tool names when composed. */
  name: string;
  title?: string;
  /** What the resource holds, for the person attaching it. */
  description: string;
  /** The MIME type of what `read` returns, e.g. `text/markdown`. */
  mimeType: string;
  /** Overrides the registry's time budget. */
  timeoutMs?: number;
}

/** A resource at one fixed URI. */
export interface FixedResourceDefinition extends ResourceCommon {
  uri: string;
  /** Returns the text (sent with `mimeType`) or the contents. Failures are thrown as `McpToolError`s. */
  read: (
    uri: URL,
    context: ContentContext,
  ) => Promise<string | ResourceContent[]> | string | ResourceContent[];
}

/** Resources whose URIs follow an RFC 6570 template such as `forge://tickets/{ticketId}`. */
export interface ResourceTemplateDefinition<Variables extends ZodObjectSchema = ZodObjectSchema>
  extends ResourceCommon {
  uriTemplate: string;
  /**
   * A strict zod object with one described string field per template variable. Read requests
   * are checked against it, so a malformed id is an invalid-params error, not an upstream call.
   */
  variables: Variables;
  /** The concrete resources, for `resources/list`. A failure is logged and lists none. */
  list?: (context: ContentContext) => Promise<ListedResource[]> | ListedResource[];
  /** Suggestions for template variables, by variable name. */
  complete?: { [Key in keyof z.input<Variables>]?: Completer };
  read: (
    uri: URL,
    variables: z.output<Variables>,
    context: ContentContext,
  ) => Promise<string | ResourceContent[]> | string | ResourceContent[];
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds templates of every variable type
export type AnyResourceTemplateDefinition = ResourceTemplateDefinition<any>;
export type AnyResourceDefinition = FixedResourceDefinition | AnyResourceTemplateDefinition;

/** Declares a resource at a fixed URI. */
export function defineResource(definition: FixedResourceDefinition): FixedResourceDefinition {
  return definition;
}

/** Declares a resource template; it infers the reader's variable types from `variables`. */
export function defineResourceTemplate<Variables extends ZodObjectSchema>(
  definition: ResourceTemplateDefinition<Variables>,
): ResourceTemplateDefinition<Variables> {
  return definition;
}

export function isResourceTemplate(
  resource: AnyResourceDefinition,
): resource is AnyResourceTemplateDefinition {
  return 'uriTemplate' in resource;
}

/** Exactly what `resources/list` (fixed) or `resources/templates/list` (template) carries. */
export interface ResourceDescriptor {
  name: string;
  title?: string;
  description: string;
  mimeType: string;
  uri?: string;
  uriTemplate?: string;
}

const RESOURCE_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const MIME_TYPE_PATTERN = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*(;.*)?$/i;

/**
 * Validates a resource definition: name, description, MIME type, a parseable URI with a
 * scheme (or a URI template whose variables are exactly the described string fields of
 * `variables`), completers only for variables that exist.
 */
export function describeResource(resource: AnyResourceDefinition): ResourceDescriptor {
  const issues: { field: string; message: string }[] = [];
  const name = typeof resource.name === 'string' ? resource.name : '';
  if (!RESOURCE_NAME_PATTERN.test(name))
    issues.push({ field: 'name', message: 'must be 1-64 letters, digits, "_" or "-"' });
  if (resource.title !== undefined && (typeof resource.title !== 'string' || resource.title.trim() === '')) {
    issues.push({ field: 'title', message: 'must not be empty when present' });
  }
  if (typeof resource.description !== 'string' || resource.description.trim() === '') {
    issues.push({ field: 'description', message: 'is required and must not be empty' });
  }
  if (typeof resource.mimeType !== 'string' || !MIME_TYPE_PATTERN.test(resource.mimeType)) {
    issues.push({ field: 'mimeType', message: 'must be a MIME type such as "text/markdown"' });
  }
  if (typeof resource.read !== 'function') issues.push({ field: 'read', message: 'must be a function' });
  const descriptor: ResourceDescriptor = {
    name,
    description: resource.description,
    mimeType: resource.mimeType,
  };
  if (resource.title !== undefined) descriptor.title = resource.title;
  if (isResourceTemplate(resource)) {
    descriptor.uriTemplate = resource.uriTemplate;
    checkTemplate(resource, issues);
  } else {
    descriptor.uri = resource.uri;
    if (
      typeof resource.uri !== 'string' ||
      !URL.canParse(resource.uri) ||
      UriTemplate.isTemplate(resource.uri)
    ) {
      issues.push({
        field: 'uri',
        message: 'must be an absolute URI with a scheme (use uriTemplate for templates)',
      });
    }
  }
  if (issues.length > 0) throw new ToolValidationError(name || undefined, issues);
  return descriptor;
}

function checkTemplate(
  resource: AnyResourceTemplateDefinition,
  issues: { field: string; message: string }[],
): void {
  let variableNames: string[] = [];
  try {
    if (typeof resource.uriTemplate !== 'string' || !UriTemplate.isTemplate(resource.uriTemplate)) {
      throw new Error('has no {variable}');
    }
    variableNames = new UriTemplate(resource.uriTemplate).variableNames;
    if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(resource.uriTemplate))
      throw new Error('must start with a scheme such as "forge://"');
  } catch (error) {
    issues.push({
      field: 'uriTemplate',
      message: `is not a usable URI template: ${(error as Error).message}`,
    });
    return;
  }
  const schema = resource.variables as unknown;
  if (typeof schema !== 'object' || schema === null || !('_zod' in schema)) {
    issues.push({ field: 'variables', message: 'must be a zod object schema (z.strictObject)' });
    return;
  }
  const json = z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, { type?: unknown; description?: unknown }>;
    additionalProperties?: unknown;
  };
  const properties = json.properties ?? {};
  if (json.additionalProperties !== false)
    issues.push({ field: 'variables', message: 'must be strict (z.strictObject)' });
  const keys = Object.keys(properties);
  if ([...keys].sort().join(',') !== [...variableNames].sort().join(',')) {
    issues.push({
      field: 'variables',
      message: `must have exactly the template's variables (${variableNames.join(', ')}), has ${keys.join(', ') || 'none'}`,
    });
  }
  for (const [key, property] of Object.entries(properties)) {
    if (property.type !== 'string') issues.push({ field: `variables.${key}`, message: 'must be a string' });
    if (typeof property.description !== 'string' || property.description.trim() === '') {
      issues.push({ field: `variables.${key}`, message: 'has no .describe()' });
    }
  }
  for (const key of Object.keys(resource.complete ?? {})) {
    if (!variableNames.includes(key)) {
      issues.push({ field: `complete.${key}`, message: 'completes a variable the template does not have' });
    }
  }
}

/**
 * The part of a URI (or template) that names its owner: the scheme and host, e.g.
 * `forge://tickets`. Two providers in one server may not share one.
 */
export function resourceAuthority(uriOrTemplate: string): string {
  const match = /^([a-z][a-z0-9+.-]*:)(\/\/[^/?#{]*)?/i.exec(uriOrTemplate);
  return match ? `${match[1]?.toLowerCase()}${match[2] ?? ''}` : uriOrTemplate;
}
