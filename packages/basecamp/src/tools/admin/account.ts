import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, number, record, text } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import {
  CREATES,
  DESTROYS,
  dockOverride,
  id,
  projectId,
  projectRoute,
  READS,
  SETS_STATE,
  type ToolDeps,
} from '../shared.js';

type Raw = Record<string, unknown>;

export const AccountSchema = lazy(() =>
  z.object({
    id: z.number(),
    name: z.string(),
    owner_name: z.string().nullable(),
    active: z.boolean(),
    trial: z.boolean(),
    trial_ends_on: z.string().nullable(),
    frozen: z.boolean(),
    paused: z.boolean(),
    plan: z.string().nullable().describe('The subscription, e.g. "Basecamp With Clients"'),
    project_limit: z.number().nullable().describe('Most projects the plan allows; null: no limit'),
    can_create_projects: z.boolean(),
    can_upload_files: z.boolean(),
    has_logo: z.boolean(),
    created_at: z.string().nullable(),
  }),
);

export function toAccount(raw: Raw): z.infer<ReturnType<typeof AccountSchema>> {
  const limits = record(raw.limits) ?? {};
  const subscription = record(raw.subscription) ?? {};
  return {
    id: number(raw.id) ?? 0,
    name: text(raw.name) ?? '',
    owner_name: text(raw.owner_name),
    active: raw.active === true,
    trial: raw.trial === true,
    trial_ends_on: text(raw.trial_ends_on),
    frozen: raw.frozen === true,
    paused: raw.paused === true,
    plan: text(subscription.proper_name),
    project_limit: number(subscription.project_limit),
    can_create_projects: limits.can_create_projects !== false,
    can_upload_files: limits.can_upload_files !== false,
    // The docs: `logo` is present only when the account has one.
    has_logo: raw.logo !== undefined && raw.logo !== null,
    created_at: text(raw.created_at),
  };
}

const getAccountShape = lazy(() => ({
  name: 'get_account',
  title: 'Get the Basecamp account',
  description: `Returns the account the tools act in: name, owner, plan, project limit, trial, frozen or paused, and whether projects and files can still be added. Check it when a create fails with LIMIT_EXCEEDED.`,
  inputSchema: z.strictObject({}),
  outputSchema: AccountSchema(),
  annotations: READS,
}));

export const createGetAccount = (deps: ToolDeps) =>
  defineTool({
    ...getAccountShape(),
    handler: async (_input, { signal }) => {
      const response = await deps.client.get<Raw>('/account.json', { signal });
      return toAccount(response.data ?? {});
    },
  });

const renameAccountShape = lazy(() => ({
  name: 'rename_account',
  title: 'Rename the Basecamp account',
  description:
    'Renames the whole Basecamp account (every member sees the new name). Only the account owner may (else PERMISSION_DENIED).',
  inputSchema: z.strictObject({
    name: z.string().trim().min(1).max(255).describe('The new account name'),
  }),
  outputSchema: AccountSchema(),
  annotations: SETS_STATE,
}));

export const createRenameAccount = (deps: ToolDeps) =>
  defineTool({
    ...renameAccountShape(),
    handler: async (input, { signal }) => {
      const response = await deps.client.request<Raw>('PUT', '/account/name.json', {
        signal,
        body: { name: input.name },
      });
      return toAccount(response.data ?? {});
    },
  });

const ChatbotSchema = lazy(() =>
  z.object({
    id: z.number(),
    service_name: z.string().describe('The name people call it by in chat: !name command'),
    command_url: z
      .string()
      .nullable()
      .describe('Where Basecamp sends commands addressed to the bot; null: it only posts'),
    chat_id: z.number(),
    created_at: z.string().nullable(),
    app_url: z.string().nullable(),
    lines_url: z
      .literal('[redacted]')
      .nullable()
      .describe(
        'The keyed URL the bot posts with is a secret and never returned: copy it from the chatbot page in Basecamp (app_url)',
      ),
  }),
);

const toChatbot = (raw: Raw, chatId: number): z.infer<ReturnType<typeof ChatbotSchema>> => ({
  id: number(raw.id) ?? 0,
  service_name: text(raw.service_name) ?? '',
  command_url: text(raw.command_url),
  chat_id: chatId,
  created_at: text(raw.created_at),
  app_url: text(raw.app_url),
  lines_url: text(raw.lines_url) === null ? null : '[redacted]',
});

const serviceName = () =>
  z
    .string()
    .trim()
    .regex(/^\w{1,50}$/, 'letters, digits and _ only (no spaces or emoji), at most 50')
    .describe('The bot\'s name, called in chat as "!name command": letters, digits and _ only');
const commandUrl = () =>
  z
    .url({ protocol: /^https$/ })
    .max(2_000)
    .describe('HTTPS URL Basecamp sends commands to; leave out for a bot that only posts');

const chatbotInput = {
  project_id: projectId(),
  chat_id: dockOverride(),
};

const listChatbotsShape = lazy(() => ({
  name: 'list_chatbots',
  title: 'List chatbots',
  description: `Lists the account's chatbots (they are account-wide) as seen from a project's chat. Their secret posting URLs are never returned.`,
  inputSchema: z.strictObject(chatbotInput),
  outputSchema: z.object({ items: z.array(ChatbotSchema()) }),
  annotations: READS,
}));

