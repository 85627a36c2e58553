import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolRegistry } from '@x/mcp-core';
import {
  type ConnectedClient,
  connectInMemory,
  describeToolProvider,
  errorBody,
  resultData,
  resultText,
} from '@x/mcp-core/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createContextForgeProvider } from '../index.js';
import type { Project } from '../store/project.js';
import { fingerprint } from '../test-helpers.js';
import { createExampleStore, type ExampleStore } from '../testing/index.js';

let fuzzStore: ExampleStore;
beforeAll(async () => {
  fuzzStore = await createExampleStore();
});
afterAll(() => fuzzStore.close());
describeToolProvider(() => createContextForgeProvider({ dataDir: fuzzStore.dataDir }), {
  name: 'context-forge',
});

let example: ExampleStore;
let connected: ConnectedClient;
let projectsFile: string;
const HARBOR = 'project_1761904800000_h4rb0r7ap';
const NOTES = 'project_1763027400000_n0t3s0n1y';

beforeEach(async () => {
  example = await createExampleStore();
  projectsFile = join(example.dataDir, 'projects.json');
  const registry = new ToolRegistry().use(createContextForgeProvider({ dataDir: example.dataDir }));
  connected = await connectInMemory(registry);
});
afterEach(async () => {
  await connected.close();
  await example.close();
});

const call = (name: string, args: Record<string, unknown> = {}) =>
  connected.client.callTool({ name, arguments: args });

describe('project tools', () => {
  it('project_list summarizes every project; an empty store is a count of 0 with a hint', async () => {
    const listed = resultData<{ projects: Record<string, unknown>[]; count: number }>(
      await call('project_list'),
    );
    expect(listed.count).toBe(3);
    expect(listed.projects[0]).toEqual({
      id: HARBOR,
      name: 'harbor-api',
      slice: '140-slice.rate-limits',
      template: 'node-service',
      instruction: 'implementation',
      isMonorepo: false,
      projectPath: example.projectRoot,
      updatedAt: '2026-11-20T16:42:10.512Z',
    });

    const empty = await createExampleStore({ seedProjects: false });
    const emptyClient = await connectInMemory(
      new ToolRegistry().use(createContextForgeProvider({ dataDir: empty.dataDir })),
    );
    try {
      expect(resultData(await emptyClient.client.callTool({ name: 'project_list', arguments: {} }))).toEqual({
        projects: [],
        count: 0,
        hint: 'No projects yet. Create one with project_create.',
      });
    } finally {
      await emptyClient.close();
      await empty.close();
    }
  });

  it('project_get returns the whole project; an unknown id is NOT_FOUND naming project_list', async () => {
    expect(resultData(await call('project_get', { id: HARBOR }))).toEqual(example.projects[0]);
    const missing = errorBody(await call('project_get', { id: 'project_1_nope' }));
    expect(missing).toMatchObject({ error_code: 'NOT_FOUND', retryable: false });
    expect(missing.message).toContain('Use the project_list tool');
    expect(missing.candidates).toHaveLength(3);
  });

  it('project_create adds a project the app can read, with defaults and a generated id', async () => {
    const created = resultData<Project>(
      await call('project_create', {
        name: 'quay',
        template: 'cli',
        slice: '100-slice.init',
        projectPath: example.projectRoot,
        customData: { availableTools: 'git' },
      }),
    );
    expect(created).toMatchObject({
      name: 'quay',
      instruction: 'implementation',
      isMonorepo: false,
      taskFile: '',
    });
    const stored = JSON.parse(await readFile(projectsFile, 'utf8')) as Project[];
    expect(stored).toHaveLength(4);
    expect(stored[3]).toEqual(created);
    const context = resultText(await call('context_build', { projectId: created.id }));
    expect(context).toContain('Tools: git');
  });

  it('project_update changes only the given fields, merges customData and returns the stored project', async () => {
    const updated = resultData<Project>(
      await call('project_update', {
        id: HARBOR,
        slice: '150-slice.metrics',
        customData: { additionalNotes: 'Keep the limiter API stable.' },
      }),
    );
    expect(updated.slice).toBe('150-slice.metrics');
    expect(updated.customData).toEqual({
      recentEvents: example.projects[0]?.customData.recentEvents,
      availableTools: 'git, pnpm, context7',
      additionalNotes: 'Keep the limiter API stable.',
    });
    expect(updated.taskFile).toBe('140-tasks.rate-limits.md');
    expect(resultData(await call('project_get', { id: HARBOR }))).toEqual(updated);
  });

  it('project_update without any field is INVALID_INPUT and writes nothing', async () => {
    const before = await fingerprint(projectsFile);
    for (const args of [{ id: HARBOR }, { id: HARBOR, customData: {} }]) {
      const body = errorBody(await call('project_update', args));
      expect(body.error_code).toBe('INVALID_INPUT');
      expect(body.message).toContain('No fields to update. Give at least one of: name, template, slice');
    }
    const relative = errorBody(await call('project_update', { id: HARBOR, projectPath: 'relative/dir' }));
    expect(relative.error_code).toBe('INVALID_INPUT');
    expect(await fingerprint(projectsFile)).toBe(before);
  });

  it('context_summarize replaces recent events, keeps the other notes, and rejects an empty summary', async () => {
    const updated = resultData<Project>(
      await call('context_summarize', { projectId: HARBOR, summary: 'Per-route limits done; docs next.' }),
    );
    expect(updated.customData).toEqual({
      recentEvents: 'Per-route limits done; docs next.',
      availableTools: 'git, pnpm, context7',
    });
    expect(resultText(await call('context_build', { projectId: HARBOR }))).toContain(
      '### Current Project State\nPer-route limits done; docs next.',
    );
    const before = await fingerprint(projectsFile);
    expect(errorBody(await call('context_summarize', { projectId: HARBOR, summary: '   ' })).error_code).toBe(
      'INVALID_INPUT',
    );
    expect(errorBody(await call('context_summarize', { projectId: 'nope', summary: 'x' })).error_code).toBe(
      'NOT_FOUND',
    );
    expect(await fingerprint(projectsFile)).toBe(before);
  });
});

