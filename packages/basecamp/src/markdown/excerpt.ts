/** Where a cut may go, and which emphasis is open there. */
interface Candidate {
  position: number;
  /** 2: a blank line, 1: a line break, 0: a space. */
  strength: number;
  open: string[];
}

/** How far a link or code span is looked for past its opening (keeps the scan linear). */
const LOOKAHEAD = 2_000;

/**
 * Markdown cut to at most `max` characters at a Markdown boundary: never inside a link or image
 * (`[...](...)`), a code span or a fenced block, and with any emphasis open at the cut closed
 * again. Prefers a paragraph break, then a line break, then a space. A cut text ends in `…`.
 * One pass over the first `max` characters, with bounded look-ahead.
 */
export function excerpt(markdown: string, max: number): { text: string; truncated: boolean } {
  if (markdown.length <= max) return { text: markdown, truncated: false };
  // Room for the closing of up to three emphasis pairs and the ellipsis.
  const budget = Math.max(1, max - 8);
  const candidates: Candidate[] = [];
  const open: string[] = [];
  let stop = budget;
  let index = 0;

  const toggle = (delimiter: string) => {
    const at = open.lastIndexOf(delimiter);
    if (at === -1) open.push(delimiter);
    else open.splice(at);
  };

  scan: while (index < budget) {
    const character = markdown[index] as string;
    const lineStart = index === 0 || markdown[index - 1] === '\n';

    if (lineStart) {
      const fence = /^ {0,3}(`{3,}|~{3,})/.exec(markdown.slice(index, index + 64));
      if (fence?.[1]) {
        const marker = fence[1];
        const close = closingFence(markdown, index + fence[0].length, marker);
        if (close !== -1 && close <= budget) {
          candidates.push({ position: index, strength: 2, open: [...open] });
          index = close;
          continue;
        }
        // A code block running past the cut: close it at a line break inside (or, for one long
        // line, inside the line: code has no Markdown to break), or cut before it.
        const room = budget - marker.length - 2;
        const inside = markdown.lastIndexOf('\n', room);
        const opening = markdown.indexOf('\n', index);
        const cut = inside > opening ? inside : room;
        if (open.length === 0 && opening !== -1 && cut > opening && index < budget / 2) {
          return { text: `${markdown.slice(0, cut)}\n${marker}\n…`, truncated: true };
        }
        stop = index;
        break;
      }
    }

    switch (character) {
      case '\\':
        index += 2;
        continue;
      case '\n':
      case ' ':
      case '\t': {
        const strength = character === '\n' ? (markdown[index - 1] === '\n' ? 2 : 1) : 0;
        candidates.push({ position: index, strength, open: [...open] });
        index++;
        continue;
      }
      case '`': {
        const run = runLength(markdown, index, '`');
        const close = closingRun(markdown, index + run, run);
        if (close === -1) {
          index += run;
          continue;
        }
        if (close + run > budget) {
          stop = index;
          break scan;
        }
        index = close + run;
        continue;
      }
      case '!':
      case '[': {
        const start = character === '!' ? index + 1 : index;
        if (markdown[start] !== '[') break;
        const end = linkEnd(markdown, start);
        if (end === -1) break;
        if (end > budget) {
          stop = index;
          break scan;
        }
        index = end;
        continue;
      }
      case '*':
      case '_':
      case '~': {
        const run = runLength(markdown, index, character);
        const before = markdown[index - 1];
        const after = markdown[index + run];
        const spaceBefore = before === undefined || /\s/.test(before);
        const spaceAfter = after === undefined || /\s/.test(after);
        const intraword = character === '_' && isWord(before) && isWord(after);
        if (!(spaceBefore && spaceAfter) && !intraword && !(character === '~' && run < 2)) {
          if (character === '~') toggle('~~');
          else {
            if (run >= 2) toggle(character.repeat(2));
            if (run % 2 === 1) toggle(character);
          }
        }
        index += run;
        continue;
      }
    }
    index++;
  }

  const usable = candidates.filter((candidate) => candidate.position <= stop);
  const pick =
    last(usable, (candidate) => candidate.strength === 2 && candidate.position >= stop * 0.6) ??
    last(usable, (candidate) => candidate.strength >= 1 && candidate.position >= stop * 0.6) ??
    last(usable, () => true);
  const position = pick?.position ?? stop;
  const closers = (pick?.open ?? (position === stop ? open : [])).slice().reverse().join('');
  return { text: `${markdown.slice(0, position).trimEnd()}${closers}…`, truncated: true };
}

function last<T>(items: T[], test: (item: T) => boolean): T | undefined {
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index] as T;
    if (test(item)) return item;
  }
  return undefined;
}

const isWord = (character: string | undefined) => character !== undefined && /[\p{L}\p{N}]/u.test(character);

function runLength(text: string, start: number, character: string): number {
  let end = start;
  while (text[end] === character) end++;
  return end - start;
}

/** Start of the next backtick run of exactly `length` after `from`, within the look-ahead. */
function closingRun(text: string, from: number, length: number): number {
  const limit = Math.min(text.length, from + LOOKAHEAD);
  let index = from;
  while (index < limit) {
    const found = text.indexOf('`', index);
    if (found === -1 || found >= limit) return -1;
    const run = runLength(text, found, '`');
    if (run === length) return found;
    index = found + run;
  }
  return -1;
}

/** End (after the newline) of the line closing a fenced block opened with `marker`. */
function closingFence(text: string, from: number, marker: string): number {
  let index = text.indexOf('\n', from);
  while (index !== -1) {
    const lineStart = index + 1;
    let at = lineStart;
    while (text[at] === ' ' && at - lineStart < 8) at++;
    if (text.startsWith(marker, at)) {
      const lineEnd = text.indexOf('\n', at);
      return lineEnd === -1 ? text.length : lineEnd;
    }
    index = text.indexOf('\n', lineStart);
  }
  return -1;
}

/** End of `[label](destination)` starting at `start`, or -1 when it is not a complete link. */
function linkEnd(text: string, start: number): number {
  const limit = Math.min(text.length, start + LOOKAHEAD);
  let depth = 0;
  let index = start;
  for (; index < limit; index++) {
    const character = text[index];
    if (character === '\\') index++;
    else if (character === '[') depth++;
    else if (character === ']') {
      depth--;
      if (depth === 0) break;
    } else if (character === '\n' && text[index + 1] === '\n') return -1;
  }
  if (index >= limit || text[index + 1] !== '(') return -1;
  index += 2;
  if (text[index] === '<') {
    const close = text.indexOf('>', index);
    if (close === -1 || close >= limit || text[close + 1] !== ')') return -1;
    return close + 2;
  }
  let parens = 0;
  for (; index < limit; index++) {
    const character = text[index];
    if (character === '\\') index++;
    else if (character === '(') parens++;
    else if (character === ')') {
      if (parens === 0) return index + 1;
      parens--;
    } else if (character === '\n' || character === ' ') return -1;
  }
  return -1;
}
