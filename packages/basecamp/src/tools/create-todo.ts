import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, TodoSchema, toTodo } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import { todolistScope } from './list-todos.js';
import {
  assigneeIds,
  CREATES,
  ITEM_BODY_CHARS,
  id,
  isoDate,
  itemProjectId,
  richText,
  scoped,
  type ToolDeps,
  withinProject,
} from './shared.js';

const date = (description: string) => isoDate().describe(description).optional();

const createTodoShape = lazy(() => ({
  name: 'create_todo',
  title: 'Add a to-do',
  description: `Adds a to-do to a to-do list, with optional description, assignees and dates.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    todolist_id: id(`To-do list ID, from ${toolRef('list_todolists')}`),
    content: z.string().trim().min(1).max(1_000).describe("The to-do's title (plain text)"),
    description: richText('Details').optional(),
    assignee_ids: assigneeIds().optional(),
    notify: z.boolean().default(false).describe('Notify the assignees'),
    due_on: date('Due date'),
    starts_on: date('Start date'),
  }),
  outputSchema: TodoSchema,
  annotations: CREATES,
}));

export const createCreateTodo = (deps: ToolDeps) =>
  defineTool({
    ...createTodoShape(),
    handler: async (input, { signal }) => {
      const scope = todolistScope(input.project_id, input.todolist_id);
      const target = scoped(scope, `/todolists/${input.todolist_id}/todos.json`, deps);
      const [markdown, html] = await Promise.all([deps.markdown(), deps.html()]);
      const response = await withinProject(deps, scope, signal, () =>
        deps.client.request<Record<string, unknown>>('POST', target.path, {
          body: {
            content: input.content,
            ...(input.description === undefined ? {} : { description: html(input.description) }),
            ...(input.assignee_ids === undefined ? {} : { assignee_ids: input.assignee_ids }),
            ...(input.notify ? { notify: true } : {}),
            ...(input.due_on === undefined ? {} : { due_on: input.due_on }),
            ...(input.starts_on === undefined ? {} : { starts_on: input.starts_on }),
          },
          signal,
          notFound: target.notFound,
        }),
      );
      return toTodo(response.data ?? {}, markdown, ITEM_BODY_CHARS);
    },
  });

export const createTodo = basecampTool(
  { toolset: 'todos', operations: ['CreateTodo'], inDefault: true },
  createCreateTodo,
);
