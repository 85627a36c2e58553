import { McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Completer } from './completion.js';
import type { ContentCatalog } from './content.js';
import { ERROR_CODES } from './errors.js';
import type { CallContext } from './execute.js';
import {
  type OperationKind,
  observed,
  startOperation,
  type ToolCallOutcome,
} from './observability/events.js';
import type { PromptDescriptor } from './prompt.js';
import type { ResourceDescriptor } from './resource.js';

/** Both SDKs recognise a completable argument schema by this symbol. */
const COMPLETABLE = Symbol.for('mcp.completable');

type RegisterPrompt = (
  name: string,
  config: Record<string, unknown>,
  callback: (...args: unknown[]) => unknown,
) => unknown;
type RegisterResource = (
  name: string,
  uriOrTemplate: string | ResourceTemplate,
  config: Record<string, unknown>,
  callback: (...args: unknown[]) => unknown,
) => unknown;

interface ServerWithContent {
  registerPrompt?: unknown;
  registerResource?: unknown;
}

/**
 * Registers the catalog's prompts and resources through the server's own `registerPrompt` /
 * `registerResource`, so the SDK (v2 or v1) lists them, advertises the `prompts`,
 * `resources` and `completions` capabilities only when something is registered, and answers
 * an unknown name or URI with its invalid-params error. Everything else runs on our path.
 */
export function mountContent(
  server: ServerWithContent,
  catalog: ContentCatalog,
  toContext: (extra: unknown) => CallContext,
  /** Identifies `toContext` (the transport), so built templates can be reused per server. */
  contextKey: string,
  /** Which prompts and resources (by name) to serve, when not all (a narrowed view). */
  only?: { prompt(name: string): boolean; resource(name: string): boolean },
): void {
  const prompts = only
    ? catalog.listPrompts().filter((prompt) => only.prompt(prompt.name))
    : catalog.listPrompts();
  const resources = only
    ? catalog.listResourceDescriptors().filter((resource) => only.resource(resource.name))
    : catalog.listResourceDescriptors();
  if (prompts.length > 0) {
    if (typeof server.registerPrompt !== 'function') {
      throw new TypeError('This server cannot serve prompts (it has no registerPrompt).');
    }
    const register = (server.registerPrompt as RegisterPrompt).bind(server);
    // Our own servers get a schema that hands the raw arguments on, so unknown ones are
    // rejected by our strict schema; any other server gets a plain shape both SDKs accept.
    const strict = server instanceof McpServer;
    for (const prompt of prompts) {
      const argsSchema = cachedPromptArguments(prompt, catalog, strict);
      register(
        prompt.name,
        {
          ...(prompt.title === undefined ? {} : { title: prompt.title }),
          description: prompt.description,
          ...(argsSchema === undefined ? {} : { argsSchema }),
        },
        (...callbackArgs: unknown[]) => {
          // With an argument schema the SDK calls (args, extra); without, (extra).
          const [args, extra] = argsSchema === undefined ? [{}, callbackArgs[0]] : callbackArgs;
          const context = toContext(extra);
          const run = () => catalog.getPrompt(prompt.name, args, context);
          return observed() ? observedRead('prompt', prompt.name, args, context, run) : run();
        },
      );
    }
  }
  if (resources.length > 0) {
    if (typeof server.registerResource !== 'function') {
      throw new TypeError('This server cannot serve resources (it has no registerResource).');
    }
    const register = (server.registerResource as RegisterResource).bind(server);
    for (const resource of resources) {
      const metadata: Record<string, unknown> = {
        description: resource.description,
        mimeType: resource.mimeType,
      };
      if (resource.title !== undefined) metadata.title = resource.title;
      if (resource.uri !== undefined) {
        register(resource.name, resource.uri, metadata, (uri, extra) => {
          const context = toContext(extra);
          const run = () => catalog.readMatched(resource.name, uri as URL, {}, context);
          return observed() ? observedRead('resource', resource.name, {}, context, run) : run();
        });
        continue;
      }
      const built = templates.get(resource) ?? new Map<string, ResourceTemplate>();
      templates.set(resource, built);
      let template = built.get(contextKey);
      if (!template) {
        template = new ResourceTemplate(resource.uriTemplate ?? '', {
          list: async (extra) => ({ resources: await catalog.listOne(resource.name, toContext(extra)) }),
          complete: templateCompleters(resource.uriTemplate ?? '', resource.name, catalog),
        });
        built.set(contextKey, template);
      }
      register(resource.name, template, metadata, (uri, variables, extra) => {
        const context = toContext(extra);
        const run = () =>
          catalog.readMatched(
            resource.name,
            uri as URL,
            variables as Record<string, string | string[]>,
            context,
          );
        return observed() ? observedRead('resource', resource.name, variables, context, run) : run();
      });
    }
  }
}

