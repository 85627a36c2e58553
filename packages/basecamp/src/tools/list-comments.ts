import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { CommentSchema, lazy, listSchema, toComment } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import { id, itemProjectId, limit, listPage, page, READS, type ToolDeps } from './shared.js';

export function recordingScope(projectId: number | undefined, recordingId: number) {
  return {
    projectId,
    what: `Item ${recordingId}`,
    probe: `/recordings/${recordingId}/comments.json`,
    notFound: `Item ${recordingId} was not found, or you have no access to it. Pass the ID of a message, to-do, document, upload or schedule entry.`,
  };
}

const listCommentsShape = lazy(() => ({
  name: 'list_comments',
  title: 'List comments',
  description: `Lists the comments on an item (message, to-do, document, upload, schedule entry), oldest first.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    recording_id: id(`Item ID, from ${toolRef('search')} or a list tool`),
    page: page(),
    limit: limit(50),
  }),
  outputSchema: listSchema(CommentSchema),
  annotations: READS,
}));

export const createListComments = (deps: ToolDeps) =>
  defineTool({
    ...listCommentsShape(),
    handler: (input, { signal }) => {
      const scope = recordingScope(input.project_id, input.recording_id);
      return listPage(deps, `/recordings/${input.recording_id}/comments.json`, {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: scope.notFound,
        scope,
        convert: toComment,
      });
    },
  });

export const listComments = basecampTool(
  { toolset: 'messages', operations: ['ListComments'], inDefault: true },
  createListComments,
);
