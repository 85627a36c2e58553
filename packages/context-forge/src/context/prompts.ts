import { readFile } from 'node:fs/promises';
import { NotFoundError, toolRef } from '@x/mcp-core';
import { isRegExpSpace, nextIndexOf } from './scan.js';

/** One prompt of a project's prompt file (`##### Name` section). */
export interface PromptTemplate {
  /** The section header, e.g. `Implementation (Phase 6)`. */
  name: string;
  /** Derived from the header, e.g. `implementation-phase-6`. */
  key: string;
  /** The fenced block(s) of the section, else its text. */
  content: string;
  /** Placeholder names found in the content (`{project}`, `{{slice}}`, ...). */
  parameters: string[];
}

const SECTION = /^##### (.+)$/m;

/** Parses a prompt file the way the app does. */
export function parsePrompts(markdown: string): PromptTemplate[] {
  const parts = markdown.split(new RegExp(SECTION.source, 'gm'));
  const prompts: PromptTemplate[] = [];
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i]?.trim();
    const body = parts[i + 1]?.trim();
    if (!name || !body) continue;
    const content = promptContent(body);
    if (!content) continue;
    prompts.push({ name, key: keyOf(name), content, parameters: parametersOf(content) });
  }
  return prompts;
}

function promptContent(body: string): string {
  const blocks = fencedBlocks(body).map((block) => block.trim());
  if (blocks.length > 0) return blocks.join('\n\n');
  const lines = body.split('\n');
  const start = lines.findIndex(
    (line) => line.trim().startsWith('```') || (line.trim().length > 0 && !line.trim().startsWith('*')),
  );
  return start >= 0 ? lines.slice(start).join('\n').trim() : body;
}

const FENCE = '```';
const CLOSING_FENCE = '\n```';

/**
 * The inside of each fenced block, as the app's ``/```(?:markdown)?\s*\n([\s\S]*?)\n```/g`` finds
 * them, in linear time (that expression backtracks: one fence followed by many blank lines took
 * it quadratic time). After an opening fence (and `markdown`), the `\s*\n` settles on the last
 * newline of the whitespace that follows, and the block runs to the next "\n```". Without one,
 * the only other way to match is a block of the whitespace itself, when that whitespace ends in a
 * newline right before "```" and holds another newline.
 */
export function fencedBlocks(text: string): string[] {
  const blocks: string[] = [];
  const nextClosing = nextIndexOf(text, CLOSING_FENCE);
  let from = 0;
  for (;;) {
    const open = text.indexOf(FENCE, from);
    if (open < 0) break;
    let position = open + FENCE.length;
    if (text.startsWith('markdown', position)) position += 'markdown'.length;
    let lastNewline = -1;
    let previousNewline = -1;
    while (position < text.length && isRegExpSpace(text.charCodeAt(position))) {
      if (text.charCodeAt(position) === 0x0a) {
        previousNewline = lastNewline;
        lastNewline = position;
      }
      position++;
    }
    if (lastNewline < 0) {
      from = open + 1;
      continue;
    }
    const close = nextClosing(lastNewline + 1);
    if (close >= 0) {
      blocks.push(text.slice(lastNewline + 1, close));
      from = close + CLOSING_FENCE.length;
    } else if (previousNewline >= 0 && lastNewline === position - 1 && text.startsWith(FENCE, position)) {
      blocks.push(text.slice(previousNewline + 1, lastNewline));
      from = position + FENCE.length;
    } else {
      from = open + 1;
    }
  }
  return blocks;
}

export const keyOf = (name: string): string =>
  name
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .replace(/\s+/g, '-')
    .replace(/--+/g, '-')
    .trim();

const parametersOf = (content: string): string[] => [
  ...new Set([...content.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? '')),
];

/** Reads and parses a prompt file; a missing file is a `NOT_FOUND` naming the path expected. */
export async function loadPrompts(path: string): Promise<PromptTemplate[]> {
  let markdown: string;
  try {
    markdown = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new NotFoundError(
        `No prompt file at ${path}. Context Forge reads prompts from ` +
          '<projectPath>/project-documents/ai-project-guide/project-guides/prompt.ai-project.system.md; ' +
          `check the project path (${toolRef('project_get')}) or add the ai-project-guide to the project.`,
        { details: { path } },
      );
    }
    throw error;
  }
  return parsePrompts(markdown);
}

/** A prompt by name (case-insensitive) or exact key, as `prompt_get` takes it. */
export function findPrompt(prompts: readonly PromptTemplate[], nameOrKey: string): PromptTemplate {
  const lower = nameOrKey.toLowerCase();
  const match = prompts.find((prompt) => prompt.name.toLowerCase() === lower || prompt.key === nameOrKey);
  if (match) return match;
  throw new NotFoundError(
    `Template not found: '${nameOrKey}'. Use the ${toolRef('prompt_list')} tool to see the templates of this project.`,
    { details: { candidates: prompts.slice(0, 20).map((prompt) => prompt.name) } },
  );
}

/** The prompt the app puts into a context for `instruction`: the first whose name or key contains it. */
export function promptForInstruction(
  prompts: readonly PromptTemplate[],
  instruction: string,
): PromptTemplate | undefined {
  const lower = instruction.toLowerCase();
  return prompts.find((prompt) => prompt.name.toLowerCase().includes(lower) || prompt.key.includes(lower));
}

/** The context initialization prompt; monorepo projects prefer a monorepo variant. */
export function contextInitializationPrompt(
  prompts: readonly PromptTemplate[],
  isMonorepo: boolean,
): PromptTemplate | undefined {
  const named = (prompt: PromptTemplate, text: string) => prompt.name.toLowerCase().includes(text);
  if (isMonorepo) {
    const variant = prompts.find(
      (prompt) => named(prompt, 'context initialization') && named(prompt, 'monorepo'),
    );
    if (variant) return variant;
  }
  return prompts.find(
    (prompt) =>
      (prompt.key === 'context-initialization' ||
        named(prompt, 'context initialization') ||
        named(prompt, 'model change') ||
        named(prompt, 'context refresh')) &&
      !named(prompt, 'monorepo'),
  );
}

/** The prompt on using third-party tools, if the file has one. */
export function toolUsePrompt(prompts: readonly PromptTemplate[]): PromptTemplate | undefined {
  return prompts.find(
    (prompt) => prompt.key === 'use-3rd-party-tool' || prompt.name.toLowerCase().includes('tool usage'),
  );
}
