import type { ToolDescriptor } from '../descriptor.js';

/**
 * One hostile call. `invalid` cases must be answered with `INVALID_INPUT`; `any` cases may
 * succeed or fail, but only with a typed error (never `INTERNAL_ERROR`, never a protocol error).
 */
export interface FuzzCase {
  label: string;
  args: Record<string, unknown>;
  expect: 'invalid' | 'any';
}

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
  pattern?: string;
  minItems?: number;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
};

const ODD_STRINGS: readonly [string, string][] = [
  ['empty string', ''],
  ['whitespace only', ' \t\n '],
  ['NUL byte', 'a\u0000b'],
  ['path traversal', '../../../../etc/passwd'],
  ['right-to-left override', 'abc\u202Edef'],
  ['emoji and astral plane', '🦄𝕏\uD83D'],
  ['SQL and shell metacharacters', `'; DROP TABLE t; -- $(rm -rf /) \`id\``],
  ['URL-encoded and newline-laden', '%00%2e%2e/\r\nX-Injected: 1'],
];

const HUGE_STRING_LENGTH = 100_000;

/** The types a property schema accepts, or undefined when it does not say plainly. */
function acceptedTypes(schema: JsonSchema): Set<string> | undefined {
  if (schema.enum || schema.const !== undefined) return undefined;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    const all = new Set<string>();
    for (const variant of variants) {
      const types = acceptedTypes(variant);
      if (!types) return undefined;
      for (const type of types) all.add(type);
    }
    return all;
  }
  if (schema.type === undefined) return undefined;
  const types = new Set(Array.isArray(schema.type) ? schema.type : [schema.type]);
  if (types.has('integer')) types.add('number');
  return types;
}

/** A value the schema most likely accepts, used as the base the other cases mutate. */
function sampleValue(schema: JsonSchema): unknown {
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  const variant = (schema.anyOf ?? schema.oneOf)?.[0];
  if (variant) return sampleValue(variant);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      if (schema.format === 'date-time') return '2026-01-01T00:00:00Z';
      if (schema.format === 'date') return '2026-01-01';
      if (schema.format === 'uri' || schema.format === 'url') return 'https://example.com/';
      if (schema.format === 'email') return 'someone@example.com';
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    case 'integer':
    case 'number':
      if (!outOfRange(schema, 1)) return 1;
      return schema.minimum ?? (schema.exclusiveMinimum === undefined ? 1 : schema.exclusiveMinimum + 1);
    case 'boolean':
      return true;
    case 'array':
      return schema.items && (schema.minItems ?? 0) > 0
        ? Array.from({ length: schema.minItems ?? 1 }, () => sampleValue(schema.items as JsonSchema))
        : [];
    case 'object':
      return sampleObject(schema);
    case 'null':
      return null;
    default:
      return 'x';
  }
}

function sampleObject(schema: JsonSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of schema.required ?? []) {
    const property = schema.properties?.[key];
    if (property) out[key] = sampleValue(property);
  }
  return out;
}

function wrongTypeValue(types: Set<string>): { label: string; value: unknown } | undefined {
  const candidates: { type: string; value: unknown }[] = [
    { type: 'string', value: 12345 },
    { type: 'number', value: 'not-a-number' },
    { type: 'boolean', value: 'yes' },
    { type: 'array', value: 'not-an-array' },
    { type: 'object', value: ['not', 'an', 'object'] },
  ];
  for (const candidate of candidates) {
    if (!types.has(candidate.type)) continue;
    const valueType = Array.isArray(candidate.value) ? 'array' : typeof candidate.value;
    if (!types.has(valueType))
      return { label: `${JSON.stringify(candidate.value)} for ${candidate.type}`, value: candidate.value };
  }
  return undefined;
}

/** The fuzz battery for one tool, derived from its published input schema. */
export function fuzzCases(descriptor: ToolDescriptor): FuzzCase[] {
  const schema = descriptor.inputSchema as JsonSchema;
  const properties = schema.properties ?? {};
  const base = sampleObject(schema);
  const cases: FuzzCase[] = [
    { label: 'an unknown extra key', args: { ...base, __unexpected_key__: 1 }, expect: 'invalid' },
    {
      label: 'a prototype-pollution key',
      args: JSON.parse(`{"__proto__": {"polluted": true}, "constructor": 1}`),
      expect: 'invalid',
    },
  ];
  for (const key of schema.required ?? []) {
    const { [key]: _dropped, ...rest } = base;
    cases.push({ label: `required "${key}" missing`, args: rest, expect: 'invalid' });
  }
  for (const [key, property] of Object.entries(properties)) {
    const types = acceptedTypes(property);
    const set = (value: unknown) => ({ ...base, [key]: value });
    if (types) {
      const wrong = wrongTypeValue(types);
      if (wrong)
        cases.push({ label: `"${key}" gets ${wrong.label}`, args: set(wrong.value), expect: 'invalid' });
      if (!types.has('null')) cases.push({ label: `"${key}" is null`, args: set(null), expect: 'invalid' });
    }
    if (property.enum) {
      cases.push({
        label: `"${key}" is not one of its enum values`,
        args: set('__not_an_enum_value__'),
        expect: 'invalid',
      });
    }
    if (types?.has('string') && !property.enum) {
      const huge = 'A'.repeat(HUGE_STRING_LENGTH);
      const hugeIsInvalid = property.maxLength !== undefined && property.maxLength < HUGE_STRING_LENGTH;
      cases.push({
        label: `"${key}" is a ${HUGE_STRING_LENGTH}-character string`,
        args: set(huge),
        expect: hugeIsInvalid ? 'invalid' : 'any',
      });
      for (const [label, value] of ODD_STRINGS)
        cases.push({ label: `"${key}" is an ${label}`, args: set(value), expect: 'any' });
    }
    if (types?.has('number')) {
      const integer =
        types.has('integer') && !(Array.isArray(property.type) && property.type.includes('number'));
      cases.push({
        label: `"${key}" is 0`,
        args: set(0),
        expect: outOfRange(property, 0) ? 'invalid' : 'any',
      });
      cases.push({
        label: `"${key}" is -1`,
        args: set(-1),
        expect: outOfRange(property, -1) ? 'invalid' : 'any',
      });
      cases.push({
        label: `"${key}" is 2^53+1`,
        args: set(2 ** 53 + 2),
        expect: outOfRange(property, 2 ** 53 + 2) || integer ? 'invalid' : 'any',
      });
      cases.push({
        label: `"${key}" is 1e308`,
        args: set(1e308),
        expect: outOfRange(property, 1e308) || integer ? 'invalid' : 'any',
      });
      cases.push({
        label: `"${key}" is -1e308`,
        args: set(-1e308),
        expect: outOfRange(property, -1e308) || integer ? 'invalid' : 'any',
      });
      if (integer) cases.push({ label: `"${key}" is 1.5`, args: set(1.5), expect: 'invalid' });
    }
  }
  return cases;
}

function outOfRange(schema: JsonSchema, value: number): boolean {
  return (
    (schema.minimum !== undefined && value < schema.minimum) ||
    (schema.maximum !== undefined && value > schema.maximum) ||
    (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) ||
    (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum)
  );
}
