import { describe, expect, it } from 'vitest';
import { fencedBlocks } from './prompts.js';
import { statementKeyOf } from './statements.js';

// The app's expressions, which our scanners must agree with on every input.
const appFencedBlocks = (text: string) =>
  [...text.matchAll(/```(?:markdown)?\s*\n([\s\S]*?)\n```/g)].map((match) => match[1]);
const appStatementKey = (line: string) =>
  /<!--\s*key:\s*([^,]+),\s*editable:\s*(true|false)\s*-->/.exec(line)?.[1]?.trim();

/** A small deterministic generator, so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generate(seed: number, pieces: readonly string[], maxPieces: number): string {
  const next = random(seed);
  const length = 1 + Math.floor(next() * maxPieces);
  let text = '';
  for (let i = 0; i < length; i++) text += pieces[Math.floor(next() * pieces.length)];
  return text;
}

const FENCE_PIECES = [
  '```',
  '```markdown',
  'markdown',
  '\n',
  '\n',
  ' ',
  '\t',
  '\r',
  '\u00a0',
  'x',
  '`',
  '``',
];
const KEY_PIECES = [
  '<!--',
  '<!-- key: ',
  'key:',
  ' ',
  '\t',
  ',',
  ', ',
  'editable:',
  ' editable: ',
  'true',
  'false',
  '-->',
  ' -->',
  'x',
  '<!-',
  '-',
];

// The grammar of a key line, one part at a time; `nearKeyLine` damages it here and there.
const KEY_LINE_PARTS = [
  '<!--',
  ' ',
  'key:',
  ' ',
  'start, x',
  ',',
  ' ',
  'editable:',
  '\t',
  'true',
  ' ',
  '-->',
];

/** One to three key lines in a row, each part replaced by a random piece one time in five. */
function nearKeyLine(seed: number): string {
  const next = random(seed);
  let line = '';
  const repeats = 1 + Math.floor(next() * 3);
  for (let r = 0; r < repeats; r++) {
    for (const part of KEY_LINE_PARTS) {
      line += next() < 0.2 ? (KEY_PIECES[Math.floor(next() * KEY_PIECES.length)] as string) : part;
    }
  }
  return line;
}

describe('the prompt and statement scanners give the app’s results', () => {
  it('fenced blocks, on 30,000 generated texts', () => {
    for (let seed = 1; seed <= 30_000; seed++) {
      const text = generate(seed, FENCE_PIECES, 20);
      const actual = fencedBlocks(text);
      const expected = appFencedBlocks(text);
      if (JSON.stringify(actual) !== JSON.stringify(expected))
        expect({ seed, text, actual }).toEqual({ seed, text, actual: expected });
    }
  });

  it('statement key lines, on 30,000 generated lines', () => {
    for (let seed = 1; seed <= 30_000; seed++) {
      const line = seed % 2 ? generate(seed, KEY_PIECES, 16) : nearKeyLine(seed);
      const actual = statementKeyOf(line);
      const expected = appStatementKey(line);
      if (actual !== expected) expect({ seed, line, actual }).toEqual({ seed, line, actual: expected });
    }
  });
});

// A prompt file or statements file sits in the project directory, possibly a vendored repository:
// it can be any size. These took the app's expressions 20-40 s each; the limit catches a scanner
// that backtracks again (no timing is asserted otherwise).
describe('the prompt and statement scanners stay linear on hostile files', () => {
  const LIMIT = { timeout: 10_000 };

  it('a fence followed by 300,000 newlines', LIMIT, () => {
    expect(fencedBlocks(`\`\`\`${'\n'.repeat(300_000)}`)).toEqual([]);
  });

  it('a line of 30,000 `<!-- key: a` without a comma', LIMIT, () => {
    expect(statementKeyOf('<!-- key: a'.repeat(30_000))).toBeUndefined();
  });

  it('20,000 `<!-- key: a` before one comma followed by 200,000 spaces', LIMIT, () => {
    expect(statementKeyOf(`${'<!-- key: a'.repeat(20_000)},${' '.repeat(200_000)}x`)).toBeUndefined();
  });
});
