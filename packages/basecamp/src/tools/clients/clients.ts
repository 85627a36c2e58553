import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import type { HtmlToMarkdown } from '../../markdown/html-to-markdown.js';
import {
  body,
  inProject,
  lazy,
  listSchema,
  number,
  PersonRefSchema,
  placement,
  text,
  toPersonRef,
} from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import {
  CREATES,
  dockOverride,
  getOne,
  id,
  itemProjectId,
  itemScope,
  limit,
  listPage,
  page,
  projectId,
  projectRoute,
  READS,
  richText,
  SETS_STATE,
  sendOne,
  type ToolDeps,
} from '../shared.js';

type Raw = Record<string, unknown>;

export const ClientItemSchema = lazy(() =>
  z.object({
    id: z.number(),
    type: z
      .string()
      .describe('"Client::Approval", "Client::Correspondence", "Inbox::Forward" or a reply type'),
    ...inProject,
    subject: z.string(),
    author: PersonRefSchema.nullable(),
    from: z.string().nullable().describe('For a forwarded email: who sent it'),
    approval_status: z.string().nullable().describe('For an approval: pending, approved or rejected'),
    approver: PersonRefSchema.nullable(),
    due_on: z.string().nullable(),
    replies_count: z.number(),
    created_at: z.string().nullable(),
    app_url: z.string().nullable(),
    content: z.string(),
    content_truncated: z.boolean(),
  }),
);

function toClientItem(
  raw: Raw,
  markdown: HtmlToMarkdown,
  max: number,
): z.infer<ReturnType<typeof ClientItemSchema>> {
  const content = body(markdown, raw.content, max);
  return {
    id: number(raw.id) ?? 0,
    type: text(raw.type) ?? '',
    ...placement(raw),
    subject: text(raw.subject) ?? text(raw.title) ?? '',
    author: toPersonRef(raw.creator),
    from: text(raw.from),
    approval_status: text(raw.approval_status),
    approver: toPersonRef(raw.approver),
    due_on: text(raw.due_on),
    replies_count: number(raw.replies_count) ?? 0,
    created_at: text(raw.created_at),
    app_url: text(raw.app_url),
    content: content.text,
    content_truncated: content.truncated,
  };
}

const KINDS = {
  approvals: { path: 'approvals', what: 'Client approval' },
  correspondences: { path: 'correspondences', what: 'Client email' },
} as const;
const kind = () =>
  z
    .enum(['approvals', 'correspondences'])
    .describe('"approvals" (sign-off requests) or "correspondences" (client emails)');

const listClientItemsShape = lazy(() => ({
  name: 'list_client_items',
  title: 'List client approvals or emails',
  description: `Lists a project's client approvals (status, approver, due date) or correspondences (emails shared with the client), newest first. Replies: ${toolRef('list_client_replies')}.`,
  inputSchema: z.strictObject({ project_id: projectId(), kind: kind(), page: page(), limit: limit(30) }),
  outputSchema: listSchema(ClientItemSchema()),
  annotations: READS,
}));

export const createListClientItems = (deps: ToolDeps) =>
  defineTool({
    ...listClientItemsShape(),
    handler: (input, { signal }) =>
      listPage(deps, `/buckets/${input.project_id}/client/${KINDS[input.kind].path}.json`, {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: `Project ${input.project_id} was not found, or you have no access to it. Use ${toolRef('list_projects')} to see project IDs.`,
        convert: toClientItem,
      }),
  });

