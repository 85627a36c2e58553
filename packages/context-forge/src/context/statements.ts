import { readFile } from 'node:fs/promises';
import { isRegExpSpace, nextIndexOf } from './scan.js';

/**
 * The fixed sentences of a context ("Continuing work on ..."), overridable per project in
 * `<projectPath>/default-statements.md`: `## Title` sections, each with a
 * `<!-- key: <key>, editable: true|false -->` line followed by the text.
 */
export const DEFAULT_STATEMENTS: Readonly<Record<string, string>> = {
  'start-project-statement':
    'Starting work on {{projectName}}. Project information, environment context, instructions, and notes follow:',
  'continue-project-statement':
    'Continuing work on {{projectName}}. Project information, environment context, instructions, and notes follow:',
  'tool-intro-statement': 'The following tools and MCP servers are available for this project:',
  'instruction-intro-statement': 'Current development phase and instructions:',
  'monorepo-statement':
    'Project is configured as a monorepo. Working in package: {{template}}, Slice: {{slice}}',
  'current-events-header': '### Current Project State',
  'additional-notes-header': '### Additional Notes',
  'no-tools-statement': 'No additional tools or MCP servers detected for this session.',
  'custom-instruction-statement': 'Custom instruction provided: {{instruction}}',
};

/**
 * The key of a `<!-- key: start-project-statement, editable: true -->` line, as the app's
 * `/<!--\s*key:\s*([^,]+),\s*editable:\s*(true|false)\s*-->/` reads it (trimmed), or undefined.
 * A linear scan: the expression is quadratic on a line of many `<!-- key:` without a comma.
 */
export function statementKeyOf(line: string): string | undefined {
  const nextComma = nextIndexOf(line, ',');
  let failedComma = -1;
  let from = 0;
  for (;;) {
    const open = line.indexOf('<!--', from);
    if (open < 0) return undefined;
    from = open + 1;
    let position = skipSpaces(line, open + 4);
    if (!line.startsWith('key:', position)) continue;
    const keyStart = position + 4;
    // `\s*([^,]+),`: the key runs to the first comma and holds at least one character.
    const comma = nextComma(keyStart);
    if (comma < 0) return undefined;
    if (comma === keyStart || comma === failedComma) continue;
    position = skipSpaces(line, comma + 1);
    let matched = line.startsWith('editable:', position);
    if (matched) {
      position = skipSpaces(line, position + 'editable:'.length);
      const flag = line.startsWith('true', position) ? 4 : line.startsWith('false', position) ? 5 : 0;
      matched = flag > 0 && line.startsWith('-->', skipSpaces(line, position + flag));
    }
    if (matched) return line.slice(keyStart, comma).trim();
    failedComma = comma; // what follows a comma decides alone: the next openers before it fail too
  }
}

function skipSpaces(text: string, from: number): number {
  let position = from;
  while (position < text.length && isRegExpSpace(text.charCodeAt(position))) position++;
  return position;
}

/** The statements a file defines, by key; sections without a key line or text are skipped. */
export function parseStatements(markdown: string): Record<string, string> {
  const statements: Record<string, string> = {};
  for (const section of markdown.split(/^## /m)) {
    const lines = section.split('\n');
    const keyLine = lines.findIndex((line) => statementKeyOf(line) !== undefined);
    if (keyLine < 0) continue;
    const key = statementKeyOf(lines[keyLine] ?? '') ?? '';
    const text = lines
      .slice(keyLine + 1)
      .filter((line) => !/^##\s/.test(line))
      .join('\n')
      .trim();
    if (text) statements[key] = text;
  }
  return statements;
}

/** The project's statements over the defaults; a missing or unreadable file means the defaults. */
export async function loadStatements(path: string): Promise<Record<string, string>> {
  let markdown: string;
  try {
    markdown = await readFile(path, 'utf8');
  } catch {
    return { ...DEFAULT_STATEMENTS };
  }
  return { ...DEFAULT_STATEMENTS, ...parseStatements(markdown) };
}
