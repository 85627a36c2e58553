import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import {
  inProject,
  lazy,
  listSchema,
  number,
  PersonRefSchema,
  placement,
  text,
  toPersonRef,
} from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import {
  DESTROYS,
  id,
  itemProjectId,
  itemScope,
  limit,
  listPage,
  page,
  positiveId,
  READS,
  send,
  type ToolDeps,
} from '../shared.js';

const RECORDING_TYPES = [
  'Comment',
  'Document',
  'Kanban::Card',
  'Message',
  'Question',
  'Question::Answer',
  'Schedule::Entry',
  'Todo',
  'Todolist',
  'Upload',
  'Vault',
] as const;

const recordingScope = (projectId: number | undefined, recordingId: number) =>
  itemScope(
    projectId,
    `Item ${recordingId}`,
    `/recordings/${recordingId}.json`,
    `${toolRef('search')} or a list tool`,
  );

export const RecordingSchema = lazy(() =>
  z.object({
    id: z.number(),
    type: z.string(),
    title: z.string(),
    status: z.string(),
    ...inProject,
    creator: PersonRefSchema.nullable(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    app_url: z.string().nullable(),
  }),
);

const toRecording = (raw: Record<string, unknown>): z.infer<ReturnType<typeof RecordingSchema>> => ({
  id: number(raw.id) ?? 0,
  type: text(raw.type) ?? '',
  title: text(raw.title) ?? '',
  status: text(raw.status) ?? 'active',
  ...placement(raw),
  creator: toPersonRef(raw.creator),
  created_at: text(raw.created_at),
  updated_at: text(raw.updated_at),
  app_url: text(raw.app_url),
});

const setRecordingStatusShape = lazy(() => ({
  name: 'set_recording_status',
  title: 'Archive, trash or restore an item',
  description: `Archives, trashes or restores ("active") any item: message, to-do, to-do list, document, upload, card, comment, schedule entry or check-in question. Trashed items can be restored for 30 days.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    recording_id: id(`ID of the item, from a list tool or ${toolRef('search')}`),
    status: z
      .enum(['archived', 'trashed', 'active'])
      .describe('"archived", "trashed", or "active" to restore'),
  }),
  outputSchema: z.object({ recording_id: z.number(), status: z.string() }),
  annotations: DESTROYS,
}));

export const createSetRecordingStatus = (deps: ToolDeps) =>
  defineTool({
    ...setRecordingStatusShape(),
    confirm: (input) => {
      const where = input.project_id === undefined ? '' : ` in project ${input.project_id}`;
      if (input.status === 'trashed')
        return `Trash item ${input.recording_id}${where}? It can be restored for 30 days.`;
      if (input.status === 'archived') return `Archive item ${input.recording_id}${where}?`;
      return undefined;
    },
    handler: async (input, { signal }) => {
      await send(deps, 'PUT', `/recordings/${input.recording_id}/status/${input.status}.json`, {
        signal,
        scope: recordingScope(input.project_id, input.recording_id),
      });
      return { recording_id: input.recording_id, status: input.status };
    },
  });

const listRecordingsShape = lazy(() => ({
  name: 'list_recordings',
  title: 'List items of one type across projects',
  description: `Lists items of one type across all projects or the ones named, newest change first, or the archived or trashed ones. Good for "what changed lately" and for finding items to restore with ${toolRef('set_recording_status')}.`,
  inputSchema: z.strictObject({
    type: z.enum(RECORDING_TYPES).describe('The kind of item'),
    project_ids: z.array(positiveId()).max(50).optional().describe('Only these projects'),
    status: z
      .enum(['active', 'archived', 'trashed'])
      .default('active')
      .describe('Archived or trashed ones instead'),
    sort: z.enum(['updated_at', 'created_at']).default('updated_at').describe('Order by'),
    direction: z.enum(['desc', 'asc']).default('desc').describe('desc: newest first'),
    page: page(),
    limit: limit(50),
  }),
  outputSchema: listSchema(RecordingSchema()),
  annotations: READS,
}));

export const createListRecordings = (deps: ToolDeps) =>
  defineTool({
    ...listRecordingsShape(),
    handler: (input, { signal }) =>
      listPage(deps, '/projects/recordings.json', {
        query: {
          type: input.type,
          bucket: input.project_ids?.join(','),
          status: input.status === 'active' ? undefined : input.status,
          sort: input.sort === 'updated_at' ? undefined : input.sort,
          direction: input.direction === 'desc' ? undefined : input.direction,
        },
        page: input.page,
        limit: input.limit,
        signal,
        notFound: 'Basecamp did not find recordings of that type.',
        convert: (raw) => toRecording(raw),
      }),
  });

const EventSchema = lazy(() =>
  z.object({
    id: z.number(),
    action: z.string().describe('What happened, e.g. "created", "completed", "archived"'),
    creator: PersonRefSchema.nullable(),
    created_at: z.string().nullable(),
  }),
);

const listEventsShape = lazy(() => ({
  name: 'list_events',
  title: 'What happened to an item',
  description: `Lists an item's history, newest first: who created, changed, completed, archived or restored it, and when.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    recording_id: id(`ID of the item, from a list tool or ${toolRef('search')}`),
    page: page(),
    limit: limit(50),
  }),
  outputSchema: listSchema(EventSchema()),
  annotations: READS,
}));

export const createListEvents = (deps: ToolDeps) =>
  defineTool({
    ...listEventsShape(),
    handler: (input, { signal }) => {
      const scope = recordingScope(input.project_id, input.recording_id);
      return listPage(deps, `/recordings/${input.recording_id}/events.json`, {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: scope.notFound,
        scope,
        convert: (raw) => ({
          id: number(raw.id) ?? 0,
          action: text(raw.action) ?? '',
          creator: toPersonRef(raw.creator),
          created_at: text(raw.created_at),
        }),
      });
    },
  });

export const setRecordingStatus = basecampTool(
  { toolset: 'activity', operations: ['ArchiveRecording', 'TrashRecording', 'UnarchiveRecording'] },
  createSetRecordingStatus,
);
export const listRecordings = basecampTool(
  { toolset: 'activity', operations: ['ListRecordings'] },
  createListRecordings,
);
export const listEvents = basecampTool({ toolset: 'activity', operations: ['ListEvents'] }, createListEvents);