const getClientItemShape = lazy(() => ({
  name: 'get_client_item',
  title: 'Get a client approval or email',
  description: `Returns one client approval or correspondence, whole, as Markdown.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    kind: kind(),
    item_id: id(`ID from ${toolRef('list_client_items')}`),
  }),
  outputSchema: ClientItemSchema(),
  annotations: READS,
}));

export const createGetClientItem = (deps: ToolDeps) =>
  defineTool({
    ...getClientItemShape(),
    handler: (input, { signal }) => {
      const { path, what } = KINDS[input.kind];
      return getOne(deps, `/client/${path}/${input.item_id}.json`, {
        signal,
        scope: itemScope(
          input.project_id,
          `${what} ${input.item_id}`,
          `/recordings/${input.item_id}.json`,
          'list_client_items',
        ),
        convert: toClientItem,
      });
    },
  });

const listClientRepliesShape = lazy(() => ({
  name: 'list_client_replies',
  title: 'Read replies to a client approval or email',
  description: `Lists the replies to a client approval or correspondence, oldest first.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    recording_id: id(`Approval or correspondence ID, from ${toolRef('list_client_items')}`),
    page: page(),
    limit: limit(30),
  }),
  outputSchema: listSchema(ClientItemSchema()),
  annotations: READS,
}));

export const createListClientReplies = (deps: ToolDeps) =>
  defineTool({
    ...listClientRepliesShape(),
    handler: (input, { signal }) =>
      listPage(deps, `/buckets/${input.project_id}/client/recordings/${input.recording_id}/replies.json`, {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: `Item ${input.recording_id} was not found in project ${input.project_id}, or you have no access to it. Use ${toolRef('list_client_items')} to see valid IDs.`,
        convert: toClientItem,
      }),
  });

const setClientVisibilityShape = lazy(() => ({
  name: 'set_client_visibility',
  title: 'Show or hide an item from clients',
  description: `Shows an item (message, to-do list, document, upload, ...) to the project's clients, or hides it.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    recording_id: id(`ID of the item, from a list tool or ${toolRef('search')}`),
    visible: z.boolean().describe('true: clients see it; false: hidden from clients'),
  }),
  outputSchema: z.object({ recording_id: z.number(), type: z.string(), visible_to_clients: z.boolean() }),
  annotations: SETS_STATE,
}));

export const createSetClientVisibility = (deps: ToolDeps) =>
  defineTool({
    ...setClientVisibilityShape(),
    handler: (input, { signal }) =>
      sendOne(deps, 'PUT', `/recordings/${input.recording_id}/client_visibility.json`, {
        signal,
        scope: itemScope(
          input.project_id,
          `Item ${input.recording_id}`,
          `/recordings/${input.recording_id}.json`,
          `${toolRef('search')} or a list tool`,
        ),
        body: { visible_to_clients: input.visible },
        convert: (raw) => ({
          recording_id: number(raw.id) ?? input.recording_id,
          type: text(raw.type) ?? '',
          visible_to_clients: raw.visible_to_clients === true,
        }),
      }),
  });

const forwardScope = (projectId: number | undefined, forwardId: number) =>
  itemScope(
    projectId,
    `Forwarded email ${forwardId}`,
    `/inbox_forwards/${forwardId}.json`,
    'list_email_forwards',
  );

const listEmailForwardsShape = lazy(() => ({
  name: 'list_email_forwards',
  title: 'List forwarded emails',
  description: `Lists the emails forwarded into a project (its Email Forwards inbox), newest first. Replies: ${toolRef('list_forward_replies')}.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    inbox_id: dockOverride(),
    page: page(),
    limit: limit(30),
  }),
  outputSchema: listSchema(ClientItemSchema()),
  annotations: READS,
}));

export const createListEmailForwards = (deps: ToolDeps) =>
  defineTool({
    ...listEmailForwardsShape(),
    handler: async (input, { signal }) => {
      const inbox = await deps.docks.resolve(input.project_id, 'inbox', input.inbox_id, signal);
      return listPage(deps, projectRoute(deps, input.project_id, `/inboxes/${inbox}/forwards.json`), {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: `Inbox ${inbox} was not found, or you have no access to it. Use ${toolRef('get_project_tools')} to see the project's tools.`,
        convert: toClientItem,
      });
    },
  });

