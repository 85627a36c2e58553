import { defineTool, InvalidInputError, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import {
  lazy,
  listSchema,
  number,
  PersonRefSchema,
  record,
  records,
  text,
  toPersonRef,
} from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import {
  CREATES,
  DESTROYS,
  dockOverride,
  id,
  itemProjectId,
  itemRoute,
  itemScope,
  limit,
  listPage,
  page,
  positiveId,
  projectId,
  projectRoute,
  READS,
  SETS_STATE,
  scoped,
  send,
  type ToolDeps,
  withinProject,
} from '../shared.js';

type Raw = Record<string, unknown>;

const recordingScope = (projectId: number | undefined, recordingId: number) =>
  itemScope(
    projectId,
    `Item ${recordingId}`,
    `/recordings/${recordingId}.json`,
    `${toolRef('search')} or a list tool`,
  );

const SubscriptionSchema = lazy(() =>
  z.object({
    subscribed: z.boolean().describe('Whether you are notified of new comments'),
    count: z.number(),
    subscribers: z.array(PersonRefSchema),
  }),
);

const toSubscription = (raw: Raw): z.infer<ReturnType<typeof SubscriptionSchema>> => ({
  subscribed: raw.subscribed === true,
  count: number(raw.count) ?? 0,
  subscribers: (Array.isArray(raw.subscribers) ? raw.subscribers : [])
    .map(toPersonRef)
    .filter((person) => person !== null),
});

const getSubscribersShape = lazy(() => ({
  name: 'get_subscribers',
  title: 'Who is notified about an item',
  description: `Lists who is subscribed to an item's comments (notified of each new one), and whether you are.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    recording_id: id(`ID of the item, from a list tool or ${toolRef('search')}`),
  }),
  outputSchema: SubscriptionSchema(),
  annotations: READS,
}));

export const createGetSubscribers = (deps: ToolDeps) =>
  defineTool({
    ...getSubscribersShape(),
    handler: async (input, { signal }) => {
      const scope = recordingScope(input.project_id, input.recording_id);
      const target = scoped(scope, `/recordings/${input.recording_id}/subscription.json`, deps);
      const response = await withinProject(deps, scope, signal, () =>
        deps.client.get<Raw>(target.path, { signal, notFound: target.notFound }),
      );
      return toSubscription(response.data ?? {});
    },
  });

const updateSubscribersShape = lazy(() => ({
  name: 'update_subscribers',
  title: 'Subscribe or unsubscribe people',
  description: `Changes who is notified of an item's comments: yourself (me) or other people (add, remove).`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    recording_id: id(`ID of the item, from a list tool or ${toolRef('search')}`),
    me: z.boolean().optional().describe('true: subscribe yourself; false: unsubscribe yourself'),
    add: z
      .array(positiveId())
      .max(100)
      .default([])
      .describe(`People to subscribe (${toolRef('list_people')})`),
    remove: z
      .array(positiveId())
      .max(100)
      .default([])
      .describe(`People to unsubscribe (${toolRef('list_people')})`),
  }),
  outputSchema: SubscriptionSchema(),
  annotations: SETS_STATE,
}));

export const createUpdateSubscribers = (deps: ToolDeps) =>
  defineTool({
    ...updateSubscribersShape(),
    handler: async (input, { signal }) => {
      if (input.me === undefined && input.add.length === 0 && input.remove.length === 0) {
        throw new InvalidInputError('Nothing to change: pass me, add or remove.');
      }
      const scope = recordingScope(input.project_id, input.recording_id);
      const path = `/recordings/${input.recording_id}/subscription.json`;
      let data: Raw | undefined;
      if (input.me !== undefined)
        data = await send(deps, input.me ? 'POST' : 'DELETE', path, { signal, scope });
      if (input.add.length > 0 || input.remove.length > 0) {
        data = await send(deps, 'PUT', path, {
          signal,
          scope,
          body: { subscriptions: input.add, unsubscriptions: input.remove },
        });
      }
      if (data === undefined) {
        const target = scoped(scope, path, deps);
        data = (await deps.client.get<Raw>(target.path, { signal, notFound: target.notFound })).data;
      }
      return toSubscription(data ?? {});
    },
  });

