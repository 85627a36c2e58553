import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { CampfireLineSchema, CommentSchema, lazy, toCampfireLine, toComment } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import {
  dockOverride,
  getOne,
  ITEM_BODY_CHARS,
  id,
  itemProjectId,
  itemScope,
  projectId,
  projectRoute,
  READS,
  type ToolDeps,
} from '../shared.js';

const getCommentShape = lazy(() => ({
  name: 'get_comment',
  title: 'Get a comment',
  description: `Returns one comment, whole, with its author and the item it is on. For a comment ID from a link, a notification or ${toolRef('search')}; all of an item's comments: ${toolRef('list_comments')}.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    comment_id: id(`Comment ID (the number after "comment_" in a link), from ${toolRef('list_comments')}`),
  }),
  outputSchema: CommentSchema,
  annotations: READS,
}));

export const createGetComment = (deps: ToolDeps) =>
  defineTool({
    ...getCommentShape(),
    handler: (input, { signal }) =>
      getOne(deps, `/comments/${input.comment_id}.json`, {
        signal,
        scope: itemScope(
          input.project_id,
          `Comment ${input.comment_id}`,
          `/comments/${input.comment_id}.json`,
          'list_comments',
        ),
        convert: toComment,
      }),
  });

const getChatLineShape = lazy(() => ({
  name: 'get_chat_line',
  title: 'Get one chat line',
  description: `Returns one chat line, whole (${toolRef('list_campfire_lines')} cuts long ones), with its author or the file it carries.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    chat_id: dockOverride(),
    line_id: id(`Line ID, from ${toolRef('list_campfire_lines')}`),
  }),
  outputSchema: CampfireLineSchema,
  annotations: READS,
}));

export const createGetChatLine = (deps: ToolDeps) =>
  defineTool({
    ...getChatLineShape(),
    handler: async (input, { signal }) => {
      const chat = await deps.docks.resolve(input.project_id, 'chat', input.chat_id, signal);
      const [markdown, response] = await Promise.all([
        deps.markdown(),
        deps.client.get<Record<string, unknown>>(
          projectRoute(deps, input.project_id, `/chats/${chat}/lines/${input.line_id}.json`),
          {
            signal,
            notFound: `Line ${input.line_id} was not found in chat ${chat}. Use ${toolRef('list_campfire_lines')} to see line IDs.`,
          },
        ),
      ]);
      return toCampfireLine(response.data ?? {}, markdown, ITEM_BODY_CHARS);
    },
  });

export const getComment = basecampTool({ toolset: 'messages', operations: ['GetComment'] }, createGetComment);
export const getChatLine = basecampTool(
  { toolset: 'chat', operations: ['GetCampfireLine'] },
  createGetChatLine,
);