const getEmailForwardShape = lazy(() => ({
  name: 'get_email_forward',
  title: 'Get a forwarded email',
  description: `Returns one forwarded email, whole, as Markdown, with its sender; with reply_id, one reply to it instead (from ${toolRef('list_forward_replies')} or a link).`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    forward_id: id(`Forward ID, from ${toolRef('list_email_forwards')}`),
    reply_id: id(`Reply ID, from ${toolRef('list_forward_replies')}: return that reply, whole`).optional(),
  }),
  outputSchema: ClientItemSchema(),
  annotations: READS,
}));

export const createGetEmailForward = (deps: ToolDeps) =>
  defineTool({
    ...getEmailForwardShape(),
    handler: (input, { signal }) =>
      getOne(
        deps,
        input.reply_id === undefined
          ? `/inbox_forwards/${input.forward_id}.json`
          : `/inbox_forwards/${input.forward_id}/replies/${input.reply_id}.json`,
        {
          signal,
          scope:
            input.reply_id === undefined
              ? forwardScope(input.project_id, input.forward_id)
              : itemScope(
                  input.project_id,
                  `Reply ${input.reply_id} to forwarded email ${input.forward_id}`,
                  `/inbox_forwards/${input.forward_id}/replies/${input.reply_id}.json`,
                  'list_forward_replies',
                ),
          convert: toClientItem,
        },
      ),
  });

const listForwardRepliesShape = lazy(() => ({
  name: 'list_forward_replies',
  title: 'Read replies to a forwarded email',
  description: `Lists the replies to a forwarded email, oldest first, as Markdown.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    forward_id: id(`Forward ID, from ${toolRef('list_email_forwards')}`),
    page: page(),
    limit: limit(30),
  }),
  outputSchema: listSchema(ClientItemSchema()),
  annotations: READS,
}));

export const createListForwardReplies = (deps: ToolDeps) =>
  defineTool({
    ...listForwardRepliesShape(),
    handler: (input, { signal }) => {
      const scope = forwardScope(input.project_id, input.forward_id);
      return listPage(deps, `/inbox_forwards/${input.forward_id}/replies.json`, {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: scope.notFound,
        scope,
        convert: toClientItem,
      });
    },
  });

const replyToForwardShape = lazy(() => ({
  name: 'reply_to_forward',
  title: 'Reply to a forwarded email',
  description: `Posts a reply (Markdown) on a forwarded email in Basecamp.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    forward_id: id(`Forward ID, from ${toolRef('list_email_forwards')}`),
    content: richText('The reply.', 20_000),
  }),
  outputSchema: ClientItemSchema(),
  annotations: CREATES,
}));

export const createReplyToForward = (deps: ToolDeps) =>
  defineTool({
    ...replyToForwardShape(),
    handler: async (input, { signal }) => {
      const html = await deps.html();
      return sendOne(deps, 'POST', `/inbox_forwards/${input.forward_id}/replies.json`, {
        signal,
        scope: forwardScope(input.project_id, input.forward_id),
        body: { content: html(input.content) },
        convert: toClientItem,
      });
    },
  });

export const listClientItems = basecampTool(
  { toolset: 'clients', operations: ['ListClientApprovals', 'ListClientCorrespondences'] },
  createListClientItems,
);
export const getClientItem = basecampTool(
  { toolset: 'clients', operations: ['GetClientApproval', 'GetClientCorrespondence'] },
  createGetClientItem,
);
export const listClientReplies = basecampTool(
  { toolset: 'clients', operations: ['ListClientReplies'] },
  createListClientReplies,
);
export const setClientVisibility = basecampTool(
  { toolset: 'clients', operations: ['SetClientVisibility'] },
  createSetClientVisibility,
);
export const listEmailForwards = basecampTool(
  { toolset: 'clients', operations: ['ListForwards'] },
  createListEmailForwards,
);
export const getEmailForward = basecampTool(
  { toolset: 'clients', operations: ['GetForward', 'GetForwardReply'] },
  createGetEmailForward,
);
export const listForwardReplies = basecampTool(
  { toolset: 'clients', operations: ['ListForwardReplies'] },
  createListForwardReplies,
);
export const replyToForward = basecampTool(
  { toolset: 'clients', operations: ['CreateForwardReply'] },
  createReplyToForward,
);
