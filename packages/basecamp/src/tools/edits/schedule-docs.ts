import { defineTool, InvalidInputError, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import {
  DocumentSchema,
  FolderSchema,
  lazy,
  ScheduleEntrySchema,
  toDocument,
  toFolder,
  toScheduleEntry,
  toUpload,
  UploadSchema,
} from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import { folderId, folderTarget } from '../list-folders.js';
import {
  assigneeIds,
  CREATES,
  dockOverride,
  id,
  isoDateTime,
  itemProjectId,
  itemScope,
  projectId,
  richText,
  SETS_STATE,
  sendOne,
  type ToolDeps,
  toolProject,
} from '../shared.js';

const time = (description: string) =>
  isoDateTime().describe(`${description}, with its time zone (e.g. 2026-03-15T14:00:00Z)`);

const createScheduleEntryShape = lazy(() => ({
  name: 'create_schedule_entry',
  title: 'Add an event to a schedule',
  description: `Puts an event or meeting on a project's schedule, with optional description (Markdown), participants (from ${toolRef('list_people')}) and all_day.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    schedule_id: dockOverride(),
    summary: z.string().trim().min(1).max(500).describe("The event's title"),
    starts_at: time('Start'),
    ends_at: time('End'),
    all_day: z.boolean().default(false).describe('An all-day event'),
    description: richText('Details.').optional(),
    participant_ids: assigneeIds(`People taking part, by ID from ${toolRef('list_people')}`).optional(),
    notify: z.boolean().default(false).describe('Notify the participants'),
  }),
  outputSchema: ScheduleEntrySchema,
  annotations: CREATES,
}));

export const createCreateScheduleEntry = (deps: ToolDeps) =>
  defineTool({
    ...createScheduleEntryShape(),
    handler: async (input, { signal }) => {
      if (Date.parse(input.ends_at) < Date.parse(input.starts_at)) {
        throw new InvalidInputError('ends_at is before starts_at.');
      }
      const schedule = await deps.docks.resolve(input.project_id, 'schedule', input.schedule_id, signal);
      const html = await deps.html();
      return sendOne(deps, 'POST', `/schedules/${schedule}/entries.json`, {
        signal,
        scope: {
          projectId: toolProject(deps, input.project_id),
          what: `Schedule ${schedule}`,
          probe: `/schedules/${schedule}.json`,
          notFound: `Schedule ${schedule} was not found, or you have no access to it. Use ${toolRef('get_project_tools')} to see the project's tools.`,
        },
        body: {
          summary: input.summary,
          starts_at: input.starts_at,
          ends_at: input.ends_at,
          ...(input.all_day ? { all_day: true } : {}),
          ...(input.description === undefined ? {} : { description: html(input.description) }),
          ...(input.participant_ids === undefined ? {} : { participant_ids: input.participant_ids }),
          ...(input.notify ? { notify: true } : {}),
        },
        convert: toScheduleEntry,
      });
    },
  });

const updateScheduleEntryShape = lazy(() => ({
  name: 'update_schedule_entry',
  title: 'Change an event',
  description: `Changes a schedule entry (an event or meeting): title, times (reschedule), all_day, description (Markdown) or participants (replaced).`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    entry_id: id(`Schedule entry ID, from ${toolRef('list_schedule_entries')}`),
    summary: z.string().trim().min(1).max(500).optional().describe('New title'),
    starts_at: time('New start').optional(),
    ends_at: time('New end').optional(),
    all_day: z.boolean().optional().describe('An all-day event'),
    description: richText('New details.').optional(),
    participant_ids: assigneeIds(
      `Everyone taking part from now on, by ID from ${toolRef('list_people')}`,
    ).optional(),
  }),
  outputSchema: ScheduleEntrySchema,
  annotations: SETS_STATE,
}));

export const createUpdateScheduleEntry = (deps: ToolDeps) =>
  defineTool({
    ...updateScheduleEntryShape(),
    handler: async (input, { signal }) => {
      const { project_id: _project, entry_id: entryId, description, ...rest } = input;
      if (Object.keys(rest).length === 0 && description === undefined) {
        throw new InvalidInputError(
          'Nothing to change: pass summary, starts_at, ends_at, all_day, description or participant_ids.',
        );
      }
      const html = await deps.html();
      return sendOne(deps, 'PUT', `/schedule_entries/${entryId}.json`, {
        signal,
        scope: itemScope(
          input.project_id,
          `Schedule entry ${entryId}`,
          `/schedule_entries/${entryId}.json`,
          'list_schedule_entries',
        ),
        body: { ...rest, ...(description === undefined ? {} : { description: html(description) }) },
        convert: toScheduleEntry,
      });
    },
  });

const createDocumentShape = lazy(() => ({
  name: 'create_document',
  title: 'Write a document',
  description: `Creates a document (Markdown) in a project's Docs & Files, or in one folder with folder_id (from ${toolRef('list_folders')}).`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    folder_id: folderId(),
    vault_id: dockOverride(),
    title: z.string().trim().min(1).max(500).describe("The document's title"),
    content: richText('The document.', 200_000),
    draft: z.boolean().default(false).describe('Save as a draft only you see'),
  }),
  outputSchema: DocumentSchema,
  annotations: CREATES,
}));

export const createCreateDocument = (deps: ToolDeps) =>
  defineTool({
    ...createDocumentShape(),
    handler: async (input, { signal }) => {
      const target = await folderTarget(deps, input, signal);
      const html = await deps.html();
      return sendOne(deps, 'POST', `/vaults/${target.vault}/documents.json`, {
        signal,
        scope: target.scope ?? {
          projectId: toolProject(deps, input.project_id),
          what: `Vault ${target.vault}`,
          probe: `/vaults/${target.vault}.json`,
          notFound: target.notFound,
        },
        body: {
          title: input.title,
          content: html(input.content),
          status: input.draft ? 'drafted' : 'active',
        },
        convert: toDocument,
      });
    },
  });

