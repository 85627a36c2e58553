import { defineTool, InvalidInputError, toolRef, UpstreamError } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, number, records, text } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import {
  CREATES,
  DESTROYS,
  date,
  dockOverride,
  id,
  projectId,
  projectRoute,
  READS,
  SETS_STATE,
  type ToolDeps,
} from '../shared.js';

type Raw = Record<string, unknown>;

const MarkerSchema = lazy(() =>
  z.object({
    id: z.number(),
    name: z.string(),
    date: z.string().describe('YYYY-MM-DD'),
    created_at: z.string().nullable(),
  }),
);
const toMarker = (raw: Raw): z.infer<ReturnType<typeof MarkerSchema>> => ({
  id: number(raw.id) ?? 0,
  name: text(raw.name) ?? '',
  date: text(raw.date) ?? '',
  created_at: text(raw.created_at),
});

async function markers(deps: ToolDeps, signal: AbortSignal) {
  const response = await deps.client.get<unknown>('/lineup/markers.json', { signal });
  return records(response.data).map(toMarker);
}

const markerName = () => z.string().trim().min(1).max(255).describe('What the date marks, e.g. "Launch"');
const markerNotFound = (markerId: number) =>
  `Lineup marker ${markerId} was not found. Use ${toolRef('list_lineup_markers')} to see marker IDs.`;

const listLineupMarkersShape = lazy(() => ({
  name: 'list_lineup_markers',
  title: 'List Lineup markers',
  description:
    "Lists the account-wide markers of Basecamp's Lineup (the timeline of every project): named dates like a launch or a holiday, in date order.",
  inputSchema: z.strictObject({}),
  outputSchema: z.object({ items: z.array(MarkerSchema()) }),
  annotations: READS,
}));

export const createListLineupMarkers = (deps: ToolDeps) =>
  defineTool({
    ...listLineupMarkersShape(),
    handler: async (_input, { signal }) => ({
      items: (await markers(deps, signal)).sort((a, b) => a.date.localeCompare(b.date)),
    }),
  });

const createLineupMarkerShape = lazy(() => ({
  name: 'create_lineup_marker',
  title: 'Add a Lineup marker',
  description:
    "Adds a named date to the account's Lineup (every member sees it on the timeline of all projects).",
  inputSchema: z.strictObject({ name: markerName(), date: date('The date to mark') }),
  outputSchema: MarkerSchema(),
  annotations: CREATES,
}));

export const createCreateLineupMarker = (deps: ToolDeps) =>
  defineTool({
    ...createLineupMarkerShape(),
    handler: async (input, { signal }) => {
      const before = new Set((await markers(deps, signal)).map((marker) => marker.id));
      // Basecamp answers 201 with an empty body: the new marker is the one that was not there before.
      await deps.client.request('POST', '/lineup/markers.json', {
        signal,
        body: { name: input.name, date: input.date },
      });
      const added = (await markers(deps, signal)).find(
        (marker) => !before.has(marker.id) && marker.name === input.name && marker.date === input.date,
      );
      if (!added) {
        throw new UpstreamError(
          `Basecamp accepted the marker but does not list it. Use ${toolRef('list_lineup_markers')} to check before adding it again.`,
        );
      }
      return added;
    },
  });

const updateLineupMarkerShape = lazy(() => ({
  name: 'update_lineup_marker',
  title: 'Change a Lineup marker',
  description: `Renames a Lineup marker or moves it to another date.`,
  inputSchema: z.strictObject({
    marker_id: id(`Marker ID, from ${toolRef('list_lineup_markers')}`),
    name: markerName().optional(),
    date: date('The new date').optional(),
  }),
  outputSchema: MarkerSchema(),
  annotations: SETS_STATE,
}));

