import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport as InMemoryTransportV1 } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMcpServer, defineTool, describeTool, mountTools, ToolRegistry } from '../src/index.js';
import { shareRepeatedShapes } from '../src/lean-schema.js';
import { errorBody } from '../src/testing/index.js';

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const Person = z.object({ id: z.int(), name: z.string(), email: z.string().nullable() });
const Todo = z.object({
  id: z.int(),
  title: z.string().describe('The to-do as written'),
  creator: Person,
  assignees: z.array(Person),
  completion: z.object({ at: z.string(), by: Person }).nullable(),
});
const TodoPage = z.object({
  todos: z.array(Todo),
  overdue: z.array(Todo),
  strict: z.strictObject({ only: z.boolean() }),
  loose: z.looseObject({ known: z.string() }),
  page: z.int().min(1),
});

let answer: unknown;
const listTodos = defineTool({
  name: 'list_todos',
  description: 'Lists the to-dos of a list, with who made each and who does it.',
  inputSchema: z.strictObject({
    list: z.int().positive().describe('The list'),
    limit: z.int().min(1).max(500).default(100).describe('At most this many'),
    offset: z.int().describe('Skip this many'),
    before: z.int().lt(10).optional(),
    weight: z.number().positive().optional(),
  }),
  outputSchema: TodoPage,
  annotations: readOnly,
  handler: () => answer as z.input<typeof TodoPage>,
});

const ana = { id: 1, name: 'Ana', email: null };
const todo = (id: number) => ({
  id,
  title: `To-do ${id}`,
  creator: ana,
  assignees: [ana, { id: 2, name: 'Ben', email: 'ben@example.com' }],
  completion: id % 2 ? null : { at: '2026-11-28', by: ana },
});
const goodPage = {
  todos: [todo(1), todo(2)],
  overdue: [todo(3)],
  strict: { only: true },
  loose: { known: 'k', other: 1 },
  page: 1,
};

describe('the published schemas', () => {
  const { inputSchema, outputSchema = { type: 'object', properties: {} } } = describeTool(listTodos);

  it('carry no $schema and no safe-integer bounds, and keep every bound a tool set (an integer’s inclusive)', () => {
    const text = JSON.stringify({ inputSchema, outputSchema });
    expect(text).not.toContain('$schema');
    expect(text).not.toContain('9007199254740991');
    expect(inputSchema.properties).toEqual({
      list: { type: 'integer', minimum: 1, description: 'The list' },
      limit: { type: 'integer', minimum: 1, maximum: 500, default: 100, description: 'At most this many' },
      offset: { type: 'integer', description: 'Skip this many' },
      before: { type: 'integer', maximum: 9 },
      weight: { type: 'number', exclusiveMinimum: 0 },
    });
    expect(inputSchema.additionalProperties).toBe(false);
    expect((outputSchema.properties as Record<string, unknown>).page).toEqual({
      type: 'integer',
      minimum: 1,
    });
  });

  it('write a repeated output shape once under $defs, and keep input schemas inline', () => {
    expect(JSON.stringify(inputSchema)).not.toContain('$ref');
    const defs = outputSchema.$defs as Record<string, unknown>;
    // The two lists of to-dos are one shape (named for no property: they sit in two), and the
    // person inside it is shared too (creator, assignees and completion.by).
    expect(Object.keys(defs).sort()).toEqual(['shape', 'shape2']);
    expect(outputSchema.properties).toMatchObject({
      todos: { $ref: '#/$defs/shape' },
      overdue: { $ref: '#/$defs/shape' },
    });
    expect(defs.shape).toMatchObject({ type: 'array', items: { type: 'object' } });
    expect(JSON.stringify(defs.shape).match(/#\/\$defs\/shape2/g)).toHaveLength(3);
    expect(JSON.stringify(outputSchema).length).toBeLessThan(
      0.6 * JSON.stringify(inline(outputSchema)).length,
    );
  });

  it('forbid unknown keys in an output object only where zod does (strict objects)', () => {
    const properties = outputSchema.properties as Record<string, Record<string, unknown>>;
    expect(properties.strict?.additionalProperties).toBe(false);
    expect(properties.loose?.additionalProperties).toBe(true);
    expect(outputSchema).not.toHaveProperty('additionalProperties');
  });

  it('accept and reject exactly what the zod schemas do (ajv, JSON Schema 2020-12, strict mode)', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    const validOutput = ajv.compile(outputSchema as object);
    const validInput = ajv.compile(inputSchema);
    const outputs: unknown[] = [
      goodPage,
      { ...goodPage, extra: 1 },
      { ...goodPage, todos: [{ ...todo(1), creator: { ...ana, extra: true } }] },
      { ...goodPage, strict: { only: true, extra: 1 } },
      { ...goodPage, overdue: [{ ...todo(1), creator: { id: 1.5, name: 'Ana', email: null } }] },
      { ...goodPage, overdue: [{ ...todo(1), assignees: [{ id: 1, name: 'Ana' }] }] },
      { ...goodPage, todos: [{ ...todo(2), completion: { at: '2026-11-28', by: null } }] },
      { ...goodPage, page: 0 },
      { ...goodPage, page: 2 ** 40 },
      { ...goodPage, todos: 'none' },
    ];
    for (const value of outputs) {
      expect([validOutput(value), value]).toEqual([TodoPage.safeParse(value).success, value]);
    }
    const inputs: unknown[] = [
      { list: 1, offset: 0 },
      { list: 1, limit: 500, offset: -3 },
      { list: 0, offset: 0 },
      { list: 1, limit: 501, offset: 0 },
      { list: 1.5, offset: 0 },
      { list: 1, offset: 0, extra: 1 },
      { offset: 0 },
      { list: 1, offset: 0, before: 9, weight: 0.5 },
      { list: 1, offset: 0, before: 10 },
      { list: 1, offset: 0, weight: 0 },
    ];
    for (const value of inputs) {
      expect([validInput(value), value]).toEqual([listTodos.inputSchema.safeParse(value).success, value]);
    }
    // Both kinds are there: extra keys in plain objects and a large integer pass, the rest fail.
    expect(outputs.filter((value) => validOutput(value))).toHaveLength(4);
  });
});

/** The schema with every `$ref` replaced by its definition (no cycles here). */
function inline(schema: unknown): unknown {
  const defs = (schema as { $defs?: Record<string, unknown> }).$defs ?? {};
  const expand = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(expand);
    if (typeof node !== 'object' || node === null) return node;
    const ref = (node as { $ref?: string }).$ref;
    if (ref) return expand(defs[ref.replace('#/$defs/', '')]);
    return Object.fromEntries(
      Object.entries(node)
        .filter(([key]) => key !== '$defs')
        .map(([key, value]) => [key, expand(value)]),
    );
  };
  return expand(schema);
}

