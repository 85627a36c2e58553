import { InvalidInputError, ToolNotEnabledError, toolRef, UpstreamError } from '@x/mcp-core';
import type { BasecampClient } from './runtime.js';
import { toDock } from './shapes.js';

export type DockName =
  | 'message_board'
  | 'todoset'
  | 'vault'
  | 'chat'
  | 'schedule'
  | 'kanban_board'
  | 'questionnaire'
  | 'inbox';

const LABELS: Record<DockName, { label: string; override: string }> = {
  message_board: { label: 'Message Board', override: 'message_board_id' },
  todoset: { label: 'To-dos', override: 'todoset_id' },
  vault: { label: 'Docs & Files', override: 'vault_id' },
  chat: { label: 'Chat (Campfire)', override: 'chat_id' },
  schedule: { label: 'Schedule', override: 'schedule_id' },
  kanban_board: { label: 'Card Table', override: 'card_table_id' },
  questionnaire: { label: 'Automatic Check-ins', override: 'questionnaire_id' },
  inbox: { label: 'Email Forwards', override: 'inbox_id' },
};

export interface ProjectInfo {
  id: number;
  name: string;
  dock: ReturnType<typeof toDock>;
  raw: Record<string, unknown>;
}

/**
 * Finds a project's tool IDs (message board, to-do set, vault, chat, schedule) from its dock, so
 * agents pass only the project. Projects are kept for `dockCacheMs`; an explicit override ID
 * skips the lookup altogether.
 */
export class DockResolver {
  readonly #projects = new Map<string, { project: ProjectInfo; at: number }>();

  constructor(private readonly client: BasecampClient) {}

  async project(projectId: number, signal?: AbortSignal): Promise<ProjectInfo> {
    const accountId = await this.client.accountId();
    const key = `${accountId}:${projectId}`;
    const cached = this.#projects.get(key);
    if (cached && Date.now() - cached.at < this.client.settings.dockCacheMs) return cached.project;
    const response = await this.client.get<Record<string, unknown>>(`/projects/${projectId}.json`, {
      ...(signal ? { signal } : {}),
      notFound: `Project ${projectId} was not found, or you have no access to it. Use ${toolRef('list_projects')} to see project IDs.`,
    });
    if (typeof response.data !== 'object' || response.data === null) {
      throw new UpstreamError(
        `Basecamp answered GET /projects/${projectId}.json with something other than a project.`,
      );
    }
    const project: ProjectInfo = {
      id: projectId,
      name: typeof response.data.name === 'string' ? response.data.name : String(projectId),
      dock: toDock(response.data),
      raw: response.data,
    };
    this.#projects.set(key, { project, at: Date.now() });
    if (this.#projects.size > 200) this.#projects.delete(this.#projects.keys().next().value as string);
    return project;
  }

  /** Drops a project's cached dock, after a tool changed it (switched a tool on or off, added one). */
  forget(projectId: number): void {
    for (const key of this.#projects.keys()) if (key.endsWith(`:${projectId}`)) this.#projects.delete(key);
  }

  /** The ID of a project's tool: the override when given, else the one enabled dock entry of that kind. */
  async resolve(
    projectId: number,
    name: DockName,
    override: number | undefined,
    signal?: AbortSignal,
  ): Promise<number> {
    if (override !== undefined) return override;
    const project = await this.project(projectId, signal);
    const { label, override: overrideField } = LABELS[name];
    const entries = project.dock.filter((entry) => entry.name === name);
    const enabled = entries.filter((entry) => entry.enabled);
    if (entries.length === 0) {
      throw new ToolNotEnabledError(
        `Project "${project.name}" (${projectId}) has no ${label}. Use ${toolRef('get_project_tools')} to see which tools it has.`,
      );
    }
    if (enabled.length === 0) {
      throw new ToolNotEnabledError(
        `The ${label} of project "${project.name}" (${projectId}) is switched off. Someone must turn it on in Basecamp (the project's "Change tools" menu); ${toolRef('get_project_tools')} lists the tools that are on.`,
      );
    }
    if (enabled.length > 1) {
      const candidates = enabled.map((entry) => `${entry.id} (${entry.title})`);
      throw new InvalidInputError(
        `Project "${project.name}" (${projectId}) has ${enabled.length} ${label} tools: ${candidates.join(', ')}. Call again with ${overrideField} set to one of these IDs.`,
        { details: { candidates, field: overrideField } },
      );
    }
    return (enabled[0] as { id: number }).id;
  }
}
