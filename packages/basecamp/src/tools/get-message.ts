import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, MessageSchema, toMessage } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import { getOne, id, itemProjectId, READS, type ToolDeps } from './shared.js';

const getMessageShape = lazy(() => ({
  name: 'get_message',
  title: 'Read a message',
  description: `Returns one message board post with its whole body as Markdown. Replies: ${toolRef('list_comments')}.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    message_id: id(`Message ID, from ${toolRef('list_messages')} or ${toolRef('search')}`),
  }),
  outputSchema: MessageSchema,
  annotations: READS,
}));

export const createGetMessage = (deps: ToolDeps) =>
  defineTool({
    ...getMessageShape(),
    handler: ({ project_id, message_id }, { signal }) =>
      getOne(deps, `/messages/${message_id}.json`, {
        signal,
        scope: {
          projectId: project_id,
          what: `Message ${message_id}`,
          probe: `/messages/${message_id}.json`,
          notFound: `Message ${message_id} was not found, or you have no access to it. Use ${toolRef('list_messages')} to see message IDs.`,
        },
        convert: toMessage,
      }),
  });

export const getMessage = basecampTool(
  { toolset: 'messages', operations: ['GetMessage'], inDefault: true },
  createGetMessage,
);
