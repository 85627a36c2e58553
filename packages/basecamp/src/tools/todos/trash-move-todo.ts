import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, TodoSchema, toTodo } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import { todoScope } from '../get-todo.js';
import { DESTROYS, id, itemProjectId, SETS_STATE, send, sendOne, type ToolDeps } from '../shared.js';

const trashTodoShape = lazy(() => ({
  name: 'trash_todo',
  title: 'Trash a to-do',
  description: `Moves a to-do to the trash (restorable for 30 days, e.g. with ${toolRef('set_recording_status')} status active).`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    todo_id: id(`To-do ID, from ${toolRef('list_todos')}`),
  }),
  outputSchema: z.object({ trashed: z.literal(true), todo_id: z.number() }),
  annotations: DESTROYS,
}));

export const createTrashTodo = (deps: ToolDeps) =>
  defineTool({
    ...trashTodoShape(),
    confirm: (input) => `Trash to-do ${input.todo_id}? It can be restored for 30 days.`,
    handler: async (input, { signal }) => {
      await send(deps, 'DELETE', `/todos/${input.todo_id}.json`, {
        signal,
        scope: todoScope(input.project_id, input.todo_id),
      });
      return { trashed: true as const, todo_id: input.todo_id };
    },
  });

const moveTodoShape = lazy(() => ({
  name: 'move_todo',
  title: 'Reorder or move a to-do',
  description: `Puts a to-do at another place in its list (position 1 = top), or into another list or group of the same project (todolist_id).`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    todo_id: id(`To-do ID, from ${toolRef('list_todos')}`),
    position: z.number().int().min(1).max(10_000).default(1).describe('Place in the list, 1 = top (default)'),
    todolist_id: id(
      `Move it into this to-do list or group, from ${toolRef('list_todolists')} or ${toolRef('list_todolist_groups')}`,
    ).optional(),
  }),
  outputSchema: TodoSchema,
  annotations: SETS_STATE,
}));

export const createMoveTodo = (deps: ToolDeps) =>
  defineTool({
    ...moveTodoShape(),
    handler: (input, { signal }) =>
      sendOne(deps, 'PUT', `/todos/${input.todo_id}/position.json`, {
        signal,
        scope: todoScope(input.project_id, input.todo_id),
        body: {
          position: input.position,
          ...(input.todolist_id === undefined ? {} : { parent_id: input.todolist_id }),
        },
        convert: toTodo,
      }),
  });

export const trashTodo = basecampTool({ toolset: 'todos', operations: ['TrashTodo'] }, createTrashTodo);
export const moveTodo = basecampTool({ toolset: 'todos', operations: ['RepositionTodo'] }, createMoveTodo);
