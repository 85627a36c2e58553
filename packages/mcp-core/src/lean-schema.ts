/**
 * What a tool's JSON Schema does not need to say (docs/decisions/0025-lean-tool-schemas.md).
 * Every rewrite here keeps what is valid exactly as our own zod check decides it.
 */

/** zod's bounds of `z.int()`: the safe-integer range, which `"type": "integer"` adds nothing to. */
const SAFE_BOUND = Number.MAX_SAFE_INTEGER;

interface OverrideContext {
  zodSchema: unknown;
  jsonSchema: Record<string, unknown>;
}

/**
 * A zod `toJSONSchema` override for output schemas: a plain `z.object` ignores keys it does not
 * know when it checks a result (our output check, `safeParse`, strips them), so its JSON Schema
 * does not forbid them either. A `z.strictObject`, which rejects them, keeps
 * `additionalProperties: false`.
 */
export function openPlainObjects(context: OverrideContext): void {
  const def = (context.zodSchema as { _zod?: { def?: { type?: unknown; catchall?: unknown } } })._zod?.def;
  if (
    def?.type === 'object' &&
    def.catchall === undefined &&
    context.jsonSchema.additionalProperties === false
  ) {
    delete context.jsonSchema.additionalProperties;
  }
}

/**
 * Drops what says nothing, in place: the root's `$schema` (2020-12 is MCP's default dialect, and
 * every tool's schema would repeat it) and integer bounds that are the safe-integer range
 * (`z.int()` writes ±9007199254740991 on every integer). An integer's exclusive bound is written
 * as the inclusive one it equals (`.positive()`'s `exclusiveMinimum: 0` is `minimum: 1`): shorter,
 * and the form clients that map schemas onto function declarations know.
 */
export function dropNoise(root: Record<string, unknown>): Record<string, unknown> {
  delete root.$schema;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const schema = node as Record<string, unknown>;
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (types.includes('integer')) {
      if (schema.minimum === -SAFE_BOUND) delete schema.minimum;
      if (schema.maximum === SAFE_BOUND) delete schema.maximum;
      if (types.length === 1) inclusiveBounds(schema);
    }
    for (const value of Object.values(schema)) visit(value);
  };
  visit(root);
  return root;
}

/** `exclusiveMinimum: n` of an integer as `minimum: n + 1` (and the maximum alike), when equal. */
function inclusiveBounds(schema: Record<string, unknown>): void {
  const { exclusiveMinimum: low, exclusiveMaximum: high } = schema;
  if (
    Number.isSafeInteger(low) &&
    (schema.minimum === undefined || (schema.minimum as number) <= (low as number))
  ) {
    delete schema.exclusiveMinimum;
    schema.minimum = (low as number) + 1;
  }
  if (
    Number.isSafeInteger(high) &&
    (schema.maximum === undefined || (schema.maximum as number) >= (high as number))
  ) {
    delete schema.exclusiveMaximum;
    schema.maximum = (high as number) - 1;
  }
}

/** Keywords whose value is one schema, a map of schemas, or a list of schemas (2020-12). */
const ONE_SCHEMA = [
  'items',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
];
const SCHEMA_MAP = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
const SCHEMA_LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];

type Schema = Record<string, unknown>;

interface Place {
  /** The object or array holding the schema. */
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  /** The property the schema describes, when it is one (a name for its definition). */
  property: string | undefined;
}

/** Every subschema of `root` (not `root` itself), with where it sits. */
function subschemas(root: Schema): Array<{ schema: Schema; place: Place }> {
  const found: Array<{ schema: Schema; place: Place }> = [];
  const visit = (schema: Schema, property: string | undefined): void => {
    const at = (holder: Place['holder'], key: string | number, name: string | undefined) => {
      const value = (holder as Record<string | number, unknown>)[key];
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
      found.push({ schema: value as Schema, place: { holder, key, property: name } });
      visit(value as Schema, name);
    };
    for (const keyword of ONE_SCHEMA) if (keyword in schema) at(schema, keyword, property);
    for (const keyword of SCHEMA_MAP) {
      const map = schema[keyword];
      if (typeof map !== 'object' || map === null || Array.isArray(map)) continue;
      for (const name of Object.keys(map))
        at(map as Schema, name, keyword === 'properties' ? name : property);
    }
    for (const keyword of SCHEMA_LIST) {
      const list = schema[keyword];
      if (!Array.isArray(list)) continue;
      for (let index = 0; index < list.length; index++) at(list, index, property);
    }
  };
  visit(root, undefined);
  return found;
}

