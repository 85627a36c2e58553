import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, TodoSchema } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import { setCompletion } from './complete-todo.js';
import { id, itemProjectId, SETS_STATE, type ToolDeps } from './shared.js';

const reopenTodoShape = lazy(() => ({
  name: 'reopen_todo',
  title: 'Reopen a to-do',
  description: `Marks a completed to-do as not done again (reopening a pending to-do changes nothing). Pass project_id (from ${toolRef('list_projects')}) and todo_id (from ${toolRef('list_todos')} with completed: true); project_id may be left out. Returns the to-do as it is now.`,
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
