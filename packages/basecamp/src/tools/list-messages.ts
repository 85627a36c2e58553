import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, listSchema, MessageSchema, toMessage } from '../shapes.js';
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

const listMessagesShape = lazy(() => ({
  name: 'list_messages',
  title: 'List message board posts',
  description: `Lists a project's message board posts, newest first, with the start of each body. Read one whole with ${toolRef('get_message')}, its replies with ${toolRef('list_comments')}.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    message_board_id: dockOverride(),
    page: page(),
    limit: limit(25),
  }),
  outputSchema: listSchema(MessageSchema),
  annotations: READS,
}));

export const createListMessages = (deps: ToolDeps) =>
  defineTool({
    ...listMessagesShape(),
    handler: async (input, { signal }) => {
      const board = await deps.docks.resolve(
        input.project_id,
        'message_board',
        input.message_board_id,
        signal,
      );
      return listPage(deps, projectRoute(deps, input.project_id, `/message_boards/${board}/messages.json`), {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: `Message board ${board} was not found, or you have no access to it. Use ${toolRef('get_project_tools')} to see the project's tools.`,
        convert: toMessage,
      });
    },
  });

export const listMessages = basecampTool(
  { toolset: 'messages', operations: ['ListMessages'], inDefault: true },
  createListMessages,
);
