import { defineTool } from '@x/mcp-core';
import { z } from 'zod';
import { listSchema, toUpload, UploadSchema } from '../shapes.js';
import { dockOverride, limit, listPage, page, projectId, READS, type ToolDeps } from './shared.js';

export const createListUploads = (deps: ToolDeps) =>
  defineTool({
    name: 'list_uploads',
    title: 'List uploaded files',
    description:
      "Lists the files uploaded to a project's Docs & Files: file name, type, size, download URL and description. Take project_id from list_projects. Documents written in Basecamp are in list_documents.",
    inputSchema: z.strictObject({
      project_id: projectId(),
      vault_id: dockOverride('Docs & Files vault (or a folder ID)'),
      page: page(),
      limit: limit(50),
    }),
    outputSchema: listSchema(UploadSchema),
    annotations: READS,
    handler: async (input, { signal }) => {
      const vault = await deps.docks.resolve(input.project_id, 'vault', input.vault_id, signal);
      return listPage(deps, `/vaults/${vault}/uploads.json`, {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: `Vault ${vault} was not found, or you have no access to it. Use get_project_tools to see the project's tools.`,
        convert: toUpload,
      });
    },
  });
