import { describe, expect, it } from 'vitest';
import { describeTool, McpToolError, NotFoundError, ToolValidationError } from '../src/index.js';
import { describeToolProvider, fuzzCases } from '../src/testing/index.js';
import { createContentProvider } from './fixtures/content.js';
import { add, createFixtureProvider, echo, fail } from './fixtures/tools.js';

describeToolProvider(createFixtureProvider());
describeToolProvider(createContentProvider(), { name: 'notes (tools, prompts and resources)' });

describe('fuzzCases', () => {
  it('covers extra keys, missing keys, wrong types, odd strings and boundary numbers', () => {
    const labels = fuzzCases(describeTool(add)).map((fuzz) => `${fuzz.expect}: ${fuzz.label}`);
    expect(labels).toEqual(
      expect.arrayContaining([
        'invalid: an unknown extra key',
        'invalid: required "a" missing',
        'invalid: "a" gets "not-a-number" for number',
        'invalid: "a" is null',
        'invalid: "a" is 1.5',
        'invalid: "b" is 1e308',
        'any: "a" is 0',
      ]),
    );
    const echoCases = fuzzCases(describeTool(echo));
    expect(echoCases.find((fuzz) => fuzz.label.includes('100000-character'))?.expect).toBe('invalid');
    expect(echoCases.filter((fuzz) => fuzz.expect === 'any').length).toBeGreaterThanOrEqual(8);
    expect(fuzzCases(describeTool(fail)).map((fuzz) => fuzz.label)).toContain(
      '"code" is not one of its enum values',
    );
  });
});

describe('error classes', () => {
  it('set their name and code, and are recognised across copies by brand', () => {
    const error = new NotFoundError('Ticket not found: T-1.', { details: { candidates: ['T-10'] } });
    expect(error.name).toBe('NotFoundError');
    expect(NotFoundError.name).toBe('NotFoundError');
    expect(error).toBeInstanceOf(McpToolError);
    expect(error.toJSON()).toEqual({
      error_code: 'NOT_FOUND',
      message: 'Ticket not found: T-1.',
      retryable: false,
      candidates: ['T-10'],
    });
    const foreign = Object.assign(new Error('x'), { [Symbol.for('@x/mcp-core.McpToolError')]: true });
    expect(McpToolError.isInstance(foreign)).toBe(true);
    expect(McpToolError.isInstance(new Error('plain'))).toBe(false);
    expect(new ToolValidationError('t', [{ field: 'name', message: 'bad' }]).name).toBe(
      'ToolValidationError',
    );
  });
});
