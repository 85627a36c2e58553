import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, TodoSchema } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import { setCompletion } from './complete-todo.js';
import { id, itemProjectId, SETS_STATE, type ToolDeps } from './shared.js';

const reopenTodoShape = lazy(() => ({
  name: 'reopen_todo',
  title: 'Reopen a to-do',
  description: `Marks a completed to-do as not done again (no change if it is pending).`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    todo_id: id(`To-do ID, from ${toolRef('list_todos')} (completed: true)`),
  }),
  outputSchema: TodoSchema,
  annotations: SETS_STATE,
}));

export const createReopenTodo = (deps: ToolDeps) =>
  defineTool({
    ...reopenTodoShape(),
    handler: ({ project_id, todo_id }, { signal }) => setCompletion(deps, project_id, todo_id, false, signal),
  });

export const reopenTodo = basecampTool(
  { toolset: 'todos', operations: ['UncompleteTodo'], inDefault: true },
  createReopenTodo,
);
