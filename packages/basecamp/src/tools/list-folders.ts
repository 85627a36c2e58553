import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { FolderSchema, lazy, listSchema, toFolder } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import {
  dockOverride,
  type ItemScope,
  id,
  limit,
  listPage,
  page,
  projectId,
  READS,
  type ToolDeps,
  toolProject,
} from './shared.js';

export const folderId = () =>
  id(`Folder ID, from ${toolRef('list_folders')}; default: the top level`).optional();

/**
 * The folder (vault) a Docs & Files tool lists: `folder_id` inside the project when given, else
 * the project's top-level vault from its dock.
 */
export async function folderTarget(
  deps: ToolDeps,
  input: { project_id: number; folder_id?: number | undefined; vault_id?: number | undefined },
  signal: AbortSignal,
): Promise<{ vault: number; notFound: string; scope?: ItemScope }> {
  if (input.folder_id !== undefined) {
    const scope: ItemScope = {
      projectId: input.project_id,
      what: `Folder ${input.folder_id}`,
      probe: `/vaults/${input.folder_id}.json`,
      notFound: `Folder ${input.folder_id} was not found, or you have no access to it. Use ${toolRef('list_folders')} to see folder IDs.`,
    };
    return { vault: input.folder_id, notFound: scope.notFound, scope };
  }
  const vault = await deps.docks.resolve(input.project_id, 'vault', input.vault_id, signal);
  const notFound = `Vault ${vault} was not found, or you have no access to it. Use ${toolRef('get_project_tools')} to see the project's tools.`;
  const project = toolProject(deps, input.project_id);
  // A limited server sends it inside the project (the scope), as a folder.
  const scope =
    project === undefined
      ? undefined
      : { projectId: project, what: `Vault ${vault}`, probe: `/vaults/${vault}.json`, notFound };
  return { vault, notFound, ...(scope ? { scope } : {}) };
}

const listFoldersShape = lazy(() => ({
  name: 'list_folders',
  title: 'List Docs & Files folders',
  description: `Lists the folders in a project's Docs & Files (or in folder_id), with counts of what each holds. Pass a folder's ID as folder_id here or to ${toolRef('list_documents')} / ${toolRef('list_uploads')} to look inside.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    folder_id: folderId(),
    vault_id: dockOverride(),
    page: page(),
    limit: limit(50),
  }),
  outputSchema: listSchema(FolderSchema),
  annotations: READS,
}));

export const createListFolders = (deps: ToolDeps) =>
  defineTool({
    ...listFoldersShape(),
    handler: async (input, { signal }) => {
      const target = await folderTarget(deps, input, signal);
      return listPage(deps, `/vaults/${target.vault}/vaults.json`, {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: target.notFound,
        ...(target.scope ? { scope: target.scope } : {}),
        convert: (raw) => toFolder(raw),
      });
    },
  });

export const listFolders = basecampTool(
  { toolset: 'docs', operations: ['ListVaults'], inDefault: true },
  createListFolders,
);
