import { readFile } from 'node:fs/promises';
import { NotFoundError, toolRef } from '@x/mcp-core';

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
const FENCED = /```(?:markdown)?\s*\n([\s\S]*?)\n```/g;

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
  const blocks = [...body.matchAll(FENCED)].map((match) => (match[1] ?? '').trim());
  if (blocks.length > 0) return blocks.join('\n\n');
  const lines = body.split('\n');
  const start = lines.findIndex(
    (line) => line.trim().startsWith('```') || (line.trim().length > 0 && !line.trim().startsWith('*')),
  );
  return start >= 0 ? lines.slice(start).join('\n').trim() : body;
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
