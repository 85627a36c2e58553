import { describe, expect, it } from 'vitest';
import { JsonSyntaxError, MAX_JSON_DEPTH, parseLocatedJson } from './policy-json.js';

function syntaxError(text: string): JsonSyntaxError {
  try {
    parseLocatedJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) return error;
    throw error;
  }
  throw new Error('expected a syntax error');
}

describe('parseLocatedJson', () => {
  it('reads what JSON.parse reads, and where each value and key is', () => {
    const text = '{\n  "a": [1, -2.5e3, "x\\n\\u00e9"],\n  "b": {"c": null, "d": true}\n}\n';
    const located = parseLocatedJson(text);
    expect(located.value).toEqual(JSON.parse(text));
    expect(located.valueAt([])).toEqual({ line: 1, column: 1 });
    expect(located.keyAt(['a'])).toEqual({ line: 2, column: 3 });
    expect(located.valueAt(['a'])).toEqual({ line: 2, column: 8 });
    expect(located.valueAt(['a', 1])).toEqual({ line: 2, column: 12 });
    expect(located.valueAt(['a', 2])).toEqual({ line: 2, column: 20 });
    expect(located.valueAt(['b', 'd'])).toEqual({ line: 3, column: 25 });
    expect(located.valueAt(['nope'])).toBeUndefined();
  });

  it('ignores a byte order mark', () => {
    expect(parseLocatedJson('\ufeff{"a": 1}').value).toEqual({ a: 1 });
  });

  it.each([
    ['', 1, 1, 'the file is empty'],
    ['{"a": 1,}', 1, 9, 'expected a key in double quotes, found "}"'],
    ['{"a": 1}\n{', 2, 1, 'unexpected "{" after the end'],
    ['{\n  "a": tru\n}', 2, 8, 'expected a value'],
    ["{'a': 1}", 1, 2, 'expected a key in double quotes'],
    ['{"a": "line\nbreak"}', 1, 12, 'control character'],
    ['{"a": "\\x"}', 1, 8, 'unknown escape \\x'],
    ['{"a": "open', 1, 7, 'a string is not closed'],
    ['[1 2]', 1, 4, 'expected "," or "]"'],
    ['{"a": 01}', 1, 8, 'expected "," or "}"'],
    ['// comment\n{}', 1, 1, 'expected a value'],
  ])('refuses %j at line %i, column %i', (text, line, column, reason) => {
    const error = syntaxError(text);
    expect(error.position).toEqual({ line, column });
    expect(error.reason).toContain(reason);
  });

  it('refuses a duplicate key, naming both places', () => {
    const error = syntaxError('{\n  "rules": [],\n  "default": {},\n  "rules": []\n}');
    expect(error.position).toEqual({ line: 4, column: 3 });
    expect(error.reason).toBe('duplicate key "rules" (first at line 2, column 3)');
  });

  it('refuses nesting deeper than the limit without overflowing the stack', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(syntaxError(deep).reason).toBe(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    const fine = `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`;
    expect(() => parseLocatedJson(fine)).not.toThrow();
  });

  it('keeps __proto__ as an own key: no prototype is changed', () => {
    const located = parseLocatedJson('{"__proto__": {"polluted": true}, "constructor": 1}');
    const value = located.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads a large flat document in one pass', () => {
    const items = Array.from({ length: 50_000 }, (_, index) => index);
    const located = parseLocatedJson(`{"a": [\n${items.join(',\n')}\n]}`);
    expect((located.value as { a: number[] }).a).toHaveLength(50_000);
    expect(located.valueAt(['a', 49_999])).toEqual({ line: 50_001, column: 1 });
  });
});