describe('readiness', () => {
  it('is ready when projects.json can be read, and not when it is damaged beyond its backup', async () => {
    const provider = createContextForgeProvider({ dataDir: example.dataDir });
    const signal = AbortSignal.timeout(5_000);
    expect(await provider.checkReadiness?.({ signal })).toEqual({
      ready: true,
      checks: [{ name: 'store', ok: true, detail: 'projects.json readable, 3 projects' }],
    });
    await writeFile(projectsFile, '[{');
    const damaged = await provider.checkReadiness?.({ signal });
    expect(damaged?.ready).toBe(false);
    expect(damaged?.checks[0]?.detail).toContain('is not valid JSON');
  });
});

describe('context and prompt tools', () => {
  it('context_build and template_preview give the same text and never save overrides', async () => {
    const before = await fingerprint(projectsFile);
    const args = { projectId: HARBOR, instruction: 'review', additionalInstructions: 'Look at src/limits.' };
    const built = resultText(await call('context_build', args));
    expect(built).toContain('Review the changes of slice 140-slice.rate-limits in harbor-api');
    expect(built.endsWith('\n\nLook at src/limits.')).toBe(true);
    expect(resultText(await call('template_preview', args))).toBe(built);
    expect(await fingerprint(projectsFile)).toBe(before);
  });

  it('a project without a path is a CONFLICT telling how to set one', async () => {
    for (const [tool, args] of [
      ['context_build', { projectId: NOTES }],
      ['prompt_list', { projectId: NOTES }],
      ['prompt_get', { projectId: NOTES, templateName: 'x' }],
    ] as const) {
      const body = errorBody(await call(tool, args));
      expect(body.error_code).toBe('CONFLICT');
      expect(body.message).toContain("Project 'field-notes' has no configured project path");
    }
  });

  it('a missing prompt file is NOT_FOUND with the path expected', async () => {
    const elsewhere = join(example.dataDir, 'empty-project');
    await call('project_update', { id: NOTES, projectPath: elsewhere });
    const body = errorBody(await call('prompt_list', { projectId: NOTES }));
    expect(body.error_code).toBe('NOT_FOUND');
    expect(body.message).toContain(
      `No prompt file at ${join(elsewhere, 'project-documents/ai-project-guide/project-guides/prompt.ai-project.system.md')}`,
    );
  });

  it('prompt_list lists the templates; prompt_get finds one by name or key', async () => {
    const listed = resultData<{
      templates: { name: string; key: string; parameterCount: number }[];
      count: number;
    }>(await call('prompt_list', { projectId: HARBOR }));
    expect(listed.count).toBe(9);
    expect(listed.templates).toContainEqual({
      name: 'Implementation (Phase 6)',
      key: 'implementation-phase-6',
      parameterCount: 5, // slice, project, taskFile, developmentPhase and isMonorepo (of the {{#if}}), as the app counts
    });
    const byName = resultText(await call('prompt_get', { projectId: HARBOR, templateName: 'code review' }));
    expect(
      byName.startsWith(
        '# Code Review\nKey: code-review\nParameters: slice, project\n\n---\n\nReview the changes',
      ),
    ).toBe(true);
    expect(resultText(await call('prompt_get', { projectId: HARBOR, templateName: 'code-review' }))).toBe(
      byName,
    );
    const unknown = errorBody(await call('prompt_get', { projectId: HARBOR, templateName: 'Deploy' }));
    expect(unknown).toMatchObject({ error_code: 'NOT_FOUND' });
    expect(unknown.message).toContain('Use the prompt_list tool');
    expect(unknown.candidates).toContain('Code Review');
  });
});

