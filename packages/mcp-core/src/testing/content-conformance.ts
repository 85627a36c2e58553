import { expect, it } from 'vitest';
import type { ToolDescriptor } from '../descriptor.js';
import { ERROR_CODES } from '../errors.js';
import type { ToolRegistry } from '../registry.js';
import type { ToolProvider } from '../tool.js';
import type { ConnectedClient } from './clients.js';
import { fuzzCases } from './fuzz.js';

export interface ContentSuiteState {
  provider: ToolProvider;
  registry: ToolRegistry;
  connection: ConnectedClient;
}

export interface ContentSuiteOptions {
  /** Skip the fuzz battery for these prompts or resources (say why in the calling test). */
  skipFuzz?: readonly string[];
}

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
 * The conformance checks for a provider's prompts and resources, run by `describeToolProvider`:
 * capabilities only for what is served, complete listings over every page, strict described
 * arguments, fuzzed arguments and URIs answered by typed JSON-RPC errors, unknown names and
 * URIs answered by invalid params.
 */
export function contentConformance(state: () => ContentSuiteState, options: ContentSuiteOptions = {}): void {
  it('advertises prompts, resources and completions exactly when it serves them', () => {
    const { registry, connection } = state();
    const capabilities = connection.client.getServerCapabilities() ?? {};
    const catalog = registry.content;
    expect(capabilities.prompts !== undefined, 'prompts capability').toBe(catalog.hasPrompts);
    expect(capabilities.resources !== undefined, 'resources capability').toBe(catalog.hasResources);
    expect(capabilities.completions !== undefined, 'completions capability').toBe(catalog.hasCompletions);
  });

  it('lists exactly its prompts and resource templates over MCP, across every page', async () => {
    const { registry, connection } = state();
    const { client } = connection;
    const catalog = registry.content;
    if (catalog.hasPrompts) {
      const prompts = await allPages(async (cursor) => {
        const page = await client.listPrompts(cursor ? { cursor } : undefined);
        return { nextCursor: page.nextCursor, items: page.prompts };
      });
      expect(
        prompts.map(({ name, title, description, arguments: args }) => ({
          name,
          title,
          description,
          arguments: args ?? [],
        })),
      ).toEqual(catalog.listPrompts().map((prompt) => ({ title: undefined, ...prompt })));
    }
    if (catalog.hasResources) {
      const templates = await allPages(async (cursor) => {
        const page = await client.listResourceTemplates(cursor ? { cursor } : undefined);
        return { nextCursor: page.nextCursor, items: page.resourceTemplates };
      });
      const expected = catalog
        .listResourceDescriptors()
        .filter((resource) => resource.uriTemplate !== undefined);
      expect(templates.map((template) => template.uriTemplate)).toEqual(
        expected.map((resource) => resource.uriTemplate),
      );
      const listed = await allPages(async (cursor) => {
        const page = await client.listResources(cursor ? { cursor } : undefined);
        return { nextCursor: page.nextCursor, items: page.resources };
      });
      const uris = listed.map((resource) => resource.uri);
      expect(new Set(uris).size, 'every resource listed once').toBe(uris.length);
    }
  });

  it('describes every prompt and resource for a person choosing one', () => {
    const { registry } = state();
    for (const prompt of registry.content.listPrompts()) {
      expect(
        prompt.description.trim().length,
        `${prompt.name}: description too short`,
      ).toBeGreaterThanOrEqual(20);
      for (const argument of prompt.arguments) {
        expect(argument.description.length, `${prompt.name}.${argument.name}`).toBeGreaterThan(0);
      }
    }
    for (const resource of registry.content.listResourceDescriptors()) {
      expect(
        resource.description.trim().length,
        `${resource.name}: description too short`,
      ).toBeGreaterThanOrEqual(20);
    }
  });

  it('answers an unknown prompt and an unknown URI with invalid params', async () => {
    const { registry, connection } = state();
    if (registry.content.hasPrompts) {
      const failure = await outcome(connection.client.getPrompt({ name: '__no_such_prompt__' }));
      expect(failure?.code).toBe(INVALID_PARAMS);
    }
    if (registry.content.hasResources) {
      const failure = await outcome(connection.client.readResource({ uri: 'no-such-scheme://nothing/here' }));
      expect(failure?.code).toBe(INVALID_PARAMS);
    }
  });

  it('answers fuzzed prompt arguments and template variables with typed errors, never a crash', async () => {
    const { registry, connection } = state();
    const { client } = connection;
    const failures: string[] = [];
    for (const prompt of registry.content.listPrompts()) {
      if (options.skipFuzz?.includes(prompt.name)) continue;
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
      cases.push({ label: 'an unknown argument', args: { ...base, __unexpected__: 'x' }, expect: 'invalid' });
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
      if (resource.uriTemplate === undefined || options.skipFuzz?.includes(resource.name)) continue;
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
    expect(failures).toEqual([]);
  }, 120_000);
}
