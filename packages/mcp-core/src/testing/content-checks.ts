import { isDeepStrictEqual } from 'node:util';
import type { ToolDescriptor } from '../descriptor.js';
import { ERROR_CODES } from '../errors.js';
import type { ServedCheck } from './checks.js';
import { fuzzCases } from './fuzz.js';

const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
const ODD_VALUES = [
  '',
  ' ',
  'a\u0000b',
  '../../../../etc/passwd',
  'abc\u202Edef',
  '🦄𝕏',
  "'; DROP TABLE t; --",
  'A'.repeat(100_000),
];

interface RpcFailure {
  code: number;
  message: string;
  data?: { error_code?: unknown };
}

async function outcome(call: Promise<unknown>): Promise<RpcFailure | undefined> {
  try {
    await call;
    return undefined;
  } catch (error) {
    return error as RpcFailure;
  }
}

/**
 * Checks one failure: a JSON-RPC invalid-params or internal error, in our vocabulary when it
 * came from our path (`data.error_code`), and never an unhandled failure.
 */
function judge(failure: RpcFailure, expectInvalid: boolean): string | undefined {
  if (failure.code !== INVALID_PARAMS && failure.code !== INTERNAL_ERROR) {
    return `JSON-RPC code ${failure.code} (${failure.message})`;
  }
  const code = failure.data?.error_code;
  if (code !== undefined && !(ERROR_CODES as readonly unknown[]).includes(code))
    return `unknown error_code ${String(code)}`;
  if (code === 'INTERNAL_ERROR') return `INTERNAL_ERROR (an unhandled failure): ${failure.message}`;
  if (expectInvalid && failure.code !== INVALID_PARAMS)
    return `got ${failure.code}, expected ${INVALID_PARAMS}`;
  return undefined;
}

/** Collects every page of a paginated list, checking that the cursors end. */
async function allPages<T>(
  list: (cursor?: string) => Promise<{ nextCursor?: string | undefined; items: T[] }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await list(cursor);
    items.push(...result.items);
    if (result.nextCursor === undefined) return items;
    cursor = result.nextCursor;
  }
  throw new Error('the list did not end after 100 pages');
}

/**
 * The conformance rules for a provider's prompts and resources: capabilities only for what is
 * served, complete listings over every page, described prompts and resources, fuzzed arguments
 * and URIs answered by typed JSON-RPC errors, unknown names and URIs answered by invalid params.
 */
