import { defineTool, InvalidInputError, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { CommentSchema, lazy, MessageSchema, number, text, toComment, toMessage } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import {
  id,
  itemProjectId,
  itemScope,
  READS,
  richText,
  SETS_STATE,
  send,
  sendOne,
  type ToolDeps,
} from '../shared.js';

const messageScope = (projectId: number | undefined, messageId: number) =>
  itemScope(projectId, `Message ${messageId}`, `/messages/${messageId}.json`, 'list_messages');

const updateMessageShape = lazy(() => ({
  name: 'update_message',
  title: 'Edit a message',
  description: `Changes a message's subject, body (Markdown) or type (category_id, from ${toolRef('list_message_types')}).`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    message_id: id(`Message ID, from ${toolRef('list_messages')}`),
    subject: z.string().trim().min(1).max(500).optional().describe('New subject'),
    content: richText('New body.').optional(),
    category_id: id(`Message type ID, from ${toolRef('list_message_types')}`).optional(),
  }),
  outputSchema: MessageSchema,
  annotations: SETS_STATE,
}));

export const createUpdateMessage = (deps: ToolDeps) =>
  defineTool({
    ...updateMessageShape(),
    handler: async (input, { signal }) => {
      if (input.subject === undefined && input.content === undefined && input.category_id === undefined) {
        throw new InvalidInputError('Nothing to change: pass subject, content or category_id.');
      }
      const html = await deps.html();
      return sendOne(deps, 'PUT', `/messages/${input.message_id}.json`, {
        signal,
        scope: messageScope(input.project_id, input.message_id),
        body: {
          ...(input.subject === undefined ? {} : { subject: input.subject }),
          ...(input.content === undefined ? {} : { content: html(input.content) }),
          ...(input.category_id === undefined ? {} : { category_id: input.category_id }),
        },
        convert: toMessage,
      });
    },
  });

const pinMessageShape = lazy(() => ({
  name: 'pin_message',
  title: 'Pin or unpin a message',
  description: `Pins a message to the top of its message board (pinned: true, the default) or unpins it.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    message_id: id(`Message ID, from ${toolRef('list_messages')}`),
    pinned: z.boolean().default(true).describe('true: pin (default); false: unpin'),
  }),
  outputSchema: z.object({ message_id: z.number(), pinned: z.boolean() }),
  annotations: SETS_STATE,
}));

export const createPinMessage = (deps: ToolDeps) =>
  defineTool({
    ...pinMessageShape(),
    handler: async (input, { signal }) => {
      await send(deps, input.pinned ? 'POST' : 'DELETE', `/recordings/${input.message_id}/pin.json`, {
        signal,
        scope: messageScope(input.project_id, input.message_id),
      });
      return { message_id: input.message_id, pinned: input.pinned };
    },
  });

const listMessageTypesShape = lazy(() => ({
  name: 'list_message_types',
  title: 'List message types',
  description: `Lists the message types (categories such as "Announcement" or "FYI", each with an icon) that ${toolRef('create_message')} and ${toolRef('update_message')} accept as category_id.`,
  inputSchema: z.strictObject({}),
  outputSchema: z.object({
    items: z.array(z.object({ id: z.number(), name: z.string(), icon: z.string() })),
  }),
  annotations: READS,
}));

export const createListMessageTypes = (deps: ToolDeps) =>
  defineTool({
    ...listMessageTypesShape(),
    handler: async (_input, { signal }) => {
      const data = (await deps.client.get<unknown>('/categories.json', { signal })).data;
      return {
        items: (Array.isArray(data) ? data : []).map((raw: Record<string, unknown>) => ({
          id: number(raw.id) ?? 0,
          name: text(raw.name) ?? '',
          icon: text(raw.icon) ?? '',
        })),
      };
    },
  });

const updateCommentShape = lazy(() => ({
  name: 'update_comment',
  title: 'Edit a comment',
  description: `Replaces the text (Markdown) of a comment. Trash a comment with ${toolRef('set_recording_status')}.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    comment_id: id(`Comment ID, from ${toolRef('list_comments')}`),
    content: richText('The new comment.', 20_000),
  }),
  outputSchema: CommentSchema,
  annotations: SETS_STATE,
}));

export const createUpdateComment = (deps: ToolDeps) =>
  defineTool({
    ...updateCommentShape(),
    handler: async (input, { signal }) => {
      const html = await deps.html();
      return sendOne(deps, 'PUT', `/comments/${input.comment_id}.json`, {
        signal,
        scope: itemScope(
          input.project_id,
          `Comment ${input.comment_id}`,
          `/comments/${input.comment_id}.json`,
          'list_comments',
        ),
        body: { content: html(input.content) },
        convert: toComment,
      });
    },
  });

export const updateMessage = basecampTool(
  { toolset: 'messages', operations: ['UpdateMessage'] },
  createUpdateMessage,
);
export const pinMessage = basecampTool(
  { toolset: 'messages', operations: ['PinMessage', 'UnpinMessage'] },
  createPinMessage,
);
export const listMessageTypes = basecampTool(
  { toolset: 'messages', operations: ['ListMessageTypes'] },
  createListMessageTypes,
);
export const updateComment = basecampTool(
  { toolset: 'messages', operations: ['UpdateComment'] },
  createUpdateComment,
);
