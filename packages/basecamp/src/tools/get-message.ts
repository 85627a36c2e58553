import { defineTool } from '@x/mcp-core';
import { z } from 'zod';
import { MessageSchema, toMessage } from '../shapes.js';
import { getOne, id, READS, type ToolDeps } from './shared.js';

export const createGetMessage = (deps: ToolDeps) =>
  defineTool({
    name: 'get_message',
    title: 'Read a message',
    description:
      'Returns one message board post with its whole body as Markdown (mentions as @Name, images and files as links, code as fenced blocks). Take message_id from list_messages or search; read the replies with list_comments.',
    inputSchema: z.strictObject({ message_id: id('Message ID, from list_messages or search') }),
    outputSchema: MessageSchema,
    annotations: READS,
    handler: ({ message_id }, { signal }) =>
      getOne(deps, `/messages/${message_id}.json`, {
        signal,
        notFound: `Message ${message_id} was not found, or you have no access to it. Use list_messages to see message IDs.`,
        convert: toMessage,
      }),
  });
