import { defineTool } from '@x/mcp-core';
import { z } from 'zod';
import { markdownToHtml } from '../markdown/markdown-to-html.js';
import { CommentSchema, toComment } from '../shapes.js';
import { CREATES, ITEM_BODY_CHARS, id, richText, type ToolDeps } from './shared.js';

export const createCreateComment = (deps: ToolDeps) =>
  defineTool({
    name: 'create_comment',
    title: 'Comment on an item',
    description:
      "Adds a comment to a message, to-do, document, upload or schedule entry; the item's subscribers are notified. Pass the item's ID as recording_id (from list_messages, list_todos, list_documents, ...). Returns the new comment.",
    inputSchema: z.strictObject({
      recording_id: id('ID of the item to comment on: a message, to-do, document, upload or schedule entry'),
      content: richText('The comment.', 20_000),
    }),
    outputSchema: CommentSchema,
    annotations: CREATES,
    handler: async (input, { signal }) => {
      const [markdown, response] = await Promise.all([
        deps.markdown(),
        deps.client.request<Record<string, unknown>>(
          'POST',
          `/recordings/${input.recording_id}/comments.json`,
          {
            body: { content: markdownToHtml(input.content) },
            signal,
            notFound: `Item ${input.recording_id} was not found, or you have no access to it. Pass the ID of a message, to-do, document or upload.`,
          },
        ),
      ]);
      return toComment(response.data ?? {}, markdown, ITEM_BODY_CHARS);
    },
  });
