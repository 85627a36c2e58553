/**
 * A strict JSON reader (RFC 8259) that remembers where every key and value is, so a policy
 * file's errors can name the line and column of the offending value (`JSON.parse` knows neither,
 * and silently keeps the last of two duplicate keys). Hostile input is refused with a clear
 * error instead of a stack overflow or a prototype change: nesting is bounded, duplicate keys are
 * an error, and every key (`__proto__` too) becomes an own property.
 */

/** A 1-based line and column (columns count UTF-16 code units, as editors mostly do). */
export interface Position {
  line: number;
  column: number;
}

/** A path into the value: object keys and array indexes. */
export type JsonPath = readonly (string | number)[];

export interface LocatedJson {
  value: unknown;
  /** Where the value at `path` starts. */
  valueAt(path: JsonPath): Position | undefined;
  /** Where the key of the member at `path` (its last element is the key) starts. */
  keyAt(path: JsonPath): Position | undefined;
}

/** The JSON text is not valid (or too deep, or repeats a key): where and why. */
export class JsonSyntaxError extends Error {
  constructor(
    readonly position: Position,
    readonly reason: string,
  ) {
    super(`line ${position.line}, column ${position.column}: ${reason}`);
    this.name = 'JsonSyntaxError';
  }
}

/** Deepest nesting of objects and arrays accepted (a policy needs 4). */
export const MAX_JSON_DEPTH = 32;

const pathKey = (path: JsonPath): string => JSON.stringify(path);

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** Parses `text` (a leading byte order mark is ignored); throws {@link JsonSyntaxError}. */
export function parseLocatedJson(text: string): LocatedJson {
  const values = new Map<string, Position>();
  const keys = new Map<string, Position>();
  let index = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  // Line starts seen so far, for positions: found once, as the reader moves forward.
  let line = 1;
  let lineStart = index === 1 ? 1 : 0;
  let scanned = index;

  const positionOf = (at: number): Position => {
    // Positions are asked for in increasing order except for error reports, which may look back.
    if (at < scanned) {
      let l = 1;
      let start = 0;
      for (let i = 0; i < at; i++) {
        if (text.charCodeAt(i) === 10) {
          l++;
          start = i + 1;
        }
      }
      return { line: l, column: at - start + 1 };
    }
    for (; scanned < at; scanned++) {
      if (text.charCodeAt(scanned) === 10) {
        line++;
        lineStart = scanned + 1;
      }
    }
    return { line, column: at - lineStart + 1 };
  };
  const fail = (reason: string, at = index): never => {
    throw new JsonSyntaxError(positionOf(Math.min(at, text.length)), reason);
  };
  const describe = (at: number): string =>
    at >= text.length ? 'the end of the file' : `${JSON.stringify(text[at])}`;

  const skipSpace = () => {
    for (;;) {
      const code = text.charCodeAt(index);
      if (code === 32 || code === 9 || code === 10 || code === 13) index++;
      else return;
    }
  };

  const readString = (): string => {
    const start = index;
    index++; // the opening quote
    let out = '';
    let chunk = index;
    for (;;) {
      if (index >= text.length) fail('a string is not closed', start);
      const code = text.charCodeAt(index);
      if (code === 34) {
        out += text.slice(chunk, index);
        index++;
        return out;
      }
      if (code < 0x20) fail('a control character (such as a line break) inside a string');
      if (code === 92) {
        out += text.slice(chunk, index);
        const escaped = text[index + 1] ?? '';
        if (escaped === 'u') {
          const hex = text.slice(index + 2, index + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('\\u must be followed by four hex digits');
          out += String.fromCharCode(Number.parseInt(hex, 16));
          index += 6;
        } else {
          const replacement = ESCAPES[escaped];
          if (replacement === undefined) fail(`unknown escape \\${escaped}`);
          out += replacement;
          index += 2;
        }
        chunk = index;
        continue;
      }
      index++;
    }
  };

  const readValue = (path: (string | number)[], depth: number): unknown => {
    skipSpace();
    values.set(pathKey(path), positionOf(index));
    const char = text[index];
    if (char === '{' || char === '[') {
      if (depth >= MAX_JSON_DEPTH) fail(`nested deeper than ${MAX_JSON_DEPTH} levels`);
      return char === '{' ? readObject(path, depth + 1) : readArray(path, depth + 1);
    }
    if (char === '"') return readString();
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, index)) {
        index += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = index;
    const number = NUMBER.exec(text);
    if (number) {
      index += number[0].length;
      return Number(number[0]);
    }
    return fail(`expected a value, found ${describe(index)}`);
  };

  const readObject = (path: (string | number)[], depth: number): Record<string, unknown> => {
    const object: Record<string, unknown> = {};
    const seen = new Map<string, Position>();
    index++;
    skipSpace();
    if (text[index] === '}') {
      index++;
      return object;
    }
    for (;;) {
      skipSpace();
      if (text[index] !== '"') fail(`expected a key in double quotes, found ${describe(index)}`);
      const keyPosition = positionOf(index);
      const key = readString();
      const first = seen.get(key);
      if (first) {
        throw new JsonSyntaxError(
          keyPosition,
          `duplicate key ${JSON.stringify(key)} (first at line ${first.line}, column ${first.column})`,
        );
      }
      seen.set(key, keyPosition);
      const memberPath = [...path, key];
      keys.set(pathKey(memberPath), keyPosition);
      skipSpace();
      if (text[index] !== ':')
        fail(`expected ":" after the key ${JSON.stringify(key)}, found ${describe(index)}`);
      index++;
      // An own property, whatever the key (`__proto__` does not change the prototype).
      Object.defineProperty(object, key, {
        value: readValue(memberPath, depth),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      skipSpace();
      if (text[index] === ',') {
        index++;
        continue;
      }
      if (text[index] === '}') {
        index++;
        return object;
      }
      fail(`expected "," or "}" after a member, found ${describe(index)}`);
    }
  };

  const readArray = (path: (string | number)[], depth: number): unknown[] => {
    const array: unknown[] = [];
    index++;
    skipSpace();
    if (text[index] === ']') {
      index++;
      return array;
    }
    for (;;) {
      array.push(readValue([...path, array.length], depth));
      skipSpace();
      if (text[index] === ',') {
        index++;
        continue;
      }
      if (text[index] === ']') {
        index++;
        return array;
      }
      fail(`expected "," or "]" after an element, found ${describe(index)}`);
    }
  };

  skipSpace();
  if (index >= text.length) fail('the file is empty');
  const value = readValue([], 0);
  skipSpace();
  if (index < text.length) fail(`unexpected ${describe(index)} after the end of the JSON value`);
  return {
    value,
    valueAt: (path) => values.get(pathKey(path)),
    keyAt: (path) => keys.get(pathKey(path)),
  };
}
