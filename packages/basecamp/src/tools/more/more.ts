import { defineTool, InvalidInputError, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import {
  lazy,
  PersonRefSchema,
  PersonSchema,
  records,
  ScheduleEntrySchema,
  TodoSchema,
  text,
  toPerson,
  toPersonRef,
  toScheduleEntry,
  toTodo,
  toUpload,
  UploadSchema,
} from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import {
  CREATES,
  DESTROYS,
  getOne,
  ITEM_BODY_CHARS,
  id,
  isoDate,
  itemProjectId,
  itemScope,
  LIST_BODY_CHARS,
  READS,
  SETS_STATE,
  scoped,
  type ToolDeps,
  withinProject,
} from '../shared.js';

type Raw = Record<string, unknown>;

const getScheduleEntryShape = lazy(() => ({
  name: 'get_schedule_entry',
  title: 'Get an event',
  description: `Returns one schedule entry with its description as Markdown, participants and recurrence; for a repeating entry, date gives that day's occurrence.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    entry_id: id(`Schedule entry ID, from ${toolRef('list_schedule_entries')}`),
    date: isoDate().optional().describe('For a repeating entry: the day of the occurrence'),
  }),
  outputSchema: ScheduleEntrySchema,
  annotations: READS,
}));

export const createGetScheduleEntry = (deps: ToolDeps) =>
  defineTool({
    ...getScheduleEntryShape(),
    handler: (input, { signal }) =>
      getOne(
        deps,
        input.date === undefined
          ? `/schedule_entries/${input.entry_id}.json`
          : `/schedule_entries/${input.entry_id}/occurrences/${input.date}.json`,
        {
          signal,
          scope: itemScope(
            input.project_id,
            `Schedule entry ${input.entry_id}`,
            `/schedule_entries/${input.entry_id}.json`,
            'list_schedule_entries',
          ),
          convert: toScheduleEntry,
        },
      ),
  });

const upcomingScheduleShape = lazy(() => ({
  name: 'upcoming_schedule',
  title: 'Upcoming events, all projects',
  description:
    'Lists the schedule entries of every project between two days (default: from today on), and the repeating ones, for "what is coming up".',
  inputSchema: z.strictObject({
    from: isoDate().optional().describe('First day'),
    to: isoDate().optional().describe('Last day'),
  }),
  outputSchema: z.object({
    entries: z.array(ScheduleEntrySchema),
    repeating: z.array(ScheduleEntrySchema),
  }),
  annotations: READS,
}));

export const createUpcomingSchedule = (deps: ToolDeps) =>
  defineTool({
    ...upcomingScheduleShape(),
    handler: async (input, { signal }) => {
      const [markdown, response] = await Promise.all([
        deps.markdown(),
        deps.client.get<Raw>('/reports/schedules/upcoming.json', {
          signal,
          query: { window_starts_on: input.from, window_ends_on: input.to },
        }),
      ]);
      const data = response.data ?? {};
      return {
        entries: records(data.schedule_entries).map((raw) => toScheduleEntry(raw, markdown, LIST_BODY_CHARS)),
        repeating: records(data.recurring_schedule_entry_occurrences).map((raw) =>
          toScheduleEntry(raw, markdown, LIST_BODY_CHARS),
        ),
      };
    },
  });

const uploadScope = (projectId: number | undefined, uploadId: number) =>
  itemScope(projectId, `Upload ${uploadId}`, `/uploads/${uploadId}.json`, 'list_uploads');

const getUploadShape = lazy(() => ({
  name: 'get_upload',
  title: 'Get an uploaded file',
  description: `Returns one uploaded file: name, type, size, download URL and description as Markdown. versions: true lists its earlier versions instead.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    upload_id: id(`Upload ID, from ${toolRef('list_uploads')}`),
    versions: z.boolean().default(false).describe('true: every version of the file, newest first'),
  }),
  outputSchema: z.object({ items: z.array(UploadSchema) }),
  annotations: READS,
}));

export const createGetUpload = (deps: ToolDeps) =>
  defineTool({
    ...getUploadShape(),
    handler: async (input, { signal }) => {
      const scope = uploadScope(input.project_id, input.upload_id);
      if (!input.versions) {
        return {
          items: [
            await getOne(deps, `/uploads/${input.upload_id}.json`, { signal, scope, convert: toUpload }),
          ],
        };
      }
      const target = scoped(scope, `/uploads/${input.upload_id}/versions.json`, deps);
      const [markdown, response] = await Promise.all([
        deps.markdown(),
        withinProject(deps, scope, signal, () =>
          deps.client.get<unknown>(target.path, { signal, notFound: target.notFound }),
        ),
      ]);
      return { items: records(response.data).map((raw) => toUpload(raw, markdown, ITEM_BODY_CHARS)) };
    },
  });

const MessageTypeSchema = lazy(() => z.object({ id: z.number(), name: z.string(), icon: z.string() }));
const toMessageType = (raw: Raw) => ({
  id: Number(raw.id) || 0,
  name: text(raw.name) ?? '',
  icon: text(raw.icon) ?? '',
});
const typeNotFound = (typeId: number) =>
  `Message type ${typeId} was not found. Use ${toolRef('list_message_types')} to see message type IDs.`;

const createMessageTypeShape = lazy(() => ({
  name: 'create_message_type',
  title: 'Add a message type',
  description:
    'Adds a message type (a category with an emoji icon, e.g. "Retro" 🔁) that messages can be filed under.',
  inputSchema: z.strictObject({
    name: z.string().trim().min(1).max(100).describe('The type name'),
    icon: z.string().trim().min(1).max(16).describe('An emoji'),
  }),
  outputSchema: MessageTypeSchema(),
  annotations: CREATES,
}));

