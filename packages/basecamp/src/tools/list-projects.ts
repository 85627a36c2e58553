import { defineTool } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, listSchema, ProjectSchema, toProject } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import { limit, listPage, page, READS, type ToolDeps } from './shared.js';

const listProjectsShape = lazy(() => ({
  name: 'list_projects',
  title: 'List Basecamp projects',
  description: `Lists the projects you can see, newest first, with their IDs and enabled tools. Start here: project-scoped tools take a project_id from this list.`,
  inputSchema: z.strictObject({
    status: z.enum(['active', 'archived', 'all']).default('active').describe('"all": active, then archived'),
    page: page(),
    limit: limit(50),
  }),
  outputSchema: listSchema(ProjectSchema),
  annotations: READS,
}));

export const createListProjects = (deps: ToolDeps) =>
  defineTool({
    ...listProjectsShape(),
    handler: async (input, { signal }) => {
      const common = {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: 'Basecamp has no project list for this account.',
        convert: toProject,
      };
      if (input.status !== 'all') {
        return listPage(deps, '/projects.json', {
          ...common,
          ...(input.status === 'archived' ? { query: { status: 'archived' } } : {}),
        });
      }
      // "all": active projects, then archived ones, paged as one list.
      const active = await deps.client.list<Record<string, unknown>>('/projects.json', {
        page: 1,
        limit: 100,
        signal,
      });
      const archived = await deps.client.list<Record<string, unknown>>('/projects.json', {
        page: 1,
        limit: 100,
        signal,
        query: { status: 'archived' },
      });
      const all = [...active.items, ...archived.items].map(toProject);
      const start = (input.page - 1) * input.limit;
      const items = all.slice(start, start + input.limit);
      const hasMore = start + input.limit < all.length || active.has_more || archived.has_more;
      return {
        items,
        has_more: hasMore,
        next_page: hasMore ? input.page + 1 : null,
        ...(active.total !== undefined && archived.total !== undefined
          ? { total: active.total + archived.total }
          : {}),
        truncated: false,
      };
    },
  });

export const listProjects = basecampTool(
  { toolset: 'projects', operations: ['ListProjects'], inDefault: true },
  createListProjects,
);
