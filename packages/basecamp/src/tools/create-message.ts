import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, MessageSchema, toMessage } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import {
  CREATES,
  dockOverride,
  ITEM_BODY_CHARS,
  projectId,
  projectRoute,
  richText,
  type ToolDeps,
} from './shared.js';

const createMessageShape = lazy(() => ({
  name: 'create_message',
  title: 'Post a message',
  description: `Posts a message on a project's message board and notifies the project's people.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    subject: z.string().trim().min(1).max(255).describe('Title'),
    content: richText('Body').optional(),
    message_board_id: dockOverride(),
  }),
  outputSchema: MessageSchema,
  annotations: CREATES,
}));

export const createCreateMessage = (deps: ToolDeps) =>
  defineTool({
    ...createMessageShape(),
    handler: async (input, { signal }) => {
      const board = await deps.docks.resolve(
        input.project_id,
        'message_board',
        input.message_board_id,
        signal,
      );
      const [markdown, html] = await Promise.all([deps.markdown(), deps.html()]);
      const response = await deps.client.request<Record<string, unknown>>(
        'POST',
        projectRoute(deps, input.project_id, `/message_boards/${board}/messages.json`),
        {
          body: {
            subject: input.subject,
            status: 'active',
            ...(input.content === undefined ? {} : { content: html(input.content) }),
          },
          signal,
          notFound: `Message board ${board} was not found, or you have no access to it. Use ${toolRef('get_project_tools')} to see the project's tools.`,
        },
      );
      return toMessage(response.data ?? {}, markdown, ITEM_BODY_CHARS);
    },
  });

export const createMessage = basecampTool(
  { toolset: 'messages', operations: ['CreateMessage'], inDefault: true },
  createCreateMessage,
);
