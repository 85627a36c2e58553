import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeTool } from '../descriptor.js';
import { ERROR_CODES } from '../errors.js';
import { ToolRegistry } from '../registry.js';
import type { ToolProvider } from '../tool.js';
import { toolRefsIn } from '../tool-ref.js';
import { type ConnectedClient, connectInMemory } from './clients.js';
import { contentConformance } from './content-conformance.js';
import { fuzzCases } from './fuzz.js';
import { errorBody } from './results.js';

export interface DescribeToolProviderOptions {
  /** Suite title; defaults to the provider id. */
  name?: string;
  /** Skip the fuzz battery for these tools, prompts or resources (say why in the calling test). */
  skipFuzz?: readonly string[];
}

type ProviderSource = ToolProvider | (() => ToolProvider | Promise<ToolProvider>);

/**
 * The conformance suite every provider runs: valid unique names, useful descriptions,
 * strict schemas with described fields, explicit annotations, and a fuzz battery per tool
 * through a real MCP client, each answered by a typed tool error, never a crash or a
 * protocol error; and for its prompts and resources, the checks of `contentConformance`. Pass a function to build the provider after your own `beforeAll`
 * (e.g. once a fake upstream is listening).
 */
export function describeToolProvider(
  source: ProviderSource,
  options: DescribeToolProviderOptions = {},
): void {
  const title = options.name ?? (typeof source === 'function' ? 'tool provider' : source.id);
  describe(`${title} conformance`, () => {
    let provider: ToolProvider;
    let registry: ToolRegistry;
    let connection: ConnectedClient;

    beforeAll(async () => {
      provider = typeof source === 'function' ? await source() : source;
      registry = new ToolRegistry().use(provider);
      connection = await connectInMemory(registry);
    });
    afterAll(async () => {
      await connection?.close();
    });

    it('has an id, a version and at least one tool', () => {
      expect(provider.id).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(provider.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(provider.tools.length).toBeGreaterThan(0);
    });

    it('has unique names and valid descriptors with explicit annotations', () => {
      const names = provider.tools.map((tool) => tool.name);
      expect(new Set(names).size).toBe(names.length);
      for (const tool of provider.tools) expect(() => describeTool(tool)).not.toThrow();
    });

    it('describes every tool for a model', () => {
      for (const tool of provider.tools) {
        expect(tool.description.trim().length, `${tool.name}: description too short`).toBeGreaterThanOrEqual(
          20,
        );
        expect(tool.description.trim(), `${tool.name}: description repeats the name`).not.toBe(tool.name);
      }
    });

    it('refers with toolRef only to its own tools (of any toolset, served or not)', () => {
      const names = new Set([
        ...provider.tools.map((tool) => tool.name),
        ...(provider.toolsets ?? []).flatMap((toolset) => toolset.tools),
        ...(provider.loadToolset ? ['list_toolsets', 'enable_toolset'] : []),
      ]);
      const texts = [
        provider.instructions ?? '',
        ...provider.tools.map((tool) => JSON.stringify(describeTool(tool))),
      ];
      const unknown = texts.flatMap((text) => toolRefsIn(text)).filter((name) => !names.has(name));
      expect(unknown, 'toolRef names a tool this provider does not have').toEqual([]);
    });

    it('declares toolsets that hold every tool it serves, and loads each as declared', () => {
      const toolsets = provider.toolsets ?? [];
      if (toolsets.length === 0) {
        expect(provider.loadToolset, 'loadToolset without toolsets').toBeUndefined();
        return;
      }
      const toolsetNames = toolsets.map((toolset) => toolset.name);
      expect(new Set(toolsetNames).size, 'toolset names are unique').toBe(toolsetNames.length);
      const declared = new Set(toolsets.flatMap((toolset) => toolset.tools));
      for (const toolset of toolsets) {
        expect(toolset.name).toMatch(/^[a-z][a-z0-9_-]*$/);
        expect(toolset.description.trim().length, `${toolset.name}: description`).toBeGreaterThan(0);
        expect(toolset.tools.length, `${toolset.name}: no tools`).toBeGreaterThan(0);
      }
      const outside = provider.tools.map((tool) => tool.name).filter((name) => !declared.has(name));
      expect(outside, 'tools served but in no toolset').toEqual([]);
      if (!provider.loadToolset) return;
      for (const toolset of toolsets) {
        const loaded = provider.loadToolset(toolset.name);
        expect(
          loaded.map((tool) => tool.name).sort(),
          `loadToolset("${toolset.name}") returns its declared tools`,
        ).toEqual([...toolset.tools].sort());
        for (const tool of loaded) expect(() => describeTool(tool)).not.toThrow();
      }
    });

    it('has strict input schemas whose fields are all described', () => {
      for (const descriptor of registry.toMcpTools()) {
        expect(descriptor.inputSchema.additionalProperties, descriptor.name).toBe(false);
        for (const [key, property] of Object.entries(descriptor.inputSchema.properties)) {
          const description = (property as { description?: unknown }).description;
          expect(
            typeof description === 'string' && description.trim().length > 0,
            `${descriptor.name}.${key} has no description`,
          ).toBe(true);
        }
      }
    });

    it('publishes portable schemas: no type arrays, no empty additionalProperties', async () => {
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
      expect(found).toEqual([]);
    });

    it('lists exactly its descriptors over MCP', async () => {
      const listed = await connection.client.listTools();
      expect(listed.tools).toEqual(registry.toMcpTools());
    });

    it('answers every fuzz case with a typed result, never a crash or a protocol error', async () => {
      const failures: string[] = [];
      for (const descriptor of registry.toMcpTools()) {
        if (options.skipFuzz?.includes(descriptor.name)) continue;
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
      expect(failures).toEqual([]);
    }, 120_000);

    contentConformance(() => ({ provider, registry, connection }), {
      ...(options.skipFuzz ? { skipFuzz: options.skipFuzz } : {}),
    });
  });
}
