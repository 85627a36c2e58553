import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, listSchema, TodolistSchema, toTodolist } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import {
  dockOverride,
  limit,
  listPage,
  page,
  projectId,
  projectRoute,
  READS,
  type ToolDeps,
} from './shared.js';

const listTodolistsShape = lazy(() => ({
  name: 'list_todolists',
  title: 'List to-do lists',
  description: `Lists a project's to-do lists with their progress (completed_ratio). Their to-dos: ${toolRef('list_todos')}.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    todoset_id: dockOverride(),
    page: page(),
    limit: limit(50),
  }),
  outputSchema: listSchema(TodolistSchema),
  annotations: READS,
}));

export const createListTodolists = (deps: ToolDeps) =>
  defineTool({
    ...listTodolistsShape(),
    handler: async (input, { signal }) => {
      const todoset = await deps.docks.resolve(input.project_id, 'todoset', input.todoset_id, signal);
      return listPage(deps, projectRoute(deps, input.project_id, `/todosets/${todoset}/todolists.json`), {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: `To-do set ${todoset} was not found, or you have no access to it. Use ${toolRef('get_project_tools')} to see the project's tools.`,
        convert: toTodolist,
      });
    },
  });

export const listTodolists = basecampTool(
  { toolset: 'todos', operations: ['ListTodolists'], inDefault: true },
  createListTodolists,
);
