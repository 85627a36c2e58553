import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { CampfireLineSchema, lazy, listSchema, toCampfireLine } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import {
  dockOverride,
  limit,
  listPage,
  page,
  projectId,
  projectRoute,
  READS,
  type ToolDeps,
} from './shared.js';

const listCampfireLinesShape = lazy(() => ({
  name: 'list_campfire_lines',
  title: 'Read a project chat',
  description: `Lists what people said lately in a project's chat (Campfire), newest line first; a file line gives its download URL.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    chat_id: dockOverride(),
    page: page(),
    limit: limit(50),
  }),
  outputSchema: listSchema(CampfireLineSchema),
  annotations: READS,
}));

export const createListCampfireLines = (deps: ToolDeps) =>
  defineTool({
    ...listCampfireLinesShape(),
    handler: async (input, { signal }) => {
      const chat = await deps.docks.resolve(input.project_id, 'chat', input.chat_id, signal);
      return listPage(deps, projectRoute(deps, input.project_id, `/chats/${chat}/lines.json`), {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: `Chat ${chat} was not found, or you have no access to it. Use ${toolRef('get_project_tools')} to see the project's chats.`,
        convert: toCampfireLine,
      });
    },
  });

export const listCampfireLines = basecampTool(
  { toolset: 'chat', operations: ['ListCampfireLines'], inDefault: true },
  createListCampfireLines,
);
