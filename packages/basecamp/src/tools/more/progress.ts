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
import { id, limit, listPage, page, READS, type ToolDeps } from '../shared.js';

type Raw = Record<string, unknown>;

const EventSchema = lazy(() =>
  z.object({
    id: z.number(),
    action: z.string(),
    what: z.string().describe('The kind of item, e.g. "Message", "Todo"'),
    title: z.string(),
    excerpt: z.string(),
    author: PersonRefSchema.nullable(),
    project: z.object({ id: z.number(), name: z.string() }).nullable(),
    created_at: z.string().nullable(),
    app_url: z.string().nullable(),
  }),
);
const toEvent = (raw: Raw): z.infer<ReturnType<typeof EventSchema>> => {
  const bucket = record(raw.bucket);
  return {
    id: number(raw.id) ?? 0,
    action: text(raw.action) ?? '',
    what: text(raw.target) ?? '',
    title: text(raw.title) ?? '',
    excerpt: text(raw.summary_excerpt) ?? '',
    author: toPersonRef(raw.creator),
    project:
      bucket && number(bucket.id) !== null
        ? { id: number(bucket.id) as number, name: text(bucket.name) ?? '' }
        : null,
    created_at: text(raw.created_at),
    app_url: text(raw.app_url),
  };
};

const latestActivityShape = lazy(() => ({
  name: 'latest_activity',
  title: 'Latest activity',
  description: `What happened lately, newest first (Basecamp's activity timeline): across the account, in one project, or by one person (their latest 50).`,
  inputSchema: z.strictObject({
    project_id: id(`Only this project, from ${toolRef('list_projects')}`).optional(),
    person_id: id(`Only what this person did, from ${toolRef('list_people')}`).optional(),
    page: page(),
    limit: limit(30),
  }),
  outputSchema: listSchema(EventSchema()),
  annotations: READS,
}));

export const createLatestActivity = (deps: ToolDeps) =>
  defineTool({
    ...latestActivityShape(),
    handler: async (input, { signal }) => {
      if (input.project_id !== undefined && input.person_id !== undefined) {
        throw new InvalidInputError('Pass project_id or person_id, not both.');
      }
      if (input.person_id !== undefined) {
        const data =
          (
            await deps.client.get<Raw>(`/reports/users/progress/${input.person_id}.json`, {
              signal,
              notFound: `Person ${input.person_id} was not found. Use ${toolRef('list_people')} to see person IDs.`,
            })
          ).data ?? {};
        const events = records(data.events).map(toEvent);
        const start = (input.page - 1) * input.limit;
        const hasMore = start + input.limit < events.length;
        return {
          items: events.slice(start, start + input.limit),
          has_more: hasMore,
          next_page: hasMore ? input.page + 1 : null,
          total: events.length,
          truncated: false,
        };
      }
      const path =
        input.project_id === undefined
          ? '/reports/progress.json'
          : `/projects/${input.project_id}/timeline.json`;
      return listPage(deps, path, {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: `Project ${input.project_id} was not found, or you have no access to it. Use ${toolRef('list_projects')} to see project IDs.`,
        convert: (raw) => toEvent(raw),
      });
    },
  });

export const latestActivity = basecampTool(
  { toolset: 'activity', operations: ['GetProgressReport', 'GetProjectTimeline', 'GetPersonProgress'] },
  createLatestActivity,
);
