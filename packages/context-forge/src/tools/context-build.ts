import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { buildContext } from '../context/build.js';
import type { ProjectStore } from '../store/project-store.js';
import { withOutsideChanges } from './outside-change.js';
import { overrideFields, projectIdSchema } from './schemas.js';

const inputSchema = z.strictObject({ projectId: projectIdSchema, ...overrideFields });

async function generate(store: ProjectStore, input: z.infer<typeof inputSchema>) {
  const { projectId, additionalInstructions, ...overrides } = input;
  const project = await store.get(projectId);
  const context = await buildContext(project, {
    overrides,
    ...(additionalInstructions ? { additionalInstructions } : {}),
  });
  return withOutsideChanges(context, [store.takeOutsideChange(project)]);
}

export const createContextBuild = (store: () => ProjectStore) =>
  defineTool({
    name: 'context_build',
    title: 'Build the context prompt',
    description:
      'Builds the context prompt of a project (header, tools, monorepo note, recent events, the prompt its ' +
      'instruction selects, additional notes). Use it at the start of a session. Overrides apply to this ' +
      'context only.',
    inputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    // Over a large repository the build takes a while: a client that can poll a task gets one.
    task: 'optional',
    handler: (input) => generate(store(), input),
  });

export const createTemplatePreview = (store: () => ProjectStore) =>
  defineTool({
    name: 'template_preview',
    title: 'Preview a context prompt',
    description:
      'Shows the context prompt a project would get with other settings, changing nothing, to compare ' +
      `variants before saving one with ${toolRef('project_update')}.`,
    inputSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: (input) => generate(store(), input),
  });
