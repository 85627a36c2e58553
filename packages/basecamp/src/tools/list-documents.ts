import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { DocumentSchema, lazy, listSchema, toDocument } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import { folderId, folderTarget } from './list-folders.js';
import { dockOverride, limit, listPage, page, projectId, READS, type ToolDeps } from './shared.js';

const listDocumentsShape = lazy(() => ({
  name: 'list_documents',
  title: 'List documents',
  description: `Lists the documents in a project's Docs & Files (or in folder_id), newest first. Read one with ${toolRef('get_document')}; uploaded files: ${toolRef('list_uploads')}.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    folder_id: folderId(),
    vault_id: dockOverride(),
    page: page(),
    limit: limit(25),
  }),
  outputSchema: listSchema(DocumentSchema),
  annotations: READS,
}));

export const createListDocuments = (deps: ToolDeps) =>
  defineTool({
    ...listDocumentsShape(),
    handler: async (input, { signal }) => {
      const target = await folderTarget(deps, input, signal);
      return listPage(deps, `/vaults/${target.vault}/documents.json`, {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: target.notFound,
        ...(target.scope ? { scope: target.scope } : {}),
        convert: toDocument,
      });
    },
  });

export const listDocuments = basecampTool(
  { toolset: 'docs', operations: ['ListDocuments'], inDefault: true },
  createListDocuments,
);
