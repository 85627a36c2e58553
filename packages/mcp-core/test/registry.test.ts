import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigError,
  DuplicateToolError,
  defineTool,
  describeTool,
  globalToolRegistry,
  NotFoundError,
  ToolRegistry,
  ToolValidationError,
  validateToolDefinition,
} from '../src/index.js';
import { add, createFixtureProvider, echo } from './fixtures/tools.js';

const validDescriptor = {
  name: 'get_item',
  description: 'Gets an item.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

describe('validateToolDefinition', () => {
  it('accepts a valid descriptor', () => {
    expect(validateToolDefinition(validDescriptor).name).toBe('get_item');
  });

  it('rejects an unknown field and names it', () => {
    expect(() => validateToolDefinition({ ...validDescriptor, vendorExtension: true })).toThrow(
      /\(root\): unknown field\(s\) vendorExtension/,
    );
  });

  it('says when the name is empty', () => {
    const error = captureError(() => validateToolDefinition({ ...validDescriptor, name: '' }));
    expect(error).toBeInstanceOf(ToolValidationError);
    expect((error as ToolValidationError).field).toBe('name');
    expect((error as Error).message).toContain('name: must not be empty');
  });

  it.each([
    ['a name with a space', { name: 'get item' }, 'name'],
    ['a 65-character name', { name: 'a'.repeat(65) }, 'name'],
    ['a blank description', { description: '   ' }, 'description'],
    ['a non-object input schema', { inputSchema: { type: 'string', properties: {} } }, 'inputSchema.type'],
    [
      'an input schema open to extra keys',
      { inputSchema: { type: 'object', properties: {} } },
      'inputSchema.additionalProperties',
    ],
    [
      'a missing annotation hint',
      { annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true } },
      'annotations.openWorldHint',
    ],
    [
      'read-only and destructive together',
      {
        annotations: {
          readOnlyHint: true,
          destructiveHint: true,
          idempotentHint: true,
          openWorldHint: false,
        },
      },
      'annotations.destructiveHint',
    ],
    ['a non-object output schema', { outputSchema: { type: 'array', properties: {} } }, 'outputSchema.type'],
  ])('rejects %s', (_label, patch, field) => {
    const error = captureError(() => validateToolDefinition({ ...validDescriptor, ...patch }));
    expect(error).toBeInstanceOf(ToolValidationError);
    expect((error as ToolValidationError).field).toBe(field);
  });
});

describe('ToolRegistry', () => {
  it('rejects a second tool with the same name', () => {
    const registry = new ToolRegistry().register(echo);
    const error = captureError(() => registry.register({ ...echo }));
    expect(error).toBeInstanceOf(DuplicateToolError);
    expect((error as DuplicateToolError).toolName).toBe('echo');
    expect((error as Error).name).toBe('DuplicateToolError');
  });

  it('rejects a tool whose input schema is not strict', () => {
    const loose = defineTool({
      ...echo,
      name: 'loose',
      inputSchema: z.object({ text: z.string().describe('text') }),
    });
    expect(() => new ToolRegistry().register(loose)).toThrow(
      /inputSchema.additionalProperties: must be false/,
    );
  });

  it('returns undefined for an unknown name instead of throwing', () => {
    expect(new ToolRegistry().register(echo).getByName('nope')).toBeUndefined();
  });

  it('lists descriptors in registration order', () => {
    const registry = new ToolRegistry().register(echo).register(add);
    expect(registry.toMcpTools().map((tool) => tool.name)).toEqual(['echo', 'add']);
    expect(registry.getAll()).toEqual([echo, add]);
    expect(registry.toMcpTools()[1]).toMatchObject({
      inputSchema: { type: 'object', required: ['a', 'b'], additionalProperties: false },
      outputSchema: { type: 'object', properties: { sum: { type: 'integer' } } },
    });
  });

  it('throws NotFoundError with candidates when calling an unknown tool in process', () => {
    const registry = new ToolRegistry().use(createFixtureProvider(), { prefix: 'fx_' });
    const error = captureError(() => registry.call('echo', {}));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ code: 'NOT_FOUND', details: { candidates: ['fx_echo'] } });
  });

  describe('use', () => {
    it('prefixes names and keeps the provider instructions', () => {
      const registry = new ToolRegistry().use(createFixtureProvider(), { prefix: 'fx_' });
      expect(registry.getByName('fx_echo')).toBeDefined();
      expect(registry.getByName('echo')).toBeUndefined();
      expect(registry.instructions).toBe('Fixture tools for the core tests.');
    });

    it('re-validates names after prefixing', () => {
      const error = captureError(() =>
        new ToolRegistry().use(createFixtureProvider(), { prefix: 'p'.repeat(60) }),
      );
      expect(error).toBeInstanceOf(ToolValidationError);
      expect((error as Error).message).toContain('after adding prefix');
    });

    it('rejects a prefix with characters a tool name cannot have', () => {
      expect(() => new ToolRegistry().use(createFixtureProvider(), { prefix: 'fx.' })).toThrow(ConfigError);
    });

    it('filters by include and exclude patterns', () => {
      const registry = new ToolRegistry().use(createFixtureProvider(), {
        include: ['e*', 'add', 'slow'],
        exclude: ['slow'],
      });
      expect(registry.toMcpTools().map((tool) => tool.name)).toEqual(['echo', 'add']);
    });

    it('keeps only read-only tools when asked', () => {
      const registry = new ToolRegistry().use(createFixtureProvider(), { readOnly: true });
      const names = registry.toMcpTools().map((tool) => tool.name);
      expect(names).not.toContain('fail');
      expect(names).not.toContain('remove_item');
      expect(names).toContain('echo');
    });

    it('treats a filter rule that matches nothing as an error', () => {
      expect(() => new ToolRegistry().use(createFixtureProvider(), { include: ['ech'] })).toThrow(
        /filter rule\(s\) "ech" match no tool/,
      );
      expect(() => new ToolRegistry().use(createFixtureProvider(), { exclude: ['nothing*here'] })).toThrow(
        ConfigError,
      );
    });

    it('treats filters that leave nothing as an error', () => {
      expect(() =>
        new ToolRegistry().use(createFixtureProvider(), { include: ['remove_item'], readOnly: true }),
      ).toThrow(/leave none of its tools/);
    });

    it('registers nothing when one of the tools clashes', () => {
      const registry = new ToolRegistry().register(add);
      expect(() => registry.use(createFixtureProvider())).toThrow(DuplicateToolError);
      expect(registry.toMcpTools().map((tool) => tool.name)).toEqual(['add']);
    });
  });

  it('rejects a non-positive timeout', () => {
    expect(() => new ToolRegistry({ timeoutMs: 0 })).toThrow(ConfigError);
  });

  it('exports a global registry', () => {
    expect(globalToolRegistry).toBeInstanceOf(ToolRegistry);
  });
});

