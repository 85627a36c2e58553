/** Character tests and a search helper for the linear scanners that replace backtracking regexes. */

/**
 * `text.indexOf(needle, from)` for a caller whose `from` never decreases, remembering the last
 * answer so that the whole scan reads the text once instead of once per question.
 */
export function nextIndexOf(text: string, needle: string): (from: number) => number {
  let askedFrom = -1;
  let answer = -1;
  return (from) => {
    const stillValid = askedFrom >= 0 && from >= askedFrom && (answer < 0 || from <= answer);
    if (!stillValid) {
      answer = text.indexOf(needle, from);
      askedFrom = from;
    }
    return answer;
  };
}

/** `\w` without the `u` flag: ASCII letters, digits and `_`. */
export function isWordChar(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) || // a-z
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x30 && code <= 0x39) || // 0-9
    code === 0x5f // _
  );
}

/** `\s`: the ECMAScript WhiteSpace and LineTerminator characters. */
export function isRegExpSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
