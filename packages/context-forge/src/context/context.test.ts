import { join } from 'node:path';
import { McpToolError, toolRef } from '@x/mcp-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '../store/project.js';
import { createExampleStore, EXAMPLE_PROMPT_FILE, type ExampleStore } from '../testing/index.js';
import { buildContext } from './build.js';
import { findPrompt, parsePrompts, promptForInstruction } from './prompts.js';
import { parseStatements } from './statements.js';
import { renderTemplate } from './template.js';

let example: ExampleStore;
let harbor: Project;
let lumen: Project;
beforeAll(async () => {
  example = await createExampleStore();
  [harbor, lumen] = example.projects as [Project, Project];
});
afterAll(() => example.close());

// Both texts were checked line by line against the app's own generator (see docs/providers/context-forge.md).
const HARBOR_CONTEXT = `Picking up work on harbor-api. Project information, environment, instructions and notes follow:

### Current Work Context
[
  project: harbor-api,
  currentDate: 2026-11-20,
  slice: 140-slice.rate-limits,
  taskFile: 140-tasks.rate-limits.md,
  phase: Phase 6: Implementation,
  monorepo: false
]

You are joining project harbor-api as a senior engineer. Read the architecture notes and the slice
plan in \`project-documents/user/\` before changing code, and ask when something is unclear.

### 3rd-Party Tools & MCP
The following tools and MCP servers are available for this project:

Tools: git, pnpm, context7

Prefer the tools listed above to guessing: look things up, then act. Say which tool you used.

### Current Project State
- Token bucket limiter merged behind a flag
- Redis store for counters in review
- Next: per-route limits

### Instruction Prompt
Current development phase and instructions:

We are implementing slice 140-slice.rate-limits of harbor-api from the tasks in 140-tasks.rate-limits.md (phase: Phase 6: Implementation).
Work through the tasks in order, check each one off when its tests pass, and commit after each task.
Run the full test suite before each commit.`;

const LUMEN_CONTEXT = `Starting work on lumen. Project information, environment context, instructions, and notes follow:

### Current Work Context
[
  project: lumen,
  template: web-app,
  currentDate: 2026-11-22,
  slice: 210-slice.offline-sync,
  taskFile: null,
  phase: Phase 4: Slice Design,
  monorepo: true
]

You are joining the monorepo lumen. Work only inside the package for template web-app
unless the slice says otherwise, and run that package's checks before you finish.

### 3rd-Party Tools & MCP
No additional tools or MCP servers detected for this session.

### Monorepo Note
Project is configured as a monorepo. Working in package: web-app, Slice: 210-slice.offline-sync

Shared UI components live in packages/ui; do not change them in this slice.

### Instruction Prompt
Current development phase and instructions:

We are designing slice 210-slice.offline-sync for lumen. Write the design to
\`user/slices/210-slice.offline-sync.md\`: goals, interfaces, data shapes, risks, and what is out of scope.
Do not write code yet.

## Additional Instructions
The sync protocol must work with the existing REST API; no websockets yet.`;

describe('buildContext', () => {
  it('produces the app’s context for a project with tools, recent events and its own statements', async () => {
    expect(await buildContext(harbor, { today: '2026-11-22' })).toBe(HARBOR_CONTEXT);
  });

  it('produces the app’s context for a monorepo project on the built-in statements', async () => {
    expect(await buildContext(lumen, { today: '2026-11-22' })).toBe(LUMEN_CONTEXT);
  });

  it('applies overrides to this context only and appends additional instructions', async () => {
    const text = await buildContext(harbor, {
      overrides: { instruction: 'review', workType: 'start', slice: '150-slice.metrics' },
      additionalInstructions: 'Focus on the Redis store.',
    });
    expect(text.startsWith('Starting work on harbor-api.')).toBe(true);
    expect(text).toContain('  slice: 150-slice.metrics,');
    expect(text).toContain('Review the changes of slice 150-slice.metrics in harbor-api');
    expect(text.endsWith('commit after each task.')).toBe(false);
    expect(text.endsWith('\n\nFocus on the Redis store.')).toBe(true);
    expect(harbor.slice).toBe('140-slice.rate-limits');
  });

  it('falls back to the custom instruction statement when no prompt matches the instruction', async () => {
    const text = await buildContext(harbor, { overrides: { instruction: 'pair-programming' } });
    expect(text).toContain(
      'Current development phase and instructions:\n\nCustom instruction provided: pair-programming',
    );
  });

  it('refuses a project without a path, or without a prompt file, with typed errors naming the fix', async () => {
    const noPath = buildContext({ ...harbor, projectPath: undefined });
    await expect(noPath).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(noPath).rejects.toThrow(
      `has no configured project path. Set one with ${toolRef('project_update')}`,
    );
    const elsewhere = join(example.dataDir, 'no-such-project');
    const missing = await buildContext({ ...harbor, projectPath: elsewhere }).catch(
      (error: unknown) => error,
    );
    expect(McpToolError.isInstance(missing) && missing.code).toBe('NOT_FOUND');
    expect((missing as Error).message).toContain(
      join(elsewhere, 'project-documents/ai-project-guide/project-guides/prompt.ai-project.system.md'),
    );
  });
});