export const createCreateMessageType = (deps: ToolDeps) =>
  defineTool({
    ...createMessageTypeShape(),
    handler: async (input, { signal }) =>
      toMessageType(
        (await deps.client.request<Raw>('POST', '/categories.json', { body: input, signal })).data ?? {},
      ),
  });

const updateMessageTypeShape = lazy(() => ({
  name: 'update_message_type',
  title: 'Change a message type',
  description: `Renames a message type or changes its icon.`,
  inputSchema: z.strictObject({
    type_id: id(`Message type ID, from ${toolRef('list_message_types')}`),
    name: z.string().trim().min(1).max(100).optional().describe('New name'),
    icon: z.string().trim().min(1).max(16).optional().describe('New emoji'),
  }),
  outputSchema: MessageTypeSchema(),
  annotations: SETS_STATE,
}));

export const createUpdateMessageType = (deps: ToolDeps) =>
  defineTool({
    ...updateMessageTypeShape(),
    handler: async (input, { signal }) => {
      const { type_id: typeId, ...changes } = input;
      if (Object.keys(changes).length === 0)
        throw new InvalidInputError('Nothing to change: pass name or icon.');
      const response = await deps.client.request<Raw>('PUT', `/categories/${typeId}.json`, {
        body: changes,
        signal,
        notFound: typeNotFound(typeId),
      });
      return toMessageType(response.data ?? {});
    },
  });

const deleteMessageTypeShape = lazy(() => ({
  name: 'delete_message_type',
  title: 'Delete a message type',
  description: `Deletes a message type; its messages stay, without a type.`,
  inputSchema: z.strictObject({ type_id: id(`Message type ID, from ${toolRef('list_message_types')}`) }),
  outputSchema: z.object({ type_id: z.number(), deleted: z.literal(true) }),
  annotations: DESTROYS,
}));

export const createDeleteMessageType = (deps: ToolDeps) =>
  defineTool({
    ...deleteMessageTypeShape(),
    confirm: (input) => `Delete message type ${input.type_id}? Its messages stay, without a type.`,
    handler: async (input, { signal }) => {
      await deps.client.request('DELETE', `/categories/${input.type_id}.json`, {
        signal,
        notFound: typeNotFound(input.type_id),
      });
      return { type_id: input.type_id, deleted: true as const };
    },
  });

const listPingablePeopleShape = lazy(() => ({
  name: 'list_pingable_people',
  title: 'People you can ping',
  description: 'Lists the people you can start a private chat (Ping) with, across the account.',
  inputSchema: z.strictObject({}),
  outputSchema: z.object({ items: z.array(PersonSchema) }),
  annotations: READS,
}));

export const createListPingablePeople = (deps: ToolDeps) =>
  defineTool({
    ...listPingablePeopleShape(),
    handler: async (_input, { signal }) => {
      const data = (await deps.client.get<unknown>('/circles/people.json', { signal })).data;
      return {
        items: records(data)
          .map(toPerson)
          .filter((person) => person !== null),
      };
    },
  });

const assignedTodosShape = lazy(() => ({
  name: 'assigned_todos',
  title: "A person's open to-dos",
  description: `Lists the open to-dos assigned to one person across projects; without person_id, the people who have some. For your own: ${toolRef('my_assignments')}.`,
  inputSchema: z.strictObject({ person_id: id(`Person ID, from ${toolRef('list_people')}`).optional() }),
  outputSchema: z.object({ people: z.array(PersonRefSchema), todos: z.array(TodoSchema) }),
  annotations: READS,
}));

export const createAssignedTodos = (deps: ToolDeps) =>
  defineTool({
    ...assignedTodosShape(),
    handler: async (input, { signal }) => {
      if (input.person_id === undefined) {
        const data = (await deps.client.get<unknown>('/reports/todos/assigned.json', { signal })).data;
        return {
          people: records(data)
            .map(toPersonRef)
            .filter((person) => person !== null),
          todos: [],
        };
      }
      const [markdown, response] = await Promise.all([
        deps.markdown(),
        deps.client.get<Raw>(`/reports/todos/assigned/${input.person_id}.json`, {
          signal,
          notFound: `Person ${input.person_id} was not found. Use ${toolRef('list_people')} to see person IDs.`,
        }),
      ]);
      const data = response.data ?? {};
      const person = toPersonRef(data.person);
      return {
        people: person ? [person] : [],
        todos: records(data.todos).map((raw) => toTodo(raw, markdown, 500)),
      };
    },
  });

export const getScheduleEntry = basecampTool(
  { toolset: 'schedule', operations: ['GetScheduleEntry', 'GetScheduleEntryOccurrence'] },
  createGetScheduleEntry,
);
export const upcomingSchedule = basecampTool(
  { toolset: 'schedule', operations: ['GetUpcomingSchedule'] },
  createUpcomingSchedule,
);
export const getUpload = basecampTool(
  { toolset: 'docs', operations: ['GetUpload', 'ListUploadVersions'] },
  createGetUpload,
);
export const createMessageType = basecampTool(
  { toolset: 'messages', operations: ['CreateMessageType'] },
  createCreateMessageType,
);
export const updateMessageType = basecampTool(
  { toolset: 'messages', operations: ['UpdateMessageType'] },
  createUpdateMessageType,
);
export const deleteMessageType = basecampTool(
  { toolset: 'messages', operations: ['DeleteMessageType'] },
  createDeleteMessageType,
);
export const listPingablePeople = basecampTool(
  { toolset: 'projects', operations: ['ListPingablePeople'] },
  createListPingablePeople,
);
export const assignedTodos = basecampTool(
  { toolset: 'activity', operations: ['ListAssignablePeople', 'GetAssignedTodos'] },
  createAssignedTodos,
);
