import { type Completer, InvalidInputError, matchCompletions, NotFoundError, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { projectRoot, promptFileOf } from '../context/project-files.js';
import { loadPrompts } from '../context/prompts.js';
import type { Project } from '../store/project.js';
import type { ProjectStore } from '../store/project-store.js';

/** The `project` argument of the prompts: an id, or a name a person can type. */
export const projectArgument = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .describe('The project: its name (any case) or its id, e.g. "project_1739916020000_k3j9x2m1q"');

/** A project by id, else by name (case-insensitive); an unknown or ambiguous name says what exists. */
export async function findProject(store: ProjectStore, idOrName: string): Promise<Project> {
  const projects = await store.list();
  const byId = projects.find((project) => project.id === idOrName);
  if (byId) return byId;
  const lower = idOrName.toLowerCase();
  const named = projects.filter((project) => project.name.toLowerCase() === lower);
  if (named.length === 1 && named[0]) return named[0];
  const candidates = projects.slice(0, 10).map((project) => `${project.name} (${project.id})`);
  if (named.length > 1) {
    throw new InvalidInputError(`More than one project is named '${idOrName}'. Use its id instead.`, {
      details: { candidates: named.map((project) => project.id) },
    });
  }
  throw new NotFoundError(
    `Project not found: '${idOrName}'. Complete the argument or use ${toolRef('project_list')} to see the projects.`,
    {
      details: { candidates },
    },
  );
}

/** Suggests project names, then ids, matching what was typed. */
export function projectCompleter(store: () => ProjectStore): Completer {
  return async (value) => {
    const projects = await store().list();
    return matchCompletions(
      [...projects.map((project) => project.name), ...projects.map((project) => project.id)],
      value.trim(),
    );
  };
}

/** Suggests the template names of the project already chosen in the `project` argument. */
export function templateCompleter(store: () => ProjectStore): Completer {
  return async (value, { arguments: chosen }) => {
    if (!chosen.project) return [];
    // A project name still being typed, or misspelt, has no templates to offer.
    const project = await findProject(store(), chosen.project).catch(() => undefined);
    if (!project) return [];
    const prompts = await loadPrompts(promptFileOf(projectRoot(project, 'listing prompts')));
    return matchCompletions(
      prompts.map((prompt) => prompt.name),
      value.trim(),
    );
  };
}