const BoostSchema = lazy(() =>
  z.object({
    id: z.number(),
    content: z.string().describe('The boost: an emoji or up to 16 characters'),
    booster: PersonRefSchema.nullable(),
    created_at: z.string().nullable(),
  }),
);
const toBoost = (raw: Raw): z.infer<ReturnType<typeof BoostSchema>> => ({
  id: number(raw.id) ?? 0,
  content: text(raw.content) ?? '',
  booster: toPersonRef(raw.booster),
  created_at: text(raw.created_at),
});
const boostsPath = (recordingId: number, eventId: number | undefined) =>
  eventId === undefined
    ? `/recordings/${recordingId}/boosts.json`
    : `/recordings/${recordingId}/events/${eventId}/boosts.json`;

const listBoostsShape = lazy(() => ({
  name: 'list_boosts',
  title: 'List boosts',
  description: `Lists the boosts (short reactions) on an item, or on one of its events with event_id (from ${toolRef('list_events')}).`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    recording_id: id(`ID of the item, from a list tool or ${toolRef('search')}`),
    event_id: id(`Event ID, from ${toolRef('list_events')}: boosts of that event instead`).optional(),
  }),
  outputSchema: z.object({ items: z.array(BoostSchema()) }),
  annotations: READS,
}));

export const createListBoosts = (deps: ToolDeps) =>
  defineTool({
    ...listBoostsShape(),
    handler: async (input, { signal }) => {
      const scope = recordingScope(input.project_id, input.recording_id);
      const target = scoped(scope, boostsPath(input.recording_id, input.event_id), deps);
      const response = await withinProject(deps, scope, signal, () =>
        deps.client.get<unknown>(target.path, { signal, notFound: target.notFound }),
      );
      return {
        items: records(response.data).map(toBoost),
      };
    },
  });

const boostShape = lazy(() => ({
  name: 'boost',
  title: 'Boost an item',
  description: `Reacts to an item with a boost (an emoji or up to 16 characters, e.g. "🎉" or "Nice!"), or to one of its events with event_id.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    recording_id: id(`ID of the item, from a list tool or ${toolRef('search')}`),
    event_id: id(`Event ID, from ${toolRef('list_events')}: boost that event instead`).optional(),
    content: z
      .string()
      .trim()
      .min(1)
      .refine((value) => [...value].length <= 16, 'at most 16 characters')
      .describe('An emoji or up to 16 characters'),
  }),
  outputSchema: BoostSchema(),
  annotations: CREATES,
}));

export const createBoost = (deps: ToolDeps) =>
  defineTool({
    ...boostShape(),
    handler: async (input, { signal }) => {
      const data = await send(deps, 'POST', boostsPath(input.recording_id, input.event_id), {
        signal,
        scope: recordingScope(input.project_id, input.recording_id),
        body: { content: input.content },
      });
      return toBoost(data ?? {});
    },
  });

const deleteBoostShape = lazy(() => ({
  name: 'delete_boost',
  title: 'Remove a boost',
  description: `Removes one of your boosts, by boost_id from ${toolRef('list_boosts')}. Removing someone else's is PERMISSION_DENIED.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    boost_id: id(`Boost ID, from ${toolRef('list_boosts')}`),
  }),
  outputSchema: z.object({ boost_id: z.number(), deleted: z.literal(true) }),
  annotations: DESTROYS,
}));

