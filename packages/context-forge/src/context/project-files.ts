import { join } from 'node:path';
import { ConflictError, toolRef } from '@x/mcp-core';
import { PROMPT_FILE_RELATIVE_PATH } from '../paths.js';
import type { Project } from '../store/project.js';

/** The project's root directory; a project without one cannot have prompts or a context. */
export function projectRoot(project: Pick<Project, 'id' | 'name' | 'projectPath'>, action: string): string {
  if (!project.projectPath) {
    throw new ConflictError(
      `Project '${project.name}' has no configured project path. Set one with ${toolRef('project_update')} ` +
        `(projectPath: the absolute path of the project root) before ${action}.`,
      { details: { projectId: project.id } },
    );
  }
  return project.projectPath.replace(/[/\\]+$/, '');
}

export const promptFileOf = (root: string): string => join(root, PROMPT_FILE_RELATIVE_PATH);