export const createUpdateLineupMarker = (deps: ToolDeps) =>
  defineTool({
    ...updateLineupMarkerShape(),
    handler: async (input, { signal }) => {
      if (input.name === undefined && input.date === undefined)
        throw new InvalidInputError('Nothing to change: pass name or date.');
      await deps.client.request('PUT', `/lineup/markers/${input.marker_id}.json`, {
        signal,
        body: {
          ...(input.name === undefined ? {} : { name: input.name }),
          ...(input.date === undefined ? {} : { date: input.date }),
        },
        notFound: markerNotFound(input.marker_id),
      });
      const marker = (await markers(deps, signal)).find((entry) => entry.id === input.marker_id);
      return (
        marker ?? { id: input.marker_id, name: input.name ?? '', date: input.date ?? '', created_at: null }
      );
    },
  });

const deleteLineupMarkerShape = lazy(() => ({
  name: 'delete_lineup_marker',
  title: 'Remove a Lineup marker',
  description: 'Removes a marker from the Lineup for everyone, at once (it is not kept in the trash).',
  inputSchema: z.strictObject({ marker_id: id(`Marker ID, from ${toolRef('list_lineup_markers')}`) }),
  outputSchema: z.object({ marker_id: z.number(), deleted: z.literal(true) }),
  annotations: DESTROYS,
}));

export const createDeleteLineupMarker = (deps: ToolDeps) =>
  defineTool({
    ...deleteLineupMarkerShape(),
    confirm: (input) => `Remove Lineup marker ${input.marker_id} for everyone? It is not kept in the trash.`,
    handler: async (input, { signal }) => {
      await deps.client.request('DELETE', `/lineup/markers/${input.marker_id}.json`, {
        signal,
        notFound: markerNotFound(input.marker_id),
      });
      return { marker_id: input.marker_id, deleted: true as const };
    },
  });

const updateScheduleSettingsShape = lazy(() => ({
  name: 'update_schedule_settings',
  title: "Show due to-dos and cards on a project's schedule",
  description: `Sets whether a project's schedule also shows the due dates of its to-dos and cards (include_due_assignments), besides its own events.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    schedule_id: dockOverride(),
    include_due_assignments: z
      .boolean()
      .describe('true: the schedule lists to-dos and cards on their due dates; false: only events'),
  }),
  outputSchema: z.object({
    schedule_id: z.number(),
    title: z.string(),
    include_due_assignments: z.boolean(),
    entries_count: z.number().nullable(),
  }),
  annotations: SETS_STATE,
}));

export const createUpdateScheduleSettings = (deps: ToolDeps) =>
  defineTool({
    ...updateScheduleSettingsShape(),
    handler: async (input, { signal }) => {
      const schedule = await deps.docks.resolve(input.project_id, 'schedule', input.schedule_id, signal);
      const response = await deps.client.request<Raw>(
        'PUT',
        projectRoute(deps, input.project_id, `/schedules/${schedule}.json`),
        {
          signal,
          body: { include_due_assignments: input.include_due_assignments },
          notFound: `Schedule ${schedule} was not found. Use ${toolRef('get_project_tools')} to see the project's tools.`,
        },
      );
      const raw = response.data ?? {};
      return {
        schedule_id: number(raw.id) ?? schedule,
        title: text(raw.title) ?? '',
        include_due_assignments: raw.include_due_assignments === true,
        entries_count: number(raw.entries_count),
      };
    },
  });

export const listLineupMarkers = basecampTool(
  { toolset: 'schedule', operations: ['ListLineupMarkers'] },
  createListLineupMarkers,
);
export const createLineupMarker = basecampTool(
  { toolset: 'schedule', operations: ['CreateLineupMarker', 'ListLineupMarkers'] },
  createCreateLineupMarker,
);
export const updateLineupMarker = basecampTool(
  { toolset: 'schedule', operations: ['UpdateLineupMarker'] },
  createUpdateLineupMarker,
);
export const deleteLineupMarker = basecampTool(
  { toolset: 'schedule', operations: ['DeleteLineupMarker'] },
  createDeleteLineupMarker,
);
export const updateScheduleSettings = basecampTool(
  { toolset: 'schedule', operations: ['UpdateScheduleSettings'] },
  createUpdateScheduleSettings,
);