export const createDeleteBoost = (deps: ToolDeps) =>
  defineTool({
    ...deleteBoostShape(),
    confirm: (input) => `Remove boost ${input.boost_id}?`,
    handler: async (input, { signal }) => {
      const path = itemRoute(
        deps,
        input.project_id,
        `Boost ${input.boost_id}`,
        `/boosts/${input.boost_id}.json`,
      );
      await deps.client.request('DELETE', path, {
        signal,
        notFound: `Boost ${input.boost_id} was not found. Use ${toolRef('list_boosts')} to see boost IDs.`,
      });
      return { boost_id: input.boost_id, deleted: true as const };
    },
  });

const ChatSchema = lazy(() =>
  z.object({
    id: z.number(),
    title: z.string(),
    project: z.object({ id: z.number(), name: z.string() }).nullable(),
  }),
);

const listChatsShape = lazy(() => ({
  name: 'list_chats',
  title: 'List chats',
  description: `Lists every project chat (Campfire) you can see, with its project: the chat_id to pass when a project has more than one.`,
  inputSchema: z.strictObject({ page: page(), limit: limit(50) }),
  outputSchema: listSchema(ChatSchema()),
  annotations: READS,
}));

export const createListChats = (deps: ToolDeps) =>
  defineTool({
    ...listChatsShape(),
    handler: (input, { signal }) =>
      listPage(deps, '/chats.json', {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: 'Basecamp found no chats.',
        convert: (raw) => {
          const bucket = record(raw.bucket);
          return {
            id: number(raw.id) ?? 0,
            title: text(raw.title) ?? '',
            project:
              bucket && number(bucket.id) !== null
                ? { id: number(bucket.id) as number, name: text(bucket.name) ?? '' }
                : null,
          };
        },
      }),
  });

const deleteCampfireLineShape = lazy(() => ({
  name: 'delete_campfire_line',
  title: 'Delete your chat line',
  description: `Deletes one of your own lines from a project chat (someone else's is PERMISSION_DENIED).`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    chat_id: dockOverride(),
    line_id: id(`Line ID, from ${toolRef('list_campfire_lines')}`),
  }),
  outputSchema: z.object({ line_id: z.number(), deleted: z.literal(true) }),
  annotations: DESTROYS,
}));

export const createDeleteCampfireLine = (deps: ToolDeps) =>
  defineTool({
    ...deleteCampfireLineShape(),
    confirm: (input) => `Delete chat line ${input.line_id} in project ${input.project_id}?`,
    handler: async (input, { signal }) => {
      const chat = await deps.docks.resolve(input.project_id, 'chat', input.chat_id, signal);
      await deps.client.request(
        'DELETE',
        projectRoute(deps, input.project_id, `/chats/${chat}/lines/${input.line_id}.json`),
        {
          signal,
          notFound: `Line ${input.line_id} was not found in chat ${chat}. Use ${toolRef('list_campfire_lines')} to see line IDs.`,
        },
      );
      return { line_id: input.line_id, deleted: true as const };
    },
  });

export const getSubscribers = basecampTool(
  { toolset: 'activity', operations: ['GetSubscription'] },
  createGetSubscribers,
);
export const updateSubscribers = basecampTool(
  { toolset: 'activity', operations: ['Subscribe', 'Unsubscribe', 'UpdateSubscription'] },
  createUpdateSubscribers,
);
export const listBoosts = basecampTool(
  { toolset: 'activity', operations: ['ListRecordingBoosts', 'ListEventBoosts'] },
  createListBoosts,
);
export const boost = basecampTool(
  { toolset: 'activity', operations: ['CreateRecordingBoost', 'CreateEventBoost'] },
  createBoost,
);
export const deleteBoost = basecampTool(
  { toolset: 'activity', operations: ['DeleteBoost'] },
  createDeleteBoost,
);
export const listChats = basecampTool({ toolset: 'chat', operations: ['ListCampfires'] }, createListChats);
export const deleteCampfireLine = basecampTool(
  { toolset: 'chat', operations: ['DeleteCampfireLine'] },
  createDeleteCampfireLine,
);
