import { type AnyResourceDefinition, defineResourceTemplate, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { buildContext } from '../context/build.js';
import { projectCompleter } from '../prompts/projects.js';
import type { ProjectStore } from '../store/project-store.js';

const variables = z.strictObject({
  id: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .describe(`The project id, as ${toolRef('project_list')} shows it`),
});

const uriOf = (id: string, suffix = '') => `context-forge://projects/${encodeURIComponent(id)}${suffix}`;

/** `context-forge://projects/{id}` (the stored project as JSON) and `…/{id}/context` (its built context). */
export const createProjectResources = (store: () => ProjectStore): AnyResourceDefinition[] => [
  defineResourceTemplate({
    name: 'project',
    title: 'Context Forge project',
    description:
      'One Context Forge project as stored in projects.json: template, slice, task file, instruction, phase, project path and custom notes.',
    uriTemplate: 'context-forge://projects/{id}',
    mimeType: 'application/json',
    variables,
    complete: { id: idCompleter(store) },
    list: async () =>
      (await store().list()).map((project) => ({
        uri: uriOf(project.id),
        name: project.name,
        description: `Project ${project.name}`,
      })),
    read: async (_uri, { id }) => `${JSON.stringify(await store().get(id), null, 2)}\n`,
  }),
  defineResourceTemplate({
    name: 'project_context',
    title: 'Context Forge project context',
    description: `A Context Forge project's built context prompt, exactly what ${toolRef('context_build')} returns with the stored settings.`,
    uriTemplate: 'context-forge://projects/{id}/context',
    mimeType: 'text/markdown',
    variables,
    complete: { id: idCompleter(store) },
    list: async () =>
      (await store().list()).map((project) => ({
        uri: uriOf(project.id, '/context'),
        name: `${project.name} context`,
        description: `The context prompt of ${project.name}`,
      })),
    read: async (_uri, { id }) => buildContext(await store().get(id)),
  }),
];

/** Ids only: a resource URI takes the id, whatever name was typed. */
function idCompleter(store: () => ProjectStore) {
  const byName = projectCompleter(store);
  return async (value: string, context: Parameters<ReturnType<typeof projectCompleter>>[1]) => {
    const projects = await store().list();
    const matched = await byName(value, context);
    const ids = new Set(projects.map((project) => project.id));
    return matched.flatMap((entry) =>
      ids.has(entry)
        ? [entry]
        : projects.filter((project) => project.name === entry).map((project) => project.id),
    );
  };
}