describe('beside the desktop app', () => {
  /**
   * What the app does to the project open in it, 500 ms after any edit there and on quit: it
   * writes its whole form back, so fields we changed meanwhile get the form's older values.
   */
  async function appSavesForm(id: string, form: (project: Record<string, unknown>) => void) {
    const entries = JSON.parse(await readFile(projectsFile, 'utf8')) as Record<string, unknown>[];
    const project = entries.find((entry) => entry.id === id) as Record<string, unknown>;
    form(project);
    project.updatedAt = new Date(Date.parse(String(project.updatedAt)) + 1_000).toISOString();
    await writeFile(projectsFile, JSON.stringify(entries, null, 2));
  }
  const texts = (result: Awaited<ReturnType<typeof call>>) =>
    (result.content as { type: string; text: string }[]).map((block) => block.text);
  const eventsBefore = '- Token bucket limiter merged behind a flag';

  it('tells, once, on the next call that our change to the project was undone by another program', async () => {
    await call('context_summarize', { projectId: HARBOR, summary: 'Per-route limits done' });
    expect(texts(await call('project_get', { id: HARBOR }))).toHaveLength(1); // nothing moved yet

    await appSavesForm(HARBOR, (project) => {
      (project.customData as Record<string, unknown>).recentEvents = eventsBefore;
    });
    const [context, warning, ...rest] = texts(await call('context_build', { projectId: HARBOR }));
    expect(context).toContain(eventsBefore);
    expect(rest).toEqual([]);
    expect(warning).toMatch(
      /^Warning: Project 'harbor-api' \(project_1761904800000_h4rb0r7ap\) was rewritten by another program after this server last wrote it/,
    );
    expect(warning).toContain('These values we wrote are no longer stored: customData.recentEvents.');
    expect(warning).toContain('saves its whole form 500 ms after any edit there and again when it quits');

    expect(texts(await call('context_build', { projectId: HARBOR }))).toHaveLength(1);
  });

  it('reports it from the write that finds it, and not after our own writes', async () => {
    const ours = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call('project_update', {
          id: HARBOR,
          ...(i % 2 ? { slice: `15${i}-slice.m` } : { taskFile: `${i}.md` }),
        }),
      ),
    );
    expect(ours.map((result) => texts(result).length)).toEqual(Array(8).fill(1));
    await call('project_update', { id: HARBOR, taskFile: '150-tasks.metrics.md' });
    expect(texts(await call('project_list'))).toHaveLength(1);

    await appSavesForm(HARBOR, (project) => {
      project.taskFile = '140-tasks.rate-limits.md';
    });
    const result = await call('context_summarize', { projectId: HARBOR, summary: 'Metrics started' });
    const [json, warning] = texts(result);
    expect(JSON.parse(json as string)).toMatchObject({ taskFile: '140-tasks.rate-limits.md' });
    expect(result.structuredContent).toMatchObject({ customData: { recentEvents: 'Metrics started' } });
    expect(warning).toContain(
      'These values we wrote are no longer stored: taskFile (this call wrote only the fields it was given).',
    );
  });

  it('notes an outside change that kept our values, and keeps the report through a failed call', async () => {
    await call('project_update', { id: HARBOR, slice: '150-slice.metrics' });
    await appSavesForm(HARBOR, (project) => {
      project.developmentPhase = 'Phase 7: Review';
    });
    const failed = await call('prompt_get', { projectId: HARBOR, templateName: 'Deploy' });
    expect(errorBody(failed).error_code).toBe('NOT_FOUND');
    const [, note] = texts(await call('project_list'));
    expect(note).toMatch(/^Note: Project 'harbor-api' .* The values we wrote are still stored\.$/);
  });
});

describe('settings.env', () => {
  it('reads CONTEXT_FORGE_DATA_DIR from the given environment, not from process.env', async () => {
    const client = await connectInMemory(
      new ToolRegistry().use(
        createContextForgeProvider({ env: { CONTEXT_FORGE_DATA_DIR: example.dataDir } }),
      ),
    );
    try {
      const listed = resultData<{ count: number }>(
        await client.client.callTool({ name: 'project_list', arguments: {} }),
      );
      expect(listed.count).toBe(3);
    } finally {
      await client.close();
    }
  });
});
