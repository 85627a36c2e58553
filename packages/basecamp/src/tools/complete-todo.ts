import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, TodoSchema, toTodo } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import { todoScope } from './get-todo.js';
import { getOne, id, itemProjectId, SETS_STATE, scoped, type ToolDeps, withinProject } from './shared.js';

/** Completes (POST) or reopens (DELETE) a to-do, then reads it back to show its state. */
export async function setCompletion(
  deps: ToolDeps,
  projectId: number | undefined,
  todoId: number,
  completed: boolean,
  signal: AbortSignal,
) {
  const scope = todoScope(projectId, todoId);
  const target = scoped(scope, `/todos/${todoId}/completion.json`, deps);
  await withinProject(deps, scope, signal, () =>
    deps.client.request(completed ? 'POST' : 'DELETE', target.path, { signal, notFound: target.notFound }),
  );
  return getOne(deps, `/todos/${todoId}.json`, { signal, scope, convert: toTodo });
}

const completeTodoShape = lazy(() => ({
  name: 'complete_todo',
  title: 'Complete a to-do',
  description: `Marks a to-do as done (no change if it is done). Undo: ${toolRef('reopen_todo')}.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    todo_id: id(`To-do ID, from ${toolRef('list_todos')}`),
  }),
  outputSchema: TodoSchema,
  annotations: SETS_STATE,
}));

export const createCompleteTodo = (deps: ToolDeps) =>
  defineTool({
    ...completeTodoShape(),
    handler: ({ project_id, todo_id }, { signal }) => setCompletion(deps, project_id, todo_id, true, signal),
  });

export const completeTodo = basecampTool(
  { toolset: 'todos', operations: ['CompleteTodo'], inDefault: true },
  createCompleteTodo,
);