const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/** A prompt or resource read announced to the `operation` observers (the audit log) with its outcome. */
async function observedRead<T>(
  kind: OperationKind,
  name: string,
  args: unknown,
  context: CallContext,
  run: () => Promise<T>,
): Promise<T> {
  const scope = startOperation({
    kind,
    name,
    request: context.request ?? { transport: 'unknown' },
    arguments: args,
  });
  let outcome: ToolCallOutcome = 'INTERNAL_ERROR';
  try {
    const result = await scope.run(run);
    outcome = 'ok';
    return result;
  } catch (error) {
    // Failures travel as `McpRequestError`s whose data names our error code.
    const code = (error as { data?: { error_code?: unknown } } | null)?.data?.error_code;
    outcome = typeof code === 'string' && KNOWN_CODES.has(code) ? (code as ToolCallOutcome) : 'error';
    throw error;
  } finally {
    scope.end({ outcome });
  }
}

type PromptArguments = z.ZodType | Record<string, z.ZodType> | undefined;

/*
 * Stateless HTTP builds a server per request: the argument schemas and templates of a
 * descriptor (which belongs to one catalog) are built once and reused.
 */
const promptSchemas = new WeakMap<PromptDescriptor, { strict?: PromptArguments; plain?: PromptArguments }>();
const templates = new WeakMap<ResourceDescriptor, Map<string, ResourceTemplate>>();

function cachedPromptArguments(
  prompt: PromptDescriptor,
  catalog: ContentCatalog,
  strict: boolean,
): PromptArguments {
  const cached = promptSchemas.get(prompt) ?? {};
  promptSchemas.set(prompt, cached);
  const key = strict ? 'strict' : 'plain';
  if (!(key in cached)) cached[key] = promptArguments(prompt, catalog, strict);
  return cached[key];
}

function promptArguments(
  prompt: PromptDescriptor,
  catalog: ContentCatalog,
  strict: boolean,
): z.ZodType | Record<string, z.ZodType> | undefined {
  // Without arguments a plain server gets no schema at all (the SDKs then call back with the
  // context only); our own servers still get one, so unknown arguments reach our check.
  if (prompt.arguments.length === 0 && !strict) return undefined;
  const shape: Record<string, z.ZodType> = {};
  for (const argument of prompt.arguments) {
    const inner = z.string().describe(argument.description);
    const field = argument.required ? inner : inner.optional().describe(argument.description);
    const completer = catalog.promptCompleter(prompt.name, argument.name);
    if (completer) {
      const complete = (value: string, context?: { arguments?: Record<string, string> }) =>
        catalog.complete(completer, value, context?.arguments);
      // v2 unwraps an optional field before looking; v1 looks at the field itself.
      markCompletable(inner, complete);
      if (field !== inner) markCompletable(field, complete);
    }
    shape[argument.name] = field;
  }
  if (!strict) return shape;
  const schema = z.looseObject(shape);
  // SDK v2 validates through Standard Schema: hand the arguments on untouched, since our
  // path validates them strictly (and says which argument is wrong, in our words).
  const standard = schema['~standard'];
  Object.defineProperty(schema, '~standard', {
    value: { ...standard, validate: (value: unknown) => ({ value }) },
    configurable: true,
  });
  return schema;
}

function markCompletable(
  schema: z.ZodType,
  complete: (value: string, context?: { arguments?: Record<string, string> }) => Promise<string[]>,
): void {
  Object.defineProperty(schema, COMPLETABLE, { value: { complete }, enumerable: false });
}

function templateCompleters(
  uriTemplate: string,
  name: string,
  catalog: ContentCatalog,
): Record<string, (value: string, context?: { arguments?: Record<string, string> }) => Promise<string[]>> {
  const completers: Record<
    string,
    (value: string, context?: { arguments?: Record<string, string> }) => Promise<string[]>
  > = {};
  for (const variable of new Set(
    [...uriTemplate.matchAll(/\{[+#./;?&]?([^}]+)\}/g)].flatMap((match) => (match[1] ?? '').split(',')),
  )) {
    const completer: Completer | undefined = catalog.templateCompleter(name, variable);
    if (completer)
      completers[variable] = (value, context) => catalog.complete(completer, value, context?.arguments);
  }
  return completers;
}
