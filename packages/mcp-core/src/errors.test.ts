import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validateToolDefinition } from './descriptor.js';
import { ToolValidationError } from './errors.js';

describe('ToolValidationError', () => {
  it('is built from one ZodError: its issues become fields, and the ZodError is the cause', () => {
    const parsed = z.strictObject({ name: z.string(), limits: z.strictObject({ max: z.int() }) }).safeParse({
      name: 7,
      limits: { max: 1.5 },
      extra: true,
    });
    if (parsed.success) throw new Error('the sample must not parse');
    const error = new ToolValidationError('get_note', parsed.error);
    expect(error.cause).toBe(parsed.error);
    expect(error.issues.map((issue) => issue.field)).toEqual(['name', 'limits.max', '(root)']);
    expect(error.issues[2]?.message).toBe('unknown field(s) extra');
    expect(error.field).toBe('name');
    expect(error.message).toMatch(
      /^Invalid tool definition "get_note": name: .*; limits\.max: .*; \(root\): unknown field\(s\) extra$/,
    );
  });

  it('keeps a cause given beside hand-made issues, and has none otherwise', () => {
    const reason = new Error('unrepresentable');
    expect(
      new ToolValidationError('t', [{ field: 'inputSchema', message: 'bad' }], { cause: reason }).cause,
    ).toBe(reason);
    expect(new ToolValidationError('t', [{ field: 'name', message: 'bad' }]).cause).toBeUndefined();
  });

  it('wraps the ZodError of a descriptor that fails validation', () => {
    let thrown: unknown;
    try {
      validateToolDefinition({
        name: 'x',
        description: '',
        inputSchema: { type: 'object' },
        annotations: {},
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ToolValidationError);
    expect((thrown as ToolValidationError).cause).toBeInstanceOf(z.ZodError);
    expect((thrown as ToolValidationError).issues.map((issue) => issue.field)).toContain(
      'annotations.readOnlyHint',
    );
  });

  it('is built from a ZodError alone, as the seed contract writes it', () => {
    const parsed = z.strictObject({ name: z.string().regex(/^[a-z_]+$/) }).safeParse({ name: 'Get-Note' });
    if (parsed.success) throw new Error('the sample must not parse');
    const error = new ToolValidationError(parsed.error);
    expect(error).toBeInstanceOf(ToolValidationError);
    expect(error.cause).toBe(parsed.error);
    expect(error.field).toBe('name');
    expect(error.issues).toHaveLength(1);
    expect(error.message).toMatch(/^Invalid tool definition: name: /);
    // The two-argument form is unchanged.
    expect(new ToolValidationError('get_note', parsed.error).message).toMatch(
      /^Invalid tool definition "get_note": name: /,
    );
  });

  it('is built from a message alone, said as it is, with an optional cause', () => {
    const error = new ToolValidationError('tool names must be snake_case');
    expect(error.message).toBe('tool names must be snake_case');
    expect(error.name).toBe('ToolValidationError');
    expect(error.field).toBe('(root)');
    expect(error.issues).toEqual([{ field: '(root)', message: 'tool names must be snake_case' }]);
    expect(error.cause).toBeUndefined();
    const reason = new Error('why');
    expect(new ToolValidationError('bad', { cause: reason }).cause).toBe(reason);
  });

  it('takes a ZodError of another zod copy (an Error with issues) by its shape', () => {
    const foreign = Object.assign(new Error('zod v3'), {
      issues: [{ code: 'invalid_type', path: ['inputSchema', 'type'], message: 'Expected object' }],
    });
    const error = new ToolValidationError(foreign as unknown as z.ZodError);
    expect(error.field).toBe('inputSchema.type');
    expect(error.message).toBe('Invalid tool definition: inputSchema.type: Expected object');
    expect(error.cause).toBe(foreign);
  });
});
