import { defineTool } from '@x/mcp-core';
import { z } from 'zod';
import { DocumentSchema, listSchema, toDocument } from '../shapes.js';
import { dockOverride, limit, listPage, page, projectId, READS, type ToolDeps } from './shared.js';

export const createListDocuments = (deps: ToolDeps) =>
  defineTool({
    name: 'list_documents',
    title: 'List documents',
    description:
      "Lists the documents in a project's Docs & Files, newest first, with the start of each as Markdown. Take project_id from list_projects; read one with get_document. Uploaded files are in list_uploads.",
    inputSchema: z.strictObject({
      project_id: projectId(),
      vault_id: dockOverride('Docs & Files vault (or a folder ID)'),
      page: page(),
      limit: limit(25),
    }),
    outputSchema: listSchema(DocumentSchema),
    annotations: READS,
    handler: async (input, { signal }) => {
      const vault = await deps.docks.resolve(input.project_id, 'vault', input.vault_id, signal);
      return listPage(deps, `/vaults/${vault}/documents.json`, {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: `Vault ${vault} was not found, or you have no access to it. Use get_project_tools to see the project's tools.`,
        convert: toDocument,
      });
    },
  });
