import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { CommentSchema, lazy, toComment } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import { recordingScope } from './list-comments.js';
import {
  CREATES,
  ITEM_BODY_CHARS,
  id,
  itemProjectId,
  richText,
  scoped,
  type ToolDeps,
  withinProject,
} from './shared.js';

const createCommentShape = lazy(() => ({
  name: 'create_comment',
  title: 'Comment on an item',
  description: `Adds a comment to a message, to-do, document, upload or schedule entry and notifies the item's subscribers.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    recording_id: id(`Item ID, from ${toolRef('search')} or a list tool`),
    content: richText('The comment.', 20_000),
  }),
  outputSchema: CommentSchema,
  annotations: CREATES,
}));

export const createCreateComment = (deps: ToolDeps) =>
  defineTool({
    ...createCommentShape(),
    handler: async (input, { signal }) => {
      const scope = recordingScope(input.project_id, input.recording_id);
      const target = scoped(scope, `/recordings/${input.recording_id}/comments.json`, deps);
      const [markdown, html] = await Promise.all([deps.markdown(), deps.html()]);
      const response = await withinProject(deps, scope, signal, () =>
        deps.client.request<Record<string, unknown>>('POST', target.path, {
          body: { content: html(input.content) },
          signal,
          notFound: target.notFound,
        }),
      );
      return toComment(response.data ?? {}, markdown, ITEM_BODY_CHARS);
    },
  });

export const createComment = basecampTool(
  { toolset: 'messages', operations: ['CreateComment'], inDefault: true },
  createCreateComment,
);
