import { defineTool, InvalidInputError, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, number, records, text } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import { dockOverride, id, projectId, projectRoute, READS, SETS_STATE, type ToolDeps } from '../shared.js';

type Raw = Record<string, unknown>;

const HillChartSchema = lazy(() =>
  z.object({
    todoset_id: z.number(),
    enabled: z.boolean().describe('false until a to-do list is tracked'),
    stale: z.boolean().describe('Nobody has updated the hill for a while'),
    updated_at: z.string().nullable(),
    dots: z
      .array(
        z.object({
          todolist_id: z.number(),
          label: z.string(),
          color: z.string().nullable(),
          position: z
            .number()
            .describe(
              '0-100: below 50 still figuring it out (uphill), 50 and above making it happen (downhill)',
            ),
          app_url: z.string().nullable(),
        }),
      )
      .describe('One dot per tracked to-do list'),
    app_update_url: z
      .string()
      .nullable()
      .describe('Where a person drags the dots (the API cannot move them)'),
  }),
);

const toHillChart = (raw: Raw, todosetId: number): z.infer<ReturnType<typeof HillChartSchema>> => ({
  todoset_id: todosetId,
  enabled: raw.enabled === true,
  stale: raw.stale === true,
  updated_at: text(raw.updated_at),
  dots: records(raw.dots).map((dot) => ({
    todolist_id: number(dot.id) ?? 0,
    label: text(dot.label) ?? '',
    color: text(dot.color),
    position: number(dot.position) ?? 0,
    app_url: text(dot.app_url),
  })),
  app_update_url: text(raw.app_update_url),
});

const notFound = (todoset: number) =>
  `To-do set ${todoset} was not found. Use ${toolRef('get_project_tools')} to see the project's tools.`;

const getHillChartShape = lazy(() => ({
  name: 'get_hill_chart',
  title: "Get a project's hill chart",
  description: `Returns the hill chart of a project's to-dos: where each tracked to-do list stands, from figuring it out (uphill) to making it happen (downhill).`,
  inputSchema: z.strictObject({ project_id: projectId(), todoset_id: dockOverride() }),
  outputSchema: HillChartSchema(),
  annotations: READS,
}));

export const createGetHillChart = (deps: ToolDeps) =>
  defineTool({
    ...getHillChartShape(),
    handler: async (input, { signal }) => {
      const todoset = await deps.docks.resolve(input.project_id, 'todoset', input.todoset_id, signal);
      const response = await deps.client.get<Raw>(
        projectRoute(deps, input.project_id, `/todosets/${todoset}/hill.json`),
        {
          signal,
          notFound: notFound(todoset),
        },
      );
      return toHillChart(response.data ?? {}, todoset);
    },
  });

const listIds = (description: string) =>
  z
    .array(id(`To-do list ID, from ${toolRef('list_todolists')}`))
    .max(100)
    .default([])
    .describe(description);

const trackOnHillChartShape = lazy(() => ({
  name: 'track_on_hill_chart',
  title: 'Choose the to-do lists on a hill chart',
  description: `Adds to-do lists to a project's hill chart (track) or takes them off (untrack); tracking the first list turns the chart on.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    todoset_id: dockOverride(),
    track: listIds('Lists to show on the hill chart'),
    untrack: listIds('Lists to take off it'),
  }),
  outputSchema: HillChartSchema(),
  annotations: SETS_STATE,
}));

export const createTrackOnHillChart = (deps: ToolDeps) =>
  defineTool({
    ...trackOnHillChartShape(),
    handler: async (input, { signal }) => {
      if (input.track.length === 0 && input.untrack.length === 0)
        throw new InvalidInputError('Nothing to change: pass track or untrack.');
      const both = input.track.filter((list) => input.untrack.includes(list));
      if (both.length > 0)
        throw new InvalidInputError(`To-do lists both tracked and untracked: ${both.join(', ')}.`);
      const todoset = await deps.docks.resolve(input.project_id, 'todoset', input.todoset_id, signal);
      const response = await deps.client.request<Raw>(
        'PUT',
        projectRoute(deps, input.project_id, `/todosets/${todoset}/hills/settings.json`),
        {
          signal,
          body: {
            ...(input.track.length > 0 ? { tracked: input.track } : {}),
            ...(input.untrack.length > 0 ? { untracked: input.untrack } : {}),
          },
          notFound: notFound(todoset),
        },
      );
      return toHillChart(response.data ?? {}, todoset);
    },
  });

export const getHillChart = basecampTool(
  { toolset: 'todos', operations: ['GetHillChart'] },
  createGetHillChart,
);
export const trackOnHillChart = basecampTool(
  { toolset: 'todos', operations: ['UpdateHillChartSettings'] },
  createTrackOnHillChart,
);
