import { defineTool, InvalidInputError, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, number, PersonRefSchema, record, records, text, toPersonRef } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import {
  CREATES,
  id,
  isoDate,
  itemProjectId,
  itemRoute,
  itemScope,
  READS,
  SETS_STATE,
  send,
  type ToolDeps,
} from '../shared.js';

type Raw = Record<string, unknown>;

const EntrySchema = lazy(() =>
  z.object({
    id: z.number(),
    date: z.string(),
    hours: z.string().describe('As Basecamp stores it, e.g. "1.5" or "1:30"'),
    person: PersonRefSchema.nullable(),
    item: z
      .object({ id: z.number(), title: z.string(), type: z.string() })
      .nullable()
      .describe('What the time was logged on'),
    project: z.object({ id: z.number(), name: z.string() }).nullable(),
  }),
);
const toEntry = (raw: Raw): z.infer<ReturnType<typeof EntrySchema>> => {
  const parent = record(raw.parent);
  const bucket = record(raw.bucket);
  return {
    id: number(raw.id) ?? 0,
    date: text(raw.date) ?? '',
    hours: text(raw.hours) ?? '',
    person: toPersonRef(raw.person),
    item:
      parent && number(parent.id) !== null
        ? { id: number(parent.id) as number, title: text(parent.title) ?? '', type: text(parent.type) ?? '' }
        : null,
    project:
      bucket && number(bucket.id) !== null
        ? { id: number(bucket.id) as number, name: text(bucket.name) ?? '' }
        : null,
  };
};
const hours = () =>
  z
    .string()
    .regex(/^\d{1,3}(\.\d{1,2})?$|^\d{1,3}:[0-5]\d$/, 'hours like "1.5" or "1:30"')
    .describe('Time spent, "1.5" or "1:30"');

const listTimesheetShape = lazy(() => ({
  name: 'list_timesheet',
  title: 'Time logged',
  description: `Lists time entries, newest first: on one item (recording_id), in one project (project_id) or across the account; from, to and person_id narrow it.`,
  inputSchema: z.strictObject({
    project_id: id(`Project ID, from ${toolRef('list_projects')}`).optional(),
    recording_id: id('Item ID (to-do, card, ...), from a list tool').optional(),
    from: isoDate().optional().describe('First day'),
    to: isoDate().optional().describe('Last day'),
    person_id: id(`Only this person, from ${toolRef('list_people')}`).optional(),
  }),
  outputSchema: z.object({ items: z.array(EntrySchema()) }),
  annotations: READS,
}));

export const createListTimesheet = (deps: ToolDeps) =>
  defineTool({
    ...listTimesheetShape(),
    handler: async (input, { signal }) => {
      const path =
        input.recording_id !== undefined
          ? `${input.project_id === undefined ? '' : `/buckets/${input.project_id}`}/recordings/${input.recording_id}/timesheet.json`
          : input.project_id !== undefined
            ? `/projects/${input.project_id}/timesheet.json`
            : '/reports/timesheet.json';
      const data = (
        await deps.client.get<unknown>(path, {
          signal,
          query: { from: input.from, to: input.to, person_id: input.person_id },
          notFound: `That project or item was not found, or you have no access to it. Use ${toolRef('list_projects')} or a list tool to see IDs.`,
        })
      ).data;
      return { items: records(data).map(toEntry) };
    },
  });

const logTimeShape = lazy(() => ({
  name: 'log_time',
  title: 'Log time on an item',
  description: `Logs time spent on an item (to-do, card, ...) for a day, for you or for person_id. The project's timesheet must be on in Basecamp.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    recording_id: id('Item ID (to-do, card, ...), from a list tool'),
    date: isoDate().describe('The day'),
    hours: hours(),
    person_id: id(`Who did the work, from ${toolRef('list_people')} (default: you)`).optional(),
  }),
  outputSchema: EntrySchema(),
  annotations: CREATES,
}));

export const createLogTime = (deps: ToolDeps) =>
  defineTool({
    ...logTimeShape(),
    handler: async (input, { signal }) => {
      const data = await send(deps, 'POST', `/recordings/${input.recording_id}/timesheet/entries.json`, {
        signal,
        scope: itemScope(
          input.project_id,
          `Item ${input.recording_id}`,
          `/recordings/${input.recording_id}.json`,
          'a list tool',
        ),
        body: {
          date: input.date,
          hours: input.hours,
          ...(input.person_id === undefined ? {} : { person_id: input.person_id }),
        },
      });
      return toEntry(data ?? {});
    },
  });

const updateTimeEntryShape = lazy(() => ({
  name: 'update_time_entry',
  title: 'Correct a time entry',
  description: `Changes a time entry's day, hours or person.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    entry_id: id(`Time entry ID, from ${toolRef('list_timesheet')}`),
    date: isoDate().optional().describe('New day'),
    hours: hours().optional(),
    person_id: id(`New person, from ${toolRef('list_people')}`).optional(),
  }),
  outputSchema: EntrySchema(),
  annotations: SETS_STATE,
}));

export const createUpdateTimeEntry = (deps: ToolDeps) =>
  defineTool({
    ...updateTimeEntryShape(),
    handler: async (input, { signal }) => {
      const { project_id: project, entry_id: entryId, ...changes } = input;
      const scope = itemScope(
        project,
        `Time entry ${entryId}`,
        `/timesheet_entries/${entryId}.json`,
        'list_timesheet',
      );
      if (Object.keys(changes).length > 0) {
        return toEntry(
          (await send(deps, 'PUT', `/timesheet_entries/${entryId}.json`, { signal, scope, body: changes })) ??
            {},
        );
      }
      throw new InvalidInputError('Nothing to change: pass date, hours or person_id.');
    },
  });

const getTimeEntryShape = lazy(() => ({
  name: 'get_time_entry',
  title: 'Get a time entry',
  description: `Returns one time entry: day, hours, person and the item it is on.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    entry_id: id(`Time entry ID, from ${toolRef('list_timesheet')}`),
  }),
  outputSchema: EntrySchema(),
  annotations: READS,
}));

export const createGetTimeEntry = (deps: ToolDeps) =>
  defineTool({
    ...getTimeEntryShape(),
    handler: async (input, { signal }) =>
      toEntry(
        (
          await deps.client.get<Raw>(
            itemRoute(
              deps,
              input.project_id,
              `Time entry ${input.entry_id}`,
              `/timesheet_entries/${input.entry_id}.json`,
            ),
            {
              signal,
              notFound: `Time entry ${input.entry_id} was not found. Use ${toolRef('list_timesheet')} to see entry IDs.`,
            },
          )
        ).data ?? {},
      ),
  });

export const listTimesheet = basecampTool(
  { toolset: 'schedule', operations: ['GetTimesheetReport', 'GetProjectTimesheet', 'GetRecordingTimesheet'] },
  createListTimesheet,
);
export const logTime = basecampTool(
  { toolset: 'schedule', operations: ['CreateTimesheetEntry'] },
  createLogTime,
);
export const updateTimeEntry = basecampTool(
  { toolset: 'schedule', operations: ['UpdateTimesheetEntry'] },
  createUpdateTimeEntry,
);
export const getTimeEntry = basecampTool(
  { toolset: 'schedule', operations: ['GetTimesheetEntry'] },
  createGetTimeEntry,
);
