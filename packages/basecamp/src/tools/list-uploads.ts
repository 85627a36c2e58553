import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, listSchema, toUpload, UploadSchema } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import { folderId, folderTarget } from './list-folders.js';
import { dockOverride, limit, listPage, page, projectId, READS, type ToolDeps } from './shared.js';

const listUploadsShape = lazy(() => ({
  name: 'list_uploads',
  title: 'List uploaded files',
  description: `Lists the files that have been uploaded to a project's Docs & Files (or in folder_id), with download URLs. Documents written in Basecamp: ${toolRef('list_documents')}.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    folder_id: folderId(),
    vault_id: dockOverride(),
    page: page(),
    limit: limit(50),
  }),
  outputSchema: listSchema(UploadSchema),
  annotations: READS,
}));

export const createListUploads = (deps: ToolDeps) =>
  defineTool({
    ...listUploadsShape(),
    handler: async (input, { signal }) => {
      const target = await folderTarget(deps, input, signal);
      return listPage(deps, `/vaults/${target.vault}/uploads.json`, {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: target.notFound,
        ...(target.scope ? { scope: target.scope } : {}),
        convert: toUpload,
      });
    },
  });

export const listUploads = basecampTool(
  { toolset: 'docs', operations: ['ListUploads'], inDefault: true },
  createListUploads,
);