const bytes = (value: unknown) => JSON.stringify(value).length;

/**
 * Writes each shape that `root` repeats once, under `$defs`, and refers to it with `$ref`
 * wherever it appeared, when that makes the schema shorter (in place). A shape is a subschema
 * equal in every keyword, descriptions included, so nothing valid or shown changes. Greedy: the
 * shape that saves most first, until none saves anything.
 */
export function shareRepeatedShapes(root: Schema): Schema {
  for (;;) {
    // Equal subschemas get equal ids: each value's id comes from its keys and its children's ids
    // (linear in the size of the schema, where comparing serializations would not be).
    const ids = new Map<string, number>();
    const known = new WeakMap<object, number>();
    const intern = (signature: string): number => {
      let id = ids.get(signature);
      if (id === undefined) {
        id = ids.size;
        ids.set(signature, id);
      }
      return id;
    };
    const idOf = (value: unknown): number => {
      if (typeof value === 'string') return intern(`s${value}`);
      if (typeof value !== 'object' || value === null) return intern(`p${String(value)}`);
      const cached = known.get(value);
      if (cached !== undefined) return cached;
      let signature = Array.isArray(value) ? '[' : '{';
      if (Array.isArray(value)) for (const item of value) signature += `${idOf(item)},`;
      else for (const key in value) signature += `${idOf(key)}:${idOf((value as Schema)[key])},`;
      const id = intern(signature);
      known.set(value, id);
      return id;
    };
    const groups = new Map<number, Array<{ schema: Schema; place: Place }>>();
    for (const found of subschemas(root)) {
      // A reference is already as short as a shape gets.
      if ('$ref' in found.schema && Object.keys(found.schema).length === 1) continue;
      const id = idOf(found.schema);
      const group = groups.get(id);
      if (group) group.push(found);
      else groups.set(id, [found]);
    }
    const defs = (root.$defs ?? {}) as Schema;
    let best: { group: Array<{ schema: Schema; place: Place }>; name: string; saving: number } | undefined;
    for (const group of groups.values()) {
      if (group.length < 2) continue;
      const name = definitionName(group, defs);
      const reference = bytes({ $ref: `#/$defs/${name}` });
      // "name": plus a comma beside the other definitions; "$defs":{}, once.
      const overhead = name.length + 4 + (root.$defs ? 0 : 10);
      const saving = (group.length - 1) * bytes(group[0]?.schema) - group.length * reference - overhead;
      if (saving > 0 && (!best || saving > best.saving)) best = { group, name, saving };
    }
    if (!best) return root;
    defs[best.name] = best.group[0]?.schema;
    for (const { place } of best.group) {
      (place.holder as Record<string | number, unknown>)[place.key] = { $ref: `#/$defs/${best.name}` };
    }
    // $defs last: the schema reads top-down, its shared shapes after.
    delete root.$defs;
    root.$defs = defs;
  }
}

/**
 * The property's name when every place the shape sits in is that property, `<type>_or_null` for
 * a nullable primitive, else `shape`: a name must not suggest a meaning that some places lack.
 */
function definitionName(group: ReadonlyArray<{ schema: Schema; place: Place }>, taken: Schema): string {
  const property = group[0]?.place.property;
  const variants = group[0]?.schema.anyOf;
  let base = 'shape';
  if (
    property &&
    /^[A-Za-z_][A-Za-z0-9_]{0,40}$/.test(property) &&
    group.every((found) => found.place.property === property)
  ) {
    base = property;
  } else if (
    Array.isArray(variants) &&
    variants.length === 2 &&
    Object.keys(group[0]?.schema ?? {}).length === 1 &&
    JSON.stringify(variants[1]) === '{"type":"null"}' &&
    typeof variants[0]?.type === 'string' &&
    Object.keys(variants[0]).length === 1
  ) {
    base = `${variants[0].type}_or_null`;
  }
  if (!(base in taken)) return base;
  for (let suffix = 2; ; suffix++) if (!(`${base}${suffix}` in taken)) return `${base}${suffix}`;
}
