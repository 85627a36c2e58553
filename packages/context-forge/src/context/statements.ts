import { readFile } from 'node:fs/promises';

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

const KEY_LINE = /<!--\s*key:\s*([^,]+),\s*editable:\s*(true|false)\s*-->/;

/** The statements a file defines, by key; sections without a key line or text are skipped. */
export function parseStatements(markdown: string): Record<string, string> {
  const statements: Record<string, string> = {};
  for (const section of markdown.split(/^## /m)) {
    const lines = section.split('\n');
    const keyLine = lines.findIndex((line) => KEY_LINE.test(line));
    if (keyLine < 0) continue;
    const key = KEY_LINE.exec(lines[keyLine] ?? '')?.[1]?.trim() ?? '';
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
