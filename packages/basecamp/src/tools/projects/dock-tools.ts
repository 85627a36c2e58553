import { defineTool, InvalidInputError, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { DockEntrySchema, lazy, number } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import { CREATES, id, projectId, SETS_STATE, type ToolDeps } from '../shared.js';

const DockSchema = lazy(() =>
  z.object({
    project_id: z.number(),
    dock: z.array(DockEntrySchema).describe("The project's tools after the change"),
  }),
);

const toolId = (
  description = `ID of a tool of the project (a dock entry), from ${toolRef('get_project_tools')}`,
) => id(description);

/** The project's dock read again, past the resolver's cache, after a change. */
async function freshDock(deps: ToolDeps, projectId: number, signal: AbortSignal) {
  deps.docks.forget(projectId);
  const project = await deps.docks.project(projectId, signal);
  return { project_id: projectId, dock: project.dock };
}

const updateProjectToolShape = lazy(() => ({
  name: 'update_project_tool',
  title: "Switch, rename or move a project's tool",
  description: `Changes one tool of a project (message board, to-dos, Docs & Files, chat, schedule, card table, check-ins, email forwards): switch it off (hidden, nothing deleted) or on, rename it, or move it in the tool bar.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    tool_id: toolId(),
    enabled: z.boolean().optional().describe('true: switch the tool on; false: switch it off'),
    title: z.string().trim().min(1).max(255).optional().describe('New name of the tool'),
    position: z
      .number()
      .int()
      .min(1)
      .max(100)
      .optional()
      .describe("New place in the project's tool bar, 1 = first"),
  }),
  outputSchema: DockSchema(),
  annotations: SETS_STATE,
}));

export const createUpdateProjectTool = (deps: ToolDeps) =>
  defineTool({
    ...updateProjectToolShape(),
    handler: async (input, { signal }) => {
      if (input.enabled === undefined && input.title === undefined && input.position === undefined)
        throw new InvalidInputError('Nothing to change: pass enabled, title or position.');
      if (input.enabled === false && input.position !== undefined)
        throw new InvalidInputError(
          'A tool switched off has no position: pass enabled or position, not both.',
        );
      const project = await deps.docks.project(input.project_id, signal);
      const entry = project.dock.find((candidate) => candidate.id === input.tool_id);
      if (!entry) {
        throw new InvalidInputError(
          `Project ${input.project_id} has no tool ${input.tool_id}. Its tools: ${project.dock.map((candidate) => `${candidate.id} (${candidate.title})`).join(', ')}.`,
          {
            details: { candidates: project.dock.map((candidate) => `${candidate.id} (${candidate.title})`) },
          },
        );
      }
      const notFound = `Tool ${input.tool_id} was not found in project ${input.project_id}. Use ${toolRef('get_project_tools')} to see its tools.`;
      const bucket = `/buckets/${input.project_id}`;
      if (input.title !== undefined) {
        await deps.client.request('PUT', `/dock/tools/${input.tool_id}.json`, {
          signal,
          body: { title: input.title },
          notFound,
        });
      }
      if (input.enabled !== undefined && input.enabled !== entry.enabled) {
        await deps.client.request(
          input.enabled ? 'POST' : 'DELETE',
          `${bucket}/recordings/${input.tool_id}/position.json`,
          { signal, notFound },
        );
      }
      if (input.position !== undefined) {
        await deps.client.request('PUT', `${bucket}/recordings/${input.tool_id}/position.json`, {
          signal,
          body: { position: input.position },
          notFound,
        });
      }
      return freshDock(deps, input.project_id, signal);
    },
  });

const addProjectToolShape = lazy(() => ({
  name: 'add_project_tool',
  title: 'Add a second chat, board or other tool to a project',
  description: `Adds a new, empty tool to a project by copying the kind of an existing one (e.g. a second chat, or another to-do set).`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    source_tool_id: toolId(`ID of an existing tool of the kind to add, from ${toolRef('get_project_tools')}`),
    title: z.string().trim().min(1).max(255).describe('Name of the new tool, e.g. "Q&A Chat"'),
  }),
  outputSchema: DockSchema().extend({ tool_id: z.number().describe('ID of the new tool') }),
  annotations: CREATES,
}));

export const createAddProjectTool = (deps: ToolDeps) =>
  defineTool({
    ...addProjectToolShape(),
    handler: async (input, { signal }) => {
      const response = await deps.client.request<Record<string, unknown>>(
        'POST',
        `/buckets/${input.project_id}/dock/tools.json`,
        {
          signal,
          body: { source_recording_id: input.source_tool_id, title: input.title },
          notFound: `Project ${input.project_id} or tool ${input.source_tool_id} was not found. Use ${toolRef('get_project_tools')} to see the project's tools.`,
        },
      );
      const created = number(response.data?.id);
      const dock = await freshDock(deps, input.project_id, signal);
      return { ...dock, tool_id: created ?? 0 };
    },
  });

export const updateProjectTool = basecampTool(
  {
    toolset: 'projects',
    operations: ['UpdateTool', 'EnableTool', 'DisableTool', 'RepositionTool', 'GetProject'],
  },
  createUpdateProjectTool,
);
export const addProjectTool = basecampTool(
  { toolset: 'projects', operations: ['CloneTool', 'GetProject'] },
  createAddProjectTool,
);
