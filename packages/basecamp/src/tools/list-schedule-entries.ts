import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, listSchema, ScheduleEntrySchema, toScheduleEntry } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import {
  dockOverride,
  limit,
  listPage,
  page,
  projectId,
  projectRoute,
  READS,
  type ToolDeps,
} from './shared.js';

const listScheduleEntriesShape = lazy(() => ({
  name: 'list_schedule_entries',
  title: 'List schedule entries',
  description: `Lists the events on a project's schedule, with recurrence for repeating ones. Discussion: ${toolRef('list_comments')}.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    schedule_id: dockOverride(),
    page: page(),
    limit: limit(50),
  }),
  outputSchema: listSchema(ScheduleEntrySchema),
  annotations: READS,
}));

export const createListScheduleEntries = (deps: ToolDeps) =>
  defineTool({
    ...listScheduleEntriesShape(),
    handler: async (input, { signal }) => {
      const schedule = await deps.docks.resolve(input.project_id, 'schedule', input.schedule_id, signal);
      return listPage(deps, projectRoute(deps, input.project_id, `/schedules/${schedule}/entries.json`), {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: `Schedule ${schedule} was not found, or you have no access to it. Use ${toolRef('get_project_tools')} to see the project's tools.`,
        convert: toScheduleEntry,
      });
    },
  });

export const listScheduleEntries = basecampTool(
  { toolset: 'schedule', operations: ['ListScheduleEntries'], inDefault: true },
  createListScheduleEntries,
);
