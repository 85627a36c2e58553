import { defineTool, InvalidInputError, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, number, PersonRefSchema, record, records, text, toPersonRef } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import { id, isoDate, READS, SETS_STATE, type ToolDeps } from '../shared.js';

type Raw = Record<string, unknown>;

const NotificationSchema = lazy(() =>
  z.object({
    readable_id: z.string().describe(`Pass to ${toolRef('mark_notifications_read')}`),
    unread: z.boolean(),
    type: z.string(),
    title: z.string(),
    project: z.string(),
    author: PersonRefSchema.nullable(),
    excerpt: z.string(),
    at: z.string().nullable(),
    app_url: z.string().nullable(),
  }),
);

const toNotification = (raw: Raw, unread: boolean): z.infer<ReturnType<typeof NotificationSchema>> => ({
  readable_id: text(raw.readable_sgid) ?? '',
  unread,
  type: text(raw.type) ?? '',
  title: text(raw.title) ?? '',
  project: text(raw.bucket_name) ?? '',
  author: toPersonRef(raw.creator),
  excerpt: text(raw.content_excerpt) ?? '',
  at: text(raw.unread_at) ?? text(raw.read_at) ?? text(raw.updated_at),
  app_url: text(raw.app_url),
});

const myNotificationsShape = lazy(() => ({
  name: 'my_notifications',
  title: 'Your notifications',
  description: `Lists your notifications (Hey! menu): unread first, then recently read. Mark them read with ${toolRef('mark_notifications_read')}.`,
  inputSchema: z.strictObject({
    page: z.number().int().min(1).max(100).default(1).describe('Page, from 1'),
  }),
  outputSchema: z.object({ unread: z.array(NotificationSchema()), read: z.array(NotificationSchema()) }),
  annotations: READS,
}));

export const createMyNotifications = (deps: ToolDeps) =>
  defineTool({
    ...myNotificationsShape(),
    handler: async (input, { signal }) => {
      const data =
        (
          await deps.client.get<Raw>('/my/readings.json', {
            signal,
            ...(input.page === 1 ? {} : { query: { page: input.page } }),
          })
        ).data ?? {};
      return {
        unread: records(data.unreads).map((raw) => toNotification(raw, true)),
        read: records(data.reads).map((raw) => toNotification(raw, false)),
      };
    },
  });

const markNotificationsReadShape = lazy(() => ({
  name: 'mark_notifications_read',
  title: 'Mark notifications read',
  description: `Marks notifications as read, by their readable_id from ${toolRef('my_notifications')}.`,
  inputSchema: z.strictObject({
    readable_ids: z
      .array(
        z
          .string()
          .min(1)
          .max(500)
          .describe(`A readable_id from ${toolRef('my_notifications')}`),
      )
      .min(1)
      .max(100)
      .describe('The notifications to mark read'),
  }),
  outputSchema: z.object({ marked: z.number() }),
  annotations: SETS_STATE,
}));

export const createMarkNotificationsRead = (deps: ToolDeps) =>
  defineTool({
    ...markNotificationsReadShape(),
    handler: async (input, { signal }) => {
      await deps.client.request('PUT', '/my/unreads.json', {
        body: { readables: input.readable_ids },
        signal,
      });
      return { marked: input.readable_ids.length };
    },
  });

const OutOfOfficeSchema = lazy(() =>
  z.object({
    person: z.object({ id: z.number(), name: z.string() }).nullable(),
    enabled: z.boolean(),
    ongoing: z.boolean().describe('Away today'),
    start_date: z.string().nullable(),
    end_date: z.string().nullable(),
  }),
);
const toOutOfOffice = (raw: Raw): z.infer<ReturnType<typeof OutOfOfficeSchema>> => {
  const person = record(raw.person);
  return {
    person:
      person && number(person.id) !== null
        ? { id: number(person.id) as number, name: text(person.name) ?? '' }
        : null,
    enabled: raw.enabled === true,
    ongoing: raw.ongoing === true,
    start_date: text(raw.start_date),
    end_date: text(raw.end_date),
  };
};

const outOfOfficeShape = lazy(() => ({
  name: 'out_of_office',
  title: 'Out of office: read or set',
  description: `Reads whether a person is out of office, sets it (start_date, end_date) or clears it (clear: true). Setting someone else's needs admin rights.`,
  inputSchema: z.strictObject({
    person_id: id(
      `Person ID, from ${toolRef('list_people')} (${toolRef('get_person')} without an ID gives yours)`,
    ),
    start_date: isoDate().optional().describe('Away from; with end_date, sets it'),
    end_date: isoDate().optional().describe('Away until'),
    clear: z.boolean().default(false).describe('true: back in office (clears it)'),
  }),
  outputSchema: OutOfOfficeSchema(),
  annotations: SETS_STATE,
}));

export const createOutOfOffice = (deps: ToolDeps) =>
  defineTool({
    ...outOfOfficeShape(),
    handler: async (input, { signal }) => {
      const path = `/people/${input.person_id}/out_of_office.json`;
      const notFound = `Person ${input.person_id} was not found. Use ${toolRef('list_people')} to see person IDs.`;
      if (input.clear) {
        await deps.client.request('DELETE', path, { signal, notFound });
      } else if (input.start_date !== undefined || input.end_date !== undefined) {
        if (
          input.start_date === undefined ||
          input.end_date === undefined ||
          input.end_date < input.start_date
        ) {
          throw new InvalidInputError(
            'Pass both start_date and end_date, with end_date on or after start_date.',
          );
        }
        const response = await deps.client.request<Raw>('POST', path, {
          body: { out_of_office: { start_date: input.start_date, end_date: input.end_date } },
          signal,
          notFound,
        });
        return toOutOfOffice(response.data ?? {});
      }
      return toOutOfOffice((await deps.client.get<Raw>(path, { signal, notFound })).data ?? {});
    },
  });

export const myNotifications = basecampTool(
  { toolset: 'activity', operations: ['GetMyNotifications'] },
  createMyNotifications,
);
export const markNotificationsRead = basecampTool(
  { toolset: 'activity', operations: ['MarkAsRead'] },
  createMarkNotificationsRead,
);
export const outOfOffice = basecampTool(
  { toolset: 'projects', operations: ['GetOutOfOffice', 'EnableOutOfOffice', 'DisableOutOfOffice'] },
  createOutOfOffice,
);
