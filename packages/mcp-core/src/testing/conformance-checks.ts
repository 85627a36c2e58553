import { isDeepStrictEqual } from 'node:util';
import { describeTool, type ToolDescriptor } from '../descriptor.js';
import { ERROR_CODES } from '../errors.js';
import type { Logger } from '../logger.js';
import { ToolRegistry } from '../registry.js';
import type { AnyToolDefinition, ToolProvider } from '../tool.js';
import { toolRefsIn } from '../tool-ref.js';
import type { ProviderCheck, ServedCheck, ServedProvider } from './checks.js';
import { connectInMemory } from './clients.js';
import { CONTENT_CHECKS } from './content-checks.js';
import { fuzzCases } from './fuzz.js';
import { errorBody } from './results.js';

export interface ConformanceOptions {
  /** Skip the fuzz battery for these tools, prompts or resources (say why in the calling test). */
  skipFuzz?: readonly string[];
  /** The registry's logger (where unhandled handler failures are logged); default: stderr. */
  logger?: Logger;
}

/** Names that say a tool writes: such a tool must not claim `readOnlyHint: true`. */
const WRITE_VERB =
  /^(create|add|update|edit|set|delete|remove|trash|archive|move|complete|reopen|post|submit|report|start|send|upload|write|rename)_/;

function descriptorOf(tool: AnyToolDefinition): ToolDescriptor | undefined {
  try {
    return describeTool(tool);
  } catch {
    return undefined;
  }
}

/** Rules about the provider's own definitions, checked before anything is registered. */
export const PROVIDER_CHECKS: readonly ProviderCheck[] = [
  {
    title: 'has an id, a version and at least one tool',
    run: (provider) => [
      ...(/^[a-z][a-z0-9-]*$/.test(provider.id) ? [] : [`id "${provider.id}" is not lower-case kebab-case`]),
      ...(/^\d+\.\d+\.\d+/.test(provider.version) ? [] : [`version "${provider.version}" is not semver`]),
      ...(provider.tools.length > 0 ? [] : ['has no tools']),
    ],
  },
  {
    title: 'has unique tool names',
    run: (provider) => {
      const seen = new Set<string>();
      const duplicates = new Set<string>();
      for (const tool of provider.tools) (seen.has(tool.name) ? duplicates : seen).add(tool.name);
      return [...duplicates].map((name) => `tool name ${name} is used more than once`);
    },
  },
  {
    title: 'has valid descriptors: strict input schemas, explicit annotations',
    run: (provider) =>
      provider.tools.flatMap((tool) => {
        try {
          describeTool(tool);
          return [];
        } catch (error) {
          return [`${tool.name}: invalid descriptor: ${(error as Error).message}`];
        }
      }),
  },
  {
    title: 'describes every tool for a model',
    run: (provider) =>
      provider.tools.flatMap((tool) => {
        const text = typeof tool.description === 'string' ? tool.description.trim() : '';
        if (text.length < 20) return [`${tool.name}: description shorter than 20 characters`];
        if (text === tool.name) return [`${tool.name}: description repeats the name`];
        return [];
      }),
  },
  {
    title: 'describes every input field',
    run: (provider) =>
      provider.tools.flatMap((tool) => {
        const properties = descriptorOf(tool)?.inputSchema.properties ?? {};
        return Object.entries(properties)
          .filter(([, property]) => {
            const description = (property as { description?: unknown }).description;
            return !(typeof description === 'string' && description.trim().length > 0);
          })
          .map(([key]) => `${tool.name}.${key} has no description`);
      }),
  },
  {
    title: 'does not mark a tool that writes as read-only',
    run: (provider) =>
      provider.tools
        .filter((tool) => WRITE_VERB.test(tool.name) && tool.annotations?.readOnlyHint === true)
        .map((tool) => `${tool.name}: its name says it writes, but readOnlyHint is true`),
  },
  {
    title: 'refers with toolRef only to its own tools (of any toolset, served or not)',
    run: (provider) => {
      const names = new Set([
        ...provider.tools.map((tool) => tool.name),
        ...(provider.toolsets ?? []).flatMap((toolset) => toolset.tools),
        ...(provider.loadToolset ? ['list_toolsets', 'enable_toolset'] : []),
      ]);
      const texts = [
        provider.instructions ?? '',
        ...provider.tools.map((tool) => JSON.stringify(descriptorOf(tool) ?? tool.description ?? '')),
      ];
      const unknown = new Set(texts.flatMap((text) => toolRefsIn(text)).filter((name) => !names.has(name)));
      return [...unknown].map((name) => `toolRef names ${name}, which this provider does not have`);
    },
  },
  {
    title: 'declares toolsets that hold every tool it serves, and loads each as declared',
    run: (provider) => {
      const toolsets = provider.toolsets ?? [];
      if (toolsets.length === 0)
        return provider.loadToolset ? ['has loadToolset but declares no toolsets'] : [];
      const problems: string[] = [];
      const names = toolsets.map((toolset) => toolset.name);
      if (new Set(names).size !== names.length) problems.push('toolset names are not unique');
      for (const toolset of toolsets) {
        if (!/^[a-z][a-z0-9_-]*$/.test(toolset.name))
          problems.push(`toolset name "${toolset.name}" is not valid`);
        if (toolset.description.trim().length === 0)
          problems.push(`toolset ${toolset.name} has no description`);
        if (toolset.tools.length === 0) problems.push(`toolset ${toolset.name} has no tools`);
      }
      const declared = new Set(toolsets.flatMap((toolset) => toolset.tools));
      for (const tool of provider.tools) {
        if (!declared.has(tool.name)) problems.push(`${tool.name} is served but in no toolset`);
      }
      if (!provider.loadToolset) return problems;
      for (const toolset of toolsets) {
        const loaded = provider.loadToolset(toolset.name);
        const loadedNames = loaded.map((tool) => tool.name).sort();
        if (!isDeepStrictEqual(loadedNames, [...toolset.tools].sort())) {
          problems.push(`loadToolset("${toolset.name}") does not return its declared tools`);
        }
        for (const tool of loaded) {
          if (!descriptorOf(tool))
            problems.push(`loadToolset("${toolset.name}"): ${tool.name} has an invalid descriptor`);
        }
      }
      return problems;
    },
  },
];