const updateDocumentShape = lazy(() => ({
  name: 'update_document',
  title: 'Edit a document',
  description: `Changes a document's title or replaces its body (Markdown).`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    document_id: id(`Document ID, from ${toolRef('list_documents')}`),
    title: z.string().trim().min(1).max(500).optional().describe('New title'),
    content: richText('The new body.', 200_000).optional(),
  }),
  outputSchema: DocumentSchema,
  annotations: SETS_STATE,
}));

export const createUpdateDocument = (deps: ToolDeps) =>
  defineTool({
    ...updateDocumentShape(),
    handler: async (input, { signal }) => {
      if (input.title === undefined && input.content === undefined) {
        throw new InvalidInputError('Nothing to change: pass title or content.');
      }
      const html = await deps.html();
      return sendOne(deps, 'PUT', `/documents/${input.document_id}.json`, {
        signal,
        scope: itemScope(
          input.project_id,
          `Document ${input.document_id}`,
          `/documents/${input.document_id}.json`,
          'list_documents',
        ),
        body: {
          ...(input.title === undefined ? {} : { title: input.title }),
          ...(input.content === undefined ? {} : { content: html(input.content) }),
        },
        convert: toDocument,
      });
    },
  });

const createFolderShape = lazy(() => ({
  name: 'create_folder',
  title: 'Add a Docs & Files folder',
  description: `Creates a folder in a project's Docs & Files, or inside another folder with folder_id (from ${toolRef('list_folders')}).`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    folder_id: folderId(),
    vault_id: dockOverride(),
    title: z.string().trim().min(1).max(500).describe("The folder's name"),
  }),
  outputSchema: FolderSchema,
  annotations: CREATES,
}));

export const createCreateFolder = (deps: ToolDeps) =>
  defineTool({
    ...createFolderShape(),
    handler: async (input, { signal }) => {
      const target = await folderTarget(deps, input, signal);
      return sendOne(deps, 'POST', `/vaults/${target.vault}/vaults.json`, {
        signal,
        scope: target.scope ?? {
          projectId: toolProject(deps, input.project_id),
          what: `Vault ${target.vault}`,
          probe: `/vaults/${target.vault}.json`,
          notFound: target.notFound,
        },
        body: { title: input.title },
        convert: (raw) => toFolder(raw),
      });
    },
  });

const renameFolderShape = lazy(() => ({
  name: 'rename_folder',
  title: 'Rename a folder',
  description: `Renames a Docs & Files folder.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    folder_id: id(`Folder ID, from ${toolRef('list_folders')}`),
    title: z.string().trim().min(1).max(500).describe('New name'),
  }),
  outputSchema: FolderSchema,
  annotations: SETS_STATE,
}));

export const createRenameFolder = (deps: ToolDeps) =>
  defineTool({
    ...renameFolderShape(),
    handler: (input, { signal }) =>
      sendOne(deps, 'PUT', `/vaults/${input.folder_id}.json`, {
        signal,
        scope: itemScope(
          input.project_id,
          `Folder ${input.folder_id}`,
          `/vaults/${input.folder_id}.json`,
          'list_folders',
        ),
        body: { title: input.title },
        convert: (raw) => toFolder(raw),
      }),
  });

const updateUploadShape = lazy(() => ({
  name: 'update_upload',
  title: 'Rename or describe a file',
  description: `Renames an uploaded file (name without its extension) or replaces its description (Markdown).`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    upload_id: id(`Upload ID, from ${toolRef('list_uploads')}`),
    name: z.string().trim().min(1).max(255).optional().describe('New file name, without the extension'),
    description: richText('New description.').optional(),
  }),
  outputSchema: UploadSchema,
  annotations: SETS_STATE,
}));

export const createUpdateUpload = (deps: ToolDeps) =>
  defineTool({
    ...updateUploadShape(),
    handler: async (input, { signal }) => {
      if (input.name === undefined && input.description === undefined) {
        throw new InvalidInputError('Nothing to change: pass name or description.');
      }
      const html = await deps.html();
      return sendOne(deps, 'PUT', `/uploads/${input.upload_id}.json`, {
        signal,
        scope: itemScope(
          input.project_id,
          `Upload ${input.upload_id}`,
          `/uploads/${input.upload_id}.json`,
          'list_uploads',
        ),
        body: {
          ...(input.name === undefined ? {} : { base_name: input.name }),
          ...(input.description === undefined ? {} : { description: html(input.description) }),
        },
        convert: toUpload,
      });
    },
  });

export const createScheduleEntry = basecampTool(
  { toolset: 'schedule', operations: ['CreateScheduleEntry'] },
  createCreateScheduleEntry,
);
export const updateScheduleEntry = basecampTool(
  { toolset: 'schedule', operations: ['UpdateScheduleEntry'] },
  createUpdateScheduleEntry,
);
export const createDocument = basecampTool(
  { toolset: 'docs', operations: ['CreateDocument'] },
  createCreateDocument,
);
export const updateDocument = basecampTool(
  { toolset: 'docs', operations: ['UpdateDocument'] },
  createUpdateDocument,
);
export const createFolder = basecampTool(
  { toolset: 'docs', operations: ['CreateVault'] },
  createCreateFolder,
);
export const renameFolder = basecampTool(
  { toolset: 'docs', operations: ['UpdateVault'] },
  createRenameFolder,
);
export const updateUpload = basecampTool(
  { toolset: 'docs', operations: ['UpdateUpload'] },
  createUpdateUpload,
);