export const CONTENT_CHECKS: readonly ServedCheck[] = [
  {
    title: 'advertises prompts, resources and completions exactly when it serves them',
    run: ({ registry, connection }) => {
      const capabilities = connection.client.getServerCapabilities() ?? {};
      const catalog = registry.content;
      const problems: string[] = [];
      const pairs = [
        ['prompts', capabilities.prompts !== undefined, catalog.hasPrompts],
        ['resources', capabilities.resources !== undefined, catalog.hasResources],
        ['completions', capabilities.completions !== undefined, catalog.hasCompletions],
      ] as const;
      for (const [name, advertised, served] of pairs) {
        if (advertised !== served) {
          problems.push(`${name} capability ${advertised ? 'advertised but nothing served' : 'missing'}`);
        }
      }
      return problems;
    },
  },
  {
    title: 'lists exactly its prompts and resource templates over MCP, across every page',
    run: async ({ registry, connection }) => {
      const { client } = connection;
      const catalog = registry.content;
      const problems: string[] = [];
      if (catalog.hasPrompts) {
        const prompts = await allPages(async (cursor) => {
          const page = await client.listPrompts(cursor ? { cursor } : undefined);
          return { nextCursor: page.nextCursor, items: page.prompts };
        });
        const listed = prompts.map(({ name, title, description, arguments: args }) => ({
          name,
          title,
          description,
          arguments: args ?? [],
        }));
        const expected = catalog.listPrompts().map((prompt) => ({ title: undefined, ...prompt }));
        const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
        if (!isDeepStrictEqual(plain(listed), plain(expected))) {
          problems.push('prompts/list differs from the registry prompts');
        }
      }
      if (catalog.hasResources) {
        const templates = await allPages(async (cursor) => {
          const page = await client.listResourceTemplates(cursor ? { cursor } : undefined);
          return { nextCursor: page.nextCursor, items: page.resourceTemplates };
        });
        const expected = catalog
          .listResourceDescriptors()
          .flatMap((resource) => (resource.uriTemplate === undefined ? [] : [resource.uriTemplate]));
        if (
          !isDeepStrictEqual(
            templates.map((template) => template.uriTemplate),
            expected,
          )
        ) {
          problems.push('resources/templates/list differs from the registry templates');
        }
        const listed = await allPages(async (cursor) => {
          const page = await client.listResources(cursor ? { cursor } : undefined);
          return { nextCursor: page.nextCursor, items: page.resources };
        });
        const uris = listed.map((resource) => resource.uri);
        if (new Set(uris).size !== uris.length) problems.push('resources/list names a resource twice');
      }
      return problems;
    },
  },
  {
    title: 'describes every prompt and resource for a person choosing one',
    run: ({ registry }) => {
      const problems: string[] = [];
      for (const prompt of registry.content.listPrompts()) {
        if (prompt.description.trim().length < 20) {
          problems.push(`prompt ${prompt.name}: description shorter than 20 characters`);
        }
        for (const argument of prompt.arguments) {
          if (argument.description.length === 0) {
            problems.push(`prompt ${prompt.name}.${argument.name} has no description`);
          }
        }
      }
      for (const resource of registry.content.listResourceDescriptors()) {
        if (resource.description.trim().length < 20) {
          problems.push(`resource ${resource.name}: description shorter than 20 characters`);
        }
      }
      return problems;
    },
  },
  {
    title: 'answers an unknown prompt and an unknown URI with invalid params',
    run: async ({ registry, connection }) => {
      const problems: string[] = [];
      if (registry.content.hasPrompts) {
        const failure = await outcome(connection.client.getPrompt({ name: '__no_such_prompt__' }));
        if (failure?.code !== INVALID_PARAMS) {
          problems.push(`an unknown prompt got ${failure ? `JSON-RPC ${failure.code}` : 'an answer'}`);
        }
      }
      if (registry.content.hasResources) {
        const failure = await outcome(
          connection.client.readResource({ uri: 'no-such-scheme://nothing/here' }),
        );
        if (failure?.code !== INVALID_PARAMS) {
          problems.push(`an unknown URI got ${failure ? `JSON-RPC ${failure.code}` : 'an answer'}`);
        }
      }
      return problems;
    },
  },
  {
    title: 'answers fuzzed prompt arguments and template variables with typed errors, never a crash',
    timeoutMs: 120_000,
    run: async ({ registry, connection, skipFuzz }) => {
      const { client } = connection;
      const failures: string[] = [];
      for (const prompt of registry.content.listPrompts()) {
        if (skipFuzz.includes(prompt.name)) continue;
        const properties = Object.fromEntries(
          prompt.arguments.map((argument) => [argument.name, { type: 'string' }]),
        );
        const required = prompt.arguments
          .filter((argument) => argument.required)
          .map((argument) => argument.name);
        const inputSchema = { type: 'object', properties, required } as ToolDescriptor['inputSchema'];
        // Prompt arguments are strings on the wire (the SDK refuses any other value before we
        // see it), so only the string cases apply, plus an unknown argument with a string value.
        const cases = fuzzCases({ inputSchema } as ToolDescriptor).filter((fuzz) =>
          Object.values(fuzz.args).every((value) => typeof value === 'string'),
        );
        const base = Object.fromEntries(required.map((name) => [name, 'x']));
        cases.push({
          label: 'an unknown argument',
          args: { ...base, __unexpected__: 'x' },
          expect: 'invalid',
        });
        for (const fuzz of cases) {
          const failure = await outcome(
            client.getPrompt({ name: prompt.name, arguments: fuzz.args as Record<string, string> }),
          );
          const where = `prompt ${prompt.name} with ${fuzz.label}`;
          if (!failure) {
            if (fuzz.expect === 'invalid') failures.push(`${where}: accepted, expected invalid params`);
            continue;
          }
          const problem = judge(failure, fuzz.expect === 'invalid');
          if (problem) failures.push(`${where}: ${problem}`);
        }
      }
      for (const resource of registry.content.listResourceDescriptors()) {
        if (resource.uriTemplate === undefined || skipFuzz.includes(resource.name)) continue;
        const variables = [...resource.uriTemplate.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
        for (const value of ODD_VALUES) {
          let uri = resource.uriTemplate;
          for (const variable of variables) uri = uri.replace(`{${variable}}`, encodeURIComponent(value));
          const failure = await outcome(client.readResource({ uri }));
          if (!failure) continue;
          const problem = judge(failure, false);
          if (problem) failures.push(`resource ${uri.slice(0, 80)}: ${problem}`);
        }
      }
      return failures;
    },
  },
];
