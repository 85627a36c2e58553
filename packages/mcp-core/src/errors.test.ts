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
});