/** Rules about what the provider serves over MCP. */
export const SERVED_CHECKS: readonly ServedCheck[] = [
  {
    title: 'publishes portable schemas: no type arrays, no empty additionalProperties',
    run: async ({ connection }) => {
      const found: string[] = [];
      const visit = (node: unknown, path: string): void => {
        if (typeof node !== 'object' || node === null) return;
        const schema = node as Record<string, unknown>;
        if (Array.isArray(schema.type)) found.push(`${path}: type ${JSON.stringify(schema.type)}`);
        const extra = schema.additionalProperties;
        if (typeof extra === 'object' && extra !== null && Object.keys(extra).length === 0) {
          found.push(`${path}.additionalProperties: {}`);
        }
        for (const [key, value] of Object.entries(schema)) visit(value, `${path}.${key}`);
      };
      for (const tool of (await connection.client.listTools()).tools) visit(tool, tool.name);
      return found;
    },
  },
  {
    title: 'lists exactly its descriptors over MCP',
    run: async ({ registry, connection }) => {
      const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
      const listed = (await connection.client.listTools()).tools;
      return isDeepStrictEqual(plain(listed), plain(registry.toMcpTools()))
        ? []
        : ['tools/list differs from the registry descriptors'];
    },
  },
  {
    title: 'answers every fuzz case with a typed result, never a crash or a protocol error',
    timeoutMs: 120_000,
    run: async ({ registry, connection, skipFuzz }) => {
      const failures: string[] = [];
      for (const descriptor of registry.toMcpTools()) {
        if (skipFuzz.includes(descriptor.name)) continue;
        for (const fuzz of fuzzCases(descriptor)) {
          const where = `${descriptor.name} with ${fuzz.label}`;
          let result: Awaited<ReturnType<typeof connection.client.callTool>>;
          try {
            result = await connection.client.callTool({ name: descriptor.name, arguments: fuzz.args });
          } catch (error) {
            failures.push(`${where}: protocol error ${(error as Error).message}`);
            continue;
          }
          if (!result.isError) {
            if (fuzz.expect === 'invalid') failures.push(`${where}: accepted, expected INVALID_INPUT`);
            continue;
          }
          let code: string;
          try {
            code = errorBody(result).error_code;
          } catch (error) {
            failures.push(`${where}: ${(error as Error).message}`);
            continue;
          }
          if (!(ERROR_CODES as readonly string[]).includes(code))
            failures.push(`${where}: unknown code ${code}`);
          else if (fuzz.expect === 'invalid' && code !== 'INVALID_INPUT')
            failures.push(`${where}: got ${code}, expected INVALID_INPUT`);
          else if (code === 'INTERNAL_ERROR')
            failures.push(`${where}: INTERNAL_ERROR (an unhandled failure)`);
        }
      }
      return failures;
    },
  },
  ...CONTENT_CHECKS,
];

/**
 * Every conformance rule applied to `provider`, without a test framework: what is wrong, one
 * line per problem, or an empty list. `describeToolProvider` runs the same rules as vitest tests.
 */
export async function conformanceProblems(
  provider: ToolProvider,
  options: ConformanceOptions = {},
): Promise<string[]> {
  const problems = PROVIDER_CHECKS.flatMap((check) => check.run(provider));
  let registry: ToolRegistry;
  try {
    registry = new ToolRegistry(options.logger ? { logger: options.logger } : {}).use(provider);
  } catch (error) {
    problems.push(`registering the provider failed: ${(error as Error).message}`);
    return problems;
  }
  const connection = await connectInMemory(registry);
  try {
    const served: ServedProvider = { provider, registry, connection, skipFuzz: options.skipFuzz ?? [] };
    for (const check of SERVED_CHECKS) problems.push(...(await check.run(served)));
  } finally {
    await connection.close();
  }
  return problems;
}
