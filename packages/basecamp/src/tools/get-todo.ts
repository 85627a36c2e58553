import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, TodoSchema, toTodo } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import { getOne, id, itemProjectId, READS, type ToolDeps } from './shared.js';

const getTodoShape = lazy(() => ({
  name: 'get_todo',
  title: 'Get a to-do',
  description: `Returns one to-do in full: description, assignees, dates, completion and its list. Discussion: ${toolRef('list_comments')}.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    todo_id: id(`To-do ID, from ${toolRef('list_todos')} or ${toolRef('search')}`),
  }),
  outputSchema: TodoSchema,
  annotations: READS,
}));

export const createGetTodo = (deps: ToolDeps) =>
  defineTool({
    ...getTodoShape(),
    handler: ({ project_id, todo_id }, { signal }) =>
      getOne(deps, `/todos/${todo_id}.json`, {
        signal,
        scope: todoScope(project_id, todo_id),
        convert: toTodo,
      }),
  });

export function todoScope(projectId: number | undefined, todoId: number) {
  return {
    projectId,
    what: `To-do ${todoId}`,
    probe: `/todos/${todoId}.json`,
    notFound: `To-do ${todoId} was not found, or you have no access to it. Use ${toolRef('list_todos')} to see to-do IDs.`,
  };
}

export const getTodo = basecampTool(
  { toolset: 'todos', operations: ['GetTodo'], inDefault: true },
  createGetTodo,
);
