import { defineTool } from '@x/mcp-core';
import { z } from 'zod';
import { TodoSchema, toTodo } from '../shapes.js';
import { getOne, id, READS, type ToolDeps } from './shared.js';

export const createGetTodo = (deps: ToolDeps) =>
  defineTool({
    name: 'get_todo',
    title: 'Get a to-do',
    description:
      'Returns one to-do: title, description as Markdown, assignees with names and emails, start and due dates, and whether (when, by whom) it was completed. Take todo_id from list_todos or search; its discussion is in list_comments.',
    inputSchema: z.strictObject({ todo_id: id('To-do ID, from list_todos or search') }),
    outputSchema: TodoSchema,
    annotations: READS,
    handler: ({ todo_id }, { signal }) =>
      getOne(deps, `/todos/${todo_id}.json`, {
        signal,
        notFound: `To-do ${todo_id} was not found, or you have no access to it. Use list_todos to see to-do IDs.`,
        convert: toTodo,
      }),
  });
