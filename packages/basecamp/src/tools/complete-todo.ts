import { defineTool } from '@x/mcp-core';
import { z } from 'zod';
import { TodoSchema, toTodo } from '../shapes.js';
import { getOne, id, SETS_STATE, type ToolDeps } from './shared.js';

/** Completes (POST) or reopens (DELETE) a to-do, then reads it back to show its state. */
export async function setCompletion(deps: ToolDeps, todoId: number, completed: boolean, signal: AbortSignal) {
  const notFound = `To-do ${todoId} was not found, or you have no access to it. Use list_todos to see to-do IDs.`;
  await deps.client.request(completed ? 'POST' : 'DELETE', `/todos/${todoId}/completion.json`, {
    signal,
    notFound,
  });
  return getOne(deps, `/todos/${todoId}.json`, { signal, notFound, convert: toTodo });
}

export const createCompleteTodo = (deps: ToolDeps) =>
  defineTool({
    name: 'complete_todo',
    title: 'Complete a to-do',
    description:
      'Marks a to-do as done (completing a done to-do changes nothing). Take todo_id from list_todos. Returns the to-do as it is now; reopen_todo undoes this.',
    inputSchema: z.strictObject({ todo_id: id('To-do ID, from list_todos') }),
    outputSchema: TodoSchema,
    annotations: SETS_STATE,
    handler: ({ todo_id }, { signal }) => setCompletion(deps, todo_id, true, signal),
  });