describe('SDK clients with the lean schemas', () => {
  // Our own output check is off, so what reaches the client is exactly what the handler returns.
  const registry = new ToolRegistry({ validateOutput: false }).register(listTodos);

  async function v2() {
    const server = createMcpServer({ name: 'lean', version: '1.0.0', registry });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(clientTransport);
    return client;
  }

  async function v1() {
    const server = new McpServerV1({ name: 'lean-v1', version: '1.0.0' });
    mountTools(server, registry);
    const [clientTransport, serverTransport] = InMemoryTransportV1.createLinkedPair();
    await server.connect(serverTransport);
    const client = new ClientV1({ name: 'c', version: '1' });
    await client.connect(clientTransport);
    return client;
  }

  it.each([
    ['v2', v2],
    ['v1', v1],
  ])('list the descriptors as they are on %s', async (_label, connect) => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools).toEqual([expect.objectContaining(registry.toMcpTools()[0])]);
  });

  it.each([
    ['v2', v2],
    ['v1', v1],
  ])(
    'validate structuredContent against the output schema, $refs followed, on %s',
    async (_label, connect) => {
      const client = await connect();
      await client.listTools();
      answer = goodPage;
      const ok = await client.callTool({ name: 'list_todos', arguments: { list: 1, offset: 0 } });
      expect(ok.structuredContent).toEqual(goodPage);
      // A person deep inside a shared shape, wrong: the client's validator must follow both $refs.
      answer = {
        ...goodPage,
        overdue: [{ ...todo(3), completion: { at: 'x', by: { id: 'one', name: 'A' } } }],
      };
      await expect(
        client.callTool({ name: 'list_todos', arguments: { list: 1, offset: 0 } }),
      ).rejects.toThrow(/structured content does not match/i);
    },
  );

  it('still rejects bad input with our INVALID_INPUT result', async () => {
    const client = await v2();
    const result = await client.callTool({ name: 'list_todos', arguments: { list: 1, offset: 0.5 } });
    expect(errorBody(result as never)).toMatchObject({ error_code: 'INVALID_INPUT' });
  });
});

describe('shareRepeatedShapes', () => {
  it('leaves a schema alone when sharing would not make it shorter', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' }, c: { type: 'number' } },
    };
    expect(shareRepeatedShapes(structuredClone(schema))).toEqual(schema);
  });

  it('names a definition after its property when it sits in no other, and keeps names that are taken', () => {
    const shape = { type: 'object', properties: { id: { type: 'number' }, name: { type: 'string' } } };
    const owner = (title: string) => ({
      type: 'object',
      title,
      properties: { owner: structuredClone(shape) },
    });
    const schema = shareRepeatedShapes({
      type: 'object',
      properties: { a: owner('A'), b: owner('B'), c: owner('C'), list: { type: 'array', items: shape } },
      $defs: { owner: { type: 'string' } },
    });
    // In a, b and c it is "owner", but in list it is not: a neutral name.
    expect(schema.$defs).toEqual({ owner: { type: 'string' }, shape });
    const alone = shareRepeatedShapes({
      type: 'object',
      properties: { a: owner('A'), b: owner('B'), c: owner('C') },
      $defs: { owner: { type: 'string' } },
    });
    expect(alone.$defs).toEqual({ owner: { type: 'string' }, owner2: shape });
    expect(alone.properties).toMatchObject({ a: { properties: { owner: { $ref: '#/$defs/owner2' } } } });
  });

  it('names a nullable primitive by its type', () => {
    const nullable = () => ({ anyOf: [{ type: 'string' }, { type: 'null' }] });
    const names = ['email', 'due_on', 'starts_on', 'app_url', 'created_at', 'updated_at', 'completed_at'];
    const schema = shareRepeatedShapes({
      type: 'object',
      properties: Object.fromEntries(names.map((name) => [name, nullable()])),
    });
    expect(schema.$defs).toEqual({ string_or_null: nullable() });
    expect(Object.values(schema.properties as object)).toEqual(
      names.map(() => ({ $ref: '#/$defs/string_or_null' })),
    );
  });

  it('never touches values that are not schemas (enum, const, default, examples)', () => {
    const value = {
      type: 'object',
      properties: { x: { type: 'string', description: 'a long enough text' } },
    };
    const schema = {
      type: 'object',
      properties: { a: { type: 'object', default: value, examples: [value, value] }, b: { const: value } },
    };
    expect(shareRepeatedShapes(structuredClone(schema))).toEqual(schema);
  });
});
