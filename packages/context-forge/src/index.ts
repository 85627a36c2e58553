import { McpToolError, type ToolProvider, toolRef } from '@x/mcp-core';
import { legacyDataDir, resolveDataDir } from './paths.js';
import { createContextForgePrompts } from './prompts/context.js';
import { createProjectResources } from './resources/projects.js';
import type { LockOptions } from './store/lock.js';
import { ProjectStore } from './store/project-store.js';
import { createContextBuild, createTemplatePreview } from './tools/context-build.js';
import { createContextSummarize } from './tools/context-summarize.js';
import { createProjectCreate } from './tools/project-create.js';
import { createProjectGet } from './tools/project-get.js';
import { createProjectList } from './tools/project-list.js';
import { createProjectUpdate } from './tools/project-update.js';
import { createPromptGet } from './tools/prompt-get.js';
import { createPromptList } from './tools/prompt-list.js';
import { VERSION } from './version.js';

export interface ContextForgeSettings {
  /**
   * The directory holding `projects.json`. Default: `$CONTEXT_FORGE_DATA_DIR`, else the desktop
   * app's config directory (`~/.config/context-forge` on Linux, `~/Library/Preferences/context-forge`
   * on macOS, `%APPDATA%\context-forge\Config` on Windows).
   */
  dataDir?: string;
  /** Lock timing for writes shared with other processes. */
  lock?: LockOptions;
  /** Environment to read the defaults from. Default: `process.env`. */
  env?: Record<string, string | undefined>;
}

/**
 * The Context Forge tools over the desktop app's own `projects.json`, the `context` and
 * `template` prompts, and the project resources (`context-forge://projects/{id}`,
 * `context-forge://projects/{id}/context`). Nothing is read until a tool
 * runs, so constructing the provider never touches the disk.
 */
export function createContextForgeProvider(settings: ContextForgeSettings = {}): ToolProvider {
  let store: ProjectStore | undefined;
  const getStore = () => {
    store ??= new ProjectStore({
      dataDir: settings.dataDir ?? resolveDataDir(settings.env ? { env: settings.env } : {}),
      // The app migrates its old macOS location only into its default directory.
      ...(settings.dataDir === undefined ? { legacyDir: legacyDataDir() } : {}),
      ...(settings.lock ? { lock: settings.lock } : {}),
    });
    return store;
  };
  return {
    id: 'context-forge',
    version: VERSION,
    instructions:
      `Context Forge projects, shared with the Context Forge desktop app. Start with ${toolRef('project_list')} for IDs; ` +
      `${toolRef('context_build')} gives the context prompt for a project; ${toolRef('context_summarize')} saves session progress.`,
    tools: [
      createProjectList(getStore),
      createProjectGet(getStore),
      createProjectCreate(getStore),
      createProjectUpdate(getStore),
      createContextBuild(getStore),
      createTemplatePreview(getStore),
      createPromptList(getStore),
      createPromptGet(getStore),
      createContextSummarize(getStore),
    ],
    prompts: createContextForgePrompts(getStore),
    resources: createProjectResources(getStore),
    // Ready when projects.json can be read (a missing one is an empty store, which is fine).
    checkReadiness: async () => {
      try {
        const count = (await getStore().list()).length;
        return {
          ready: true,
          checks: [{ name: 'store', ok: true, detail: `projects.json readable, ${count} projects` }],
        };
      } catch (error) {
        const detail = McpToolError.isInstance(error) ? error.message : 'projects.json could not be read';
        return { ready: false, checks: [{ name: 'store', ok: false, detail }] };
      }
    },
  };
}

export { type BuildContextOptions, buildContext, type ContextOverrides } from './context/build.js';
export { type PromptTemplate, parsePrompts } from './context/prompts.js';
export { DEFAULT_STATEMENTS, parseStatements } from './context/statements.js';
export { legacyDataDir, PROJECTS_FILE, resolveDataDir } from './paths.js';
export type { LockOptions } from './store/lock.js';
export type { CustomData, NewProject, Project, ProjectChanges, WorkType } from './store/project.js';
export { type OutsideChange, ProjectStore, type ProjectStoreOptions } from './store/project-store.js';
export { VERSION } from './version.js';