describe('the template language', () => {
  const data = {
    projectName: 'harbor',
    slice: '140-slice.rate-limits',
    isMonorepo: false,
    developmentPhase: 'P6',
    taskFile: 't.md',
    projectDate: '2026-11-22',
  };

  it('fills {{name}} and {name}, with the app’s aliases and derived values', () => {
    expect(renderTemplate('{{projectName}} / {project} / {slice}', data)).toBe(
      'harbor / harbor / 140-slice.rate-limits',
    );
    expect(renderTemplate('{sliceindex}:{slicename}', data)).toBe('140:rate-limits');
    expect(renderTemplate('{development-phase} {task-file} {project-date} {{projectdate}}', data)).toBe(
      'P6 t.md 2026-11-22 2026-11-22',
    );
  });

  it('drops unknown {{names}}, unwraps unknown {names} and uses the first of {a | b}', () => {
    expect(renderTemplate('[{{nothing}}] [{feature}] [{slice | feature}] [{nothing | feature}]', data)).toBe(
      '[] [feature] [140-slice.rate-limits] [nothing | feature]',
    );
  });

  it('picks a conditional branch by truthiness', () => {
    const text = '{{#if isMonorepo}}mono{{else}}single{{/if}} {{#if projectName}}named{{else}}anon{{/if}}';
    expect(renderTemplate(text, data)).toBe('single named');
    expect(renderTemplate('{{#if missing}}a{{else}}b{{/if}}', data)).toBe('b');
  });
});

describe('prompt files', () => {
  const prompts = parsePrompts(EXAMPLE_PROMPT_FILE);

  it('reads ##### sections: the fenced prompt, a key from the header, the parameters', () => {
    expect(prompts.map((prompt) => prompt.key)).toEqual([
      'context-initialization',
      'context-initialization-monorepo',
      'tool-usage',
      'slice-design-phase-4',
      'task-breakdown-phase-5',
      'implementation-phase-6',
      'code-review',
      'session-state-summary',
      'custom-instruction',
    ]);
    const design = findPrompt(prompts, 'slice design (PHASE 4)');
    expect(design.content.startsWith('We are designing slice {slice} for {project}.')).toBe(true);
    expect(design.content).not.toContain('*Use this');
    expect(design.parameters).toEqual(['slice', 'project']);
    expect(findPrompt(prompts, 'task-breakdown-phase-5').parameters).toEqual(['slice', 'taskFile']);
  });

  it('uses the text of a section without a fence, skipping italic notes', () => {
    const [plain] = parsePrompts('##### Plain\n*a note*\nDo {thing} now.\nThen stop.\n');
    expect(plain).toEqual({
      name: 'Plain',
      key: 'plain',
      content: 'Do {thing} now.\nThen stop.',
      parameters: ['thing'],
    });
  });

  it('selects the prompt for an instruction by name or key, and reports unknown templates', () => {
    expect(promptForInstruction(prompts, 'implementation')?.name).toBe('Implementation (Phase 6)');
    expect(promptForInstruction(prompts, 'Design')?.name).toBe('Slice Design (Phase 4)');
    expect(promptForInstruction(prompts, 'deploy')).toBeUndefined();
    expect(() => findPrompt(prompts, 'deploy')).toThrow(
      `Template not found: 'deploy'. Use the ${toolRef('prompt_list')} tool`,
    );
  });
});

describe('statements files', () => {
  it('reads `## Title` sections with a key comment; empty or keyless sections are skipped', () => {
    const parsed = parseStatements(
      '---\nversion: "1"\n---\n\n## Start\n<!-- key: start-project-statement, editable: true -->\n\nGo {{projectName}}!\n\n## Empty\n<!-- key: no-tools-statement, editable: false -->\n\n## No key\nignored\n',
    );
    expect(parsed).toEqual({ 'start-project-statement': 'Go {{projectName}}!' });
  });
});
