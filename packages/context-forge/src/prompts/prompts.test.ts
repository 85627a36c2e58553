import { fileURLToPath } from 'node:url';
import { ToolRegistry } from '@x/mcp-core';
import {
  type ConnectedClient,
  connectHttp,
  connectInMemory,
  resultText,
  startHttpBin,
} from '@x/mcp-core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContextForgeProvider } from '../index.js';
import { createExampleStore, type ExampleStore } from '../testing/index.js';

const bin = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));
const HARBOR = 'project_1761904800000_h4rb0r7ap';

let example: ExampleStore;
let connected: ConnectedClient;
beforeEach(async () => {
  example = await createExampleStore();
  const provider = createContextForgeProvider({ dataDir: example.dataDir });
  connected = await connectInMemory(new ToolRegistry().use(provider, { prefix: 'cf_' }));
});
afterEach(async () => {
  await connected.close();
  await example.close();
});

const callText = async (name: string, args: Record<string, unknown>) =>
  resultText(await connected.client.callTool({ name, arguments: args }));

function promptText(result: { messages: { content: unknown }[] }): string {
  const content = result.messages[0]?.content as { type: string; text?: string };
  if (content?.type !== 'text' || content.text === undefined) throw new Error('expected a text message');
  return content.text;
}

async function rpcError(
  call: Promise<unknown>,
): Promise<{ code: number; message: string; data?: Record<string, unknown> }> {
  try {
    await call;
  } catch (error) {
    return error as { code: number; message: string };
  }
  throw new Error('expected a JSON-RPC error');
}

describe('Context Forge prompts', () => {
  it('lists the context and template prompts with described arguments', async () => {
    const { prompts } = await connected.client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['cf_context', 'cf_template']);
    expect(prompts[1]?.arguments?.map((argument) => [argument.name, argument.required])).toEqual([
      ['project', true],
      ['template', true],
      ['slice', false],
      ['taskFile', false],
      ['developmentPhase', false],
      ['workType', false],
    ]);
  });

  it('context returns exactly what context_build returns, by project name or id', async () => {
    const built = await callText('cf_context_build', { projectId: HARBOR });
    const byName = await connected.client.getPrompt({
      name: 'cf_context',
      arguments: { project: 'Harbor-API' },
    });
    expect(promptText(byName)).toBe(built);
    const byId = await connected.client.getPrompt({ name: 'cf_context', arguments: { project: HARBOR } });
    expect(promptText(byId)).toBe(built);
  });

  it('template returns what context_build returns with that template as the instruction', async () => {
    const built = await callText('cf_context_build', {
      projectId: HARBOR,
      instruction: 'code-review',
      slice: '150-slice.search',
    });
    const result = await connected.client.getPrompt({
      name: 'cf_template',
      arguments: { project: 'harbor-api', template: 'code review', slice: '150-slice.search' },
    });
    expect(promptText(result)).toBe(built);
    expect(built).toContain('150-slice.search');
    const stored = await callText('cf_context_build', { projectId: HARBOR });
    expect(promptText(result)).not.toBe(stored);
  });

  it('answers an unknown project or template with invalid params naming what exists', async () => {
    const project = await rpcError(
      connected.client.getPrompt({ name: 'cf_context', arguments: { project: 'nope' } }),
    );
    expect(project).toMatchObject({ code: -32602, data: { error_code: 'NOT_FOUND' } });
    expect(JSON.stringify(project.data)).toContain('harbor-api');
    const template = await rpcError(
      connected.client.getPrompt({
        name: 'cf_template',
        arguments: { project: 'harbor-api', template: 'Poetry' },
      }),
    );
    expect(template).toMatchObject({ code: -32602, data: { error_code: 'NOT_FOUND' } });
    expect(template.message).toContain("Template not found: 'Poetry'");
  });

  it('completes project names and the chosen project template names', async () => {
    const projects = await connected.client.complete({
      ref: { type: 'ref/prompt', name: 'cf_template' },
      argument: { name: 'project', value: 'har' },
    });
    expect(projects.completion.values).toEqual(['harbor-api']);
    const templates = await connected.client.complete({
      ref: { type: 'ref/prompt', name: 'cf_template' },
      argument: { name: 'template', value: 'impl' },
      context: { arguments: { project: 'harbor-api' } },
    });
    expect(templates.completion.values).toEqual(['Implementation (Phase 6)']);
    const withoutProject = await connected.client.complete({
      ref: { type: 'ref/prompt', name: 'cf_template' },
      argument: { name: 'template', value: '' },
    });
    expect(withoutProject.completion.values).toEqual([]);
  });
});

describe('Context Forge resources', () => {
  it('reads a project as JSON and its context as what context_build returns', async () => {
    const project = await connected.client.readResource({ uri: `context-forge://projects/${HARBOR}` });
    expect(project.contents[0]).toMatchObject({ mimeType: 'application/json' });
    expect(JSON.parse((project.contents[0] as { text: string }).text)).toMatchObject({
      id: HARBOR,
      name: 'harbor-api',
    });
    const context = await connected.client.readResource({
      uri: `context-forge://projects/${HARBOR}/context`,
    });
    expect(context.contents).toEqual([
      {
        uri: `context-forge://projects/${HARBOR}/context`,
        mimeType: 'text/markdown',
        text: await callText('cf_context_build', { projectId: HARBOR }),
      },
    ]);
  });

  it('lists every project and its context, completes ids, and answers an unknown id with invalid params', async () => {
    const { resources } = await connected.client.listResources();
    expect(resources).toHaveLength(example.projects.length * 2);
    expect(resources).toContainEqual(
      expect.objectContaining({
        uri: `context-forge://projects/${HARBOR}/context`,
        name: 'harbor-api context',
      }),
    );
    const ids = await connected.client.complete({
      ref: { type: 'ref/resource', uri: 'context-forge://projects/{id}' },
      argument: { name: 'id', value: 'harb' },
    });
    expect(ids.completion.values).toEqual([HARBOR]);
    const missing = await rpcError(
      connected.client.readResource({ uri: 'context-forge://projects/project_0_missing' }),
    );
    expect(missing).toMatchObject({ code: -32602, data: { error_code: 'NOT_FOUND' } });
  });
});

describe('Context Forge prompts from the built bin over HTTP', () => {
  it('lists and gets prompts and reads a resource with --sandbox', async () => {
    const server = await startHttpBin({
      command: process.execPath,
      args: [bin, '--sandbox', '--http', '--port', '0'],
    });
    const http = await connectHttp(server.url);
    try {
      const { prompts } = await http.client.listPrompts();
      expect(prompts.map((prompt) => prompt.name)).toEqual(['context', 'template']);
      const text = promptText(
        await http.client.getPrompt({ name: 'context', arguments: { project: 'harbor-api' } }),
      );
      expect(text).toContain('project: harbor-api');
      const { resources } = await http.client.listResources();
      const read = await http.client.readResource({ uri: resources[0]?.uri ?? '' });
      expect(read.contents).toHaveLength(1);
    } finally {
      await http.close();
      await server.stop();
    }
  });
});
