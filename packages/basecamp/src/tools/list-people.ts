import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, listSchema, PersonSchema, toPerson } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import { capList, id, limit, page, READS, type ToolDeps } from './shared.js';

type Person = NonNullable<ReturnType<typeof toPerson>>;

const listPeopleShape = lazy(() => ({
  name: 'list_people',
  title: 'List people',
  description: `Lists people (ID, name, email, title): everyone on the account, or on one project. Use it for assignee IDs or to find who someone is.`,
  inputSchema: z.strictObject({
    project_id: id('Only people on this project').optional(),
    page: page(),
    limit: limit(100),
  }),
  outputSchema: listSchema(PersonSchema),
  annotations: READS,
}));

export const createListPeople = (deps: ToolDeps) =>
  defineTool({
    ...listPeopleShape(),
    handler: async (input, { signal }) => {
      const path =
        input.project_id === undefined ? '/people.json' : `/projects/${input.project_id}/people.json`;
      const notFound = `Project ${input.project_id} was not found, or you have no access to it. Use ${toolRef('list_projects')} to see project IDs.`;
      const result = await deps.client.list<Record<string, unknown>>(path, {
        page: input.page,
        limit: input.limit,
        signal,
        notFound,
      });
      const items = result.items.map(toPerson).filter((person): person is Person => person !== null);
      return capList(
        {
          items,
          has_more: result.has_more,
          next_page: result.next_page,
          ...(result.total === undefined ? {} : { total: result.total }),
          truncated: false,
        },
        deps.client.settings.maxResponseChars,
      );
    },
  });

export const listPeople = basecampTool(
  { toolset: 'projects', operations: ['ListPeople', 'ListProjectPeople'], inDefault: true },
  createListPeople,
);
