import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, TodoSchema, toTodo } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import { todolistScope } from './list-todos.js';
import {
  CREATES,
  ITEM_BODY_CHARS,
  id,
  itemProjectId,
  richText,
  scoped,
  type ToolDeps,
  withinProject,
} from './shared.js';

const date = (description: string) => z.iso.date().describe(`${description} (YYYY-MM-DD)`).optional();

const createTodoShape = lazy(() => ({
  name: 'create_todo',
  title: 'Add a to-do',
  description: `Adds a to-do to a to-do list, optionally with a description, assignees and dates. Pass project_id (from ${toolRef('list_projects')}) and todolist_id (from ${toolRef('list_todolists')}); project_id may be left out, and when given the list must be in that project. assignee_ids come from ${toolRef('list_people')}. Returns the new to-do with its ID.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    todolist_id: id(`To-do list ID, from ${toolRef('list_todolists')}`),
    content: z.string().trim().min(1).max(1_000).describe("What needs doing: the to-do's title (plain text)"),
    description: richText('Details of the to-do.').optional(),
    assignee_ids: z
      .array(id(`Person ID, from ${toolRef('list_people')}`))
      .max(50)
      .optional()
      .describe(`People to assign, by ID from ${toolRef('list_people')}`),
    notify: z.boolean().default(false).describe('Notify the assignees (default false)'),
    due_on: date('Due date'),
    starts_on: date('Start date, for a to-do that runs from starts_on to due_on'),
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
