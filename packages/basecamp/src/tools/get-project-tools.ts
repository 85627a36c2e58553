import { defineTool } from '@x/mcp-core';
import { z } from 'zod';
import { DockEntrySchema, lazy } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import { projectId, READS, type ToolDeps } from './shared.js';

const ids = ['message_board', 'todoset', 'vault', 'chat', 'schedule'] as const;

const getProjectToolsShape = lazy(() => ({
  name: 'get_project_tools',
  title: 'Get a project and its tools',
  description: `Returns a project and its tools (Basecamp's dock) with their IDs and enabled state. Rarely needed: other tools find these IDs from project_id. Use it when a project has two of a tool (e.g. two chats).`,
  inputSchema: z.strictObject({ project_id: projectId() }),
  outputSchema: z.object({
    id: z.number(),
    name: z.string(),
    description: z.string(),
    status: z.string(),
    app_url: z.string().nullable(),
    message_board_id: z.number().nullable(),
    todoset_id: z.number().nullable(),
    vault_id: z.number().nullable(),
    chat_id: z.number().nullable().describe('Null when the project has no chat, or more than one (see dock)'),
    schedule_id: z.number().nullable(),
    dock: z.array(DockEntrySchema),
  }),
  annotations: READS,
}));

export const createGetProjectTools = (deps: ToolDeps) =>
  defineTool({
    ...getProjectToolsShape(),
    handler: async ({ project_id }, { signal }) => {
      const project = await deps.docks.project(project_id, signal);
      const single = (name: (typeof ids)[number]) => {
        const enabled = project.dock.filter((entry) => entry.name === name && entry.enabled);
        return enabled.length === 1 ? (enabled[0]?.id ?? null) : null;
      };
      const raw = project.raw;
      return {
        id: project.id,
        name: project.name,
        description: typeof raw.description === 'string' ? raw.description : '',
        status: typeof raw.status === 'string' ? raw.status : 'active',
        app_url: typeof raw.app_url === 'string' ? raw.app_url : null,
        message_board_id: single('message_board'),
        todoset_id: single('todoset'),
        vault_id: single('vault'),
        chat_id: single('chat'),
        schedule_id: single('schedule'),
        dock: project.dock,
      };
    },
  });

export const getProjectTools = basecampTool(
  { toolset: 'projects', operations: ['GetProject'], inDefault: true },
  createGetProjectTools,
);
