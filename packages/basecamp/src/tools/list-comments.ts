import { defineTool } from '@x/mcp-core';
import { z } from 'zod';
import { CommentSchema, listSchema, toComment } from '../shapes.js';
import { id, limit, listPage, page, READS, type ToolDeps } from './shared.js';

export const createListComments = (deps: ToolDeps) =>
  defineTool({
    name: 'list_comments',
    title: 'List comments',
    description:
      "Lists the comments on any Basecamp item (a message, to-do, document, upload or schedule entry), oldest first, with authors and bodies as Markdown. Pass the item's ID as recording_id (from get_message, list_todos, list_documents, ...).",
    inputSchema: z.strictObject({
      recording_id: id('ID of the commented item: a message, to-do, document, upload or schedule entry'),
      page: page(),
      limit: limit(50),
    }),
    outputSchema: listSchema(CommentSchema),
    annotations: READS,
    handler: (input, { signal }) =>
      listPage(deps, `/recordings/${input.recording_id}/comments.json`, {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: `Item ${input.recording_id} was not found, or you have no access to it. Pass the ID of a message, to-do, document or upload.`,
        convert: toComment,
      }),
  });
