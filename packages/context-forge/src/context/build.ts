import { join } from 'node:path';
import { ConflictError, toolRef } from '@x/mcp-core';
import { STATEMENTS_FILE_RELATIVE_PATH } from '../paths.js';
import type { Project, WorkType } from '../store/project.js';
import { projectRoot, promptFileOf } from './project-files.js';
import {
  contextInitializationPrompt,
  loadPrompts,
  type PromptTemplate,
  promptForInstruction,
  toolUsePrompt,
} from './prompts.js';
import { loadStatements } from './statements.js';
import { renderTemplate, type TemplateData } from './template.js';

/** Values that replace the stored ones for one context, never saved. */
export interface ContextOverrides {
  slice?: string;
  taskFile?: string;
  instruction?: string;
  developmentPhase?: string;
  workType?: WorkType;
}

export interface BuildContextOptions {
  overrides?: ContextOverrides;
  /** Appended after the context, separated by a blank line. */
  additionalInstructions?: string;
  /** The date shown when the project has no `projectDate`. Default: today (UTC), as the app does. */
  today?: string;
}

/**
 * The context prompt the Context Forge app generates for a project: its sections in the app's
 * order and format, from the project's prompt file and statements (see the package README for the
 * differences we chose).
 */
export async function buildContext(project: Project, options: BuildContextOptions = {}): Promise<string> {
  const working = { ...project, ...definedOnly(options.overrides ?? {}) };
  const root = projectRoot(project, 'generating context');
  const [prompts, statements] = await Promise.all([
    loadPrompts(promptFileOf(root)),
    loadStatements(join(root, STATEMENTS_FILE_RELATIVE_PATH)),
  ]);
  const data = contextData(working, options.today ?? new Date().toISOString().slice(0, 10));
  // The other required fields have fallbacks; the app refuses a context without a template.
  if (!data.template) {
    throw new ConflictError(
      `Project '${project.name}' has no template. Set one with ${toolRef('project_update')} before generating context.`,
      { details: { projectId: project.id } },
    );
  }
  const statement = (key: string) => statements[key] ?? '';
  const render = (text: string) => renderTemplate(text, data);

  const sections: { title?: string; content: string }[] = [
    {
      content: statement(
        data.workType === 'start' ? 'start-project-statement' : 'continue-project-statement',
      ),
    },
    { content: projectInfo(data) },
    {
      content:
        contextInitializationPrompt(prompts, data.isMonorepo)?.content ??
        'Project context and environment details follow.',
    },
    {
      title: '### 3rd-Party Tools & MCP',
      content: toolsSection(data, statement, toolUsePrompt(prompts), render),
    },
  ];
  if (data.isMonorepo) {
    const base = render(statement('monorepo-statement'));
    const note = data.customData.monorepoNote?.trim();
    sections.push({ title: '### Monorepo Note', content: note ? `${base}\n\n${note}` : base });
  }
  if (data.recentEvents.trim())
    sections.push({ title: '### Current Project State', content: data.recentEvents });
  sections.push({
    title: '### Instruction Prompt',
    content: instructionSection(data, statement, promptForInstruction(prompts, data.instruction), render),
  });
  if (data.additionalNotes.trim()) {
    sections.push({ title: '## Additional Instructions', content: data.additionalNotes });
  }

  const context = sections
    .map(({ title, content }) => {
      const rendered = render(content);
      return title ? `${title}\n${rendered}` : rendered;
    })
    .filter((text) => text.trim())
    .join('\n\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/\r\n/g, '\n')
    .trim();
  return options.additionalInstructions ? `${context}\n\n${options.additionalInstructions}` : context;
}

type ContextData = ReturnType<typeof contextData>;

/** The values templates can use, with the app's fallbacks for empty fields. */
function contextData(project: Project, today: string) {
  const customData = project.customData;
  const configuredTools = (customData.availableTools ?? '')
    .split(',')
    .map((tool) => tool.trim())
    .filter(Boolean);
  return {
    projectName: project.name || 'Unknown Project',
    template: project.template || '',
    slice: project.slice || 'Unknown Slice',
    taskFile: project.taskFile || '',
    instruction: project.instruction || 'implementation',
    developmentPhase: project.developmentPhase || 'WARNING: MISSING DEVELOPMENT PHASE',
    workType: project.workType || 'continue',
    projectDate: project.projectDate || today,
    isMonorepo: project.isMonorepo || false,
    recentEvents: customData.recentEvents || '',
    additionalNotes: customData.additionalNotes || '',
    availableTools: configuredTools,
    mcpServers: [] as string[],
    templateVersion: '1.0.0',
    customData,
  } satisfies TemplateData;
}

function projectInfo(data: ContextData): string {
  const lines = [`  project: ${data.projectName}`];
  if (data.isMonorepo && data.template && data.template !== 'default')
    lines.push(`  template: ${data.template}`);
  if (data.projectDate) lines.push(`  currentDate: ${data.projectDate}`);
  lines.push(`  slice: ${data.slice.trim() ? data.slice : 'null'}`);
  lines.push(`  taskFile: ${data.taskFile.trim() ? data.taskFile : 'null'}`);
  if (data.developmentPhase) lines.push(`  phase: ${data.developmentPhase}`);
  lines.push(`  monorepo: ${data.isMonorepo}`);
  return `### Current Work Context\n[\n${lines.join(',\n')}\n]`;
}

function toolsSection(
  data: ContextData,
  statement: (key: string) => string,
  prompt: PromptTemplate | undefined,
  render: (text: string) => string,
): string {
  if (data.availableTools.length === 0 && data.mcpServers.length === 0) {
    return statement('no-tools-statement') || 'No additional tools or MCP servers detected.';
  }
  const parts = [statement('tool-intro-statement'), `Tools: ${data.customData.availableTools}`];
  if (prompt) parts.push(render(prompt.content));
  return parts.filter(Boolean).join('\n\n');
}

function instructionSection(
  data: ContextData,
  statement: (key: string) => string,
  prompt: PromptTemplate | undefined,
  render: (text: string) => string,
): string {
  const body = prompt
    ? render(prompt.content)
    : render(statement('custom-instruction-statement')) || `Custom instruction: ${data.instruction}`;
  return [statement('instruction-intro-statement'), body].filter(Boolean).join('\n\n');
}

const definedOnly = <T extends object>(values: T): Partial<T> =>
  Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