function captureError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('published schemas', () => {
  it('spell nullable fields as anyOf and loose objects as additionalProperties: true', () => {
    const tool = defineTool({
      name: 'nullable_output',
      description: 'Returns fields that may be null.',
      inputSchema: z.strictObject({}),
      outputSchema: z.object({
        note: z.string().max(10).nullable().describe('A note, or null when there is none'),
        extra: z.looseObject({}),
      }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      handler: () => ({ note: null, extra: {} }),
    });
    const properties = describeTool(tool).outputSchema?.properties ?? {};
    expect(properties.note).toEqual({
      description: 'A note, or null when there is none',
      anyOf: [{ type: 'string', maxLength: 10 }, { type: 'null' }],
    });
    expect(properties.extra).toMatchObject({ type: 'object', additionalProperties: true });
  });
});

describe('descriptors of tools that share a schema object (per-user registries)', () => {
  const input = z.strictObject({ query: z.string().describe('What to look for'), limit: z.number().int() });
  const output = z.object({ items: z.array(z.object({ id: z.number(), title: z.string().nullable() })) });
  const build = (user: string) =>
    defineTool({
      name: 'search',
      description: 'Searches.',
      inputSchema: input,
      outputSchema: output,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      handler: () => ({ items: [{ id: user.length, title: null }] }),
    });

  it('convert the schema once: the registries share its frozen JSON Schema', () => {
    const [alice, bob] = ['alice', 'bob'].map((user) =>
      new ToolRegistry().use({ id: 'p', version: '1.0.0', tools: [build(user)] }, { prefix: 'p_' }),
    );
    const [a] = alice?.toMcpTools() ?? [];
    const [b] = bob?.toMcpTools() ?? [];
    expect(a).toEqual(b);
    expect(a?.inputSchema.properties.query).toBe(b?.inputSchema.properties.query);
    expect(a?.outputSchema?.properties.items).toBe(b?.outputSchema?.properties.items);
    expect(a?.outputSchema?.properties.items).toMatchObject({
      type: 'array',
      items: { properties: { title: { anyOf: [{ type: 'string' }, { type: 'null' }] } } },
    });
    const query = a?.inputSchema.properties.query as Record<string, unknown>;
    expect(Object.isFrozen(query)).toBe(true);
    expect(() => {
      query.description = 'changed';
    }).toThrow(TypeError);
    expect(describeTool(build('carol')).inputSchema.properties.query).toEqual({
      type: 'string',
      description: 'What to look for',
    });
  });
});