export const createListChatbots = (deps: ToolDeps) =>
  defineTool({
    ...listChatbotsShape(),
    handler: async (input, { signal }) => {
      const chat = await deps.docks.resolve(input.project_id, 'chat', input.chat_id, signal);
      const response = await deps.client.get<unknown>(
        projectRoute(deps, input.project_id, `/chats/${chat}/integrations.json`),
        {
          signal,
          notFound: `Chat ${chat} was not found. Use ${toolRef('get_project_tools')} to see the project's chats.`,
        },
      );
      const items = Array.isArray(response.data) ? response.data : [];
      return { items: items.map((raw) => toChatbot(record(raw) ?? {}, chat)) };
    },
  });

const createChatbotShape = lazy(() => ({
  name: 'create_chatbot',
  title: 'Add a chatbot',
  description: `Adds a chatbot to the account (administrators only), registered through a project's chat. With command_url, people call it in any chat as "!service_name ...".`,
  inputSchema: z.strictObject({
    ...chatbotInput,
    service_name: serviceName(),
    command_url: commandUrl().optional(),
  }),
  outputSchema: ChatbotSchema(),
  annotations: CREATES,
}));

export const createCreateChatbot = (deps: ToolDeps) =>
  defineTool({
    ...createChatbotShape(),
    handler: async (input, { signal }) => {
      const chat = await deps.docks.resolve(input.project_id, 'chat', input.chat_id, signal);
      const response = await deps.client.request<Raw>(
        'POST',
        projectRoute(deps, input.project_id, `/chats/${chat}/integrations.json`),
        {
          signal,
          body: {
            service_name: input.service_name,
            ...(input.command_url === undefined ? {} : { command_url: input.command_url }),
          },
          notFound: `Chat ${chat} was not found. Use ${toolRef('get_project_tools')} to see the project's chats.`,
        },
      );
      return toChatbot(response.data ?? {}, chat);
    },
  });

const updateChatbotShape = lazy(() => ({
  name: 'update_chatbot',
  title: 'Change a chatbot',
  description: `Renames a chatbot or changes its command URL, account-wide (administrators only).`,
  inputSchema: z.strictObject({
    ...chatbotInput,
    chatbot_id: id(`Chatbot ID, from ${toolRef('list_chatbots')}`),
    service_name: serviceName(),
    command_url: commandUrl().nullable().optional().describe('New HTTPS command URL, or null for none'),
  }),
  outputSchema: ChatbotSchema(),
  annotations: SETS_STATE,
}));

export const createUpdateChatbot = (deps: ToolDeps) =>
  defineTool({
    ...updateChatbotShape(),
    handler: async (input, { signal }) => {
      const chat = await deps.docks.resolve(input.project_id, 'chat', input.chat_id, signal);
      const response = await deps.client.request<Raw>(
        'PUT',
        projectRoute(deps, input.project_id, `/chats/${chat}/integrations/${input.chatbot_id}.json`),
        {
          signal,
          body: {
            service_name: input.service_name,
            ...(input.command_url === undefined ? {} : { command_url: input.command_url ?? '' }),
          },
          notFound: `Chatbot ${input.chatbot_id} was not found. Use ${toolRef('list_chatbots')} to see chatbot IDs.`,
        },
      );
      return toChatbot(response.data ?? {}, chat);
    },
  });

const deleteChatbotShape = lazy(() => ({
  name: 'delete_chatbot',
  title: 'Remove a chatbot',
  description: `Removes a chatbot from the whole account (every chat; administrators only). Its posting URL stops working.`,
  inputSchema: z.strictObject({
    ...chatbotInput,
    chatbot_id: id(`Chatbot ID, from ${toolRef('list_chatbots')}`),
  }),
  outputSchema: z.object({ chatbot_id: z.number(), deleted: z.literal(true) }),
  annotations: DESTROYS,
}));

export const createDeleteChatbot = (deps: ToolDeps) =>
  defineTool({
    ...deleteChatbotShape(),
    confirm: (input) =>
      `Remove chatbot ${input.chatbot_id} from the whole Basecamp account? Its posting URL stops working.`,
    handler: async (input, { signal }) => {
      const chat = await deps.docks.resolve(input.project_id, 'chat', input.chat_id, signal);
      await deps.client.request(
        'DELETE',
        projectRoute(deps, input.project_id, `/chats/${chat}/integrations/${input.chatbot_id}.json`),
        {
          signal,
          notFound: `Chatbot ${input.chatbot_id} was not found. Use ${toolRef('list_chatbots')} to see chatbot IDs.`,
        },
      );
      return { chatbot_id: input.chatbot_id, deleted: true as const };
    },
  });

export const getAccount = basecampTool({ toolset: 'admin', operations: ['GetAccount'] }, createGetAccount);
export const renameAccount = basecampTool(
  { toolset: 'admin', operations: ['UpdateAccountName'] },
  createRenameAccount,
);
export const listChatbots = basecampTool(
  { toolset: 'admin', operations: ['ListChatbots'] },
  createListChatbots,
);
export const createChatbot = basecampTool(
  { toolset: 'admin', operations: ['CreateChatbot'] },
  createCreateChatbot,
);
export const updateChatbot = basecampTool(
  { toolset: 'admin', operations: ['UpdateChatbot'] },
  createUpdateChatbot,
);
export const deleteChatbot = basecampTool(
  { toolset: 'admin', operations: ['DeleteChatbot'] },
  createDeleteChatbot,
);
