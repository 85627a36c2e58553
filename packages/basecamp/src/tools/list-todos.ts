import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, listSchema, TodoSchema, toTodo } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import { id, itemProjectId, limit, listPage, page, READS, type ToolDeps } from './shared.js';

export function todolistScope(projectId: number | undefined, todolistId: number) {
  return {
    projectId,
    what: `To-do list ${todolistId}`,
    probe: `/todolists/${todolistId}.json`,
    notFound: `To-do list ${todolistId} was not found, or you have no access to it. Use ${toolRef('list_todolists')} to see to-do list IDs.`,
  };
}

const listTodosShape = lazy(() => ({
  name: 'list_todos',
  title: 'List to-dos in a list',
  description: `Lists the to-dos of a to-do list: pending ones, or only completed ones with completed: true. One in full: ${toolRef('get_todo')}.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    todolist_id: id(`To-do list ID, from ${toolRef('list_todolists')}`),
    completed: z.boolean().default(false).describe('true: only completed to-dos'),
    status: z
      .enum(['active', 'archived', 'trashed'])
      .default('active')
      .describe('Archived or trashed to-dos instead of active ones'),
    page: page(),
    limit: limit(50),
  }),
  outputSchema: listSchema(TodoSchema),
  annotations: READS,
}));

export const createListTodos = (deps: ToolDeps) =>
  defineTool({
    ...listTodosShape(),
    handler: (input, { signal }) => {
      const scope = todolistScope(input.project_id, input.todolist_id);
      return listPage(deps, `/todolists/${input.todolist_id}/todos.json`, {
        query: {
          completed: input.completed ? 'true' : undefined,
          status: input.status === 'active' ? undefined : input.status,
        },
        page: input.page,
        limit: input.limit,
        signal,
        notFound: scope.notFound,
        scope,
        convert: toTodo,
      });
    },
  });

export const listTodos = basecampTool(
  { toolset: 'todos', operations: ['ListTodos'], inDefault: true },
  createListTodos,
);
