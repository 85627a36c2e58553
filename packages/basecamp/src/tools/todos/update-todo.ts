import { defineTool, InvalidInputError, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, TodoSchema, toTodo } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import { todoScope } from '../get-todo.js';
import {
  assigneeIds,
  clearableDate,
  ITEM_BODY_CHARS,
  id,
  itemProjectId,
  richText,
  SETS_STATE,
  scoped,
  sendOne,
  type ToolDeps,
  withinProject,
} from '../shared.js';

const ids = (value: unknown): number[] =>
  (Array.isArray(value) ? value : [])
    .map((entry) => (entry as { id?: unknown }).id)
    .filter((entry): entry is number => typeof entry === 'number');

const updateTodoShape = lazy(() => ({
  name: 'update_todo',
  title: 'Change a to-do',
  description: `Changes a to-do's title, description, assignees, completion subscribers or dates (reschedule). Fields left out stay; null clears a date; a list replaces the people ([] removes all). Move it with ${toolRef('move_todo')}.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    todo_id: id(`To-do ID, from ${toolRef('list_todos')}`),
    content: z.string().trim().min(1).max(1_000).optional().describe('New title (plain text)'),
    description: richText('New details').optional(),
    assignee_ids: assigneeIds(`Everyone assigned from now on (${toolRef('list_people')})`).optional(),
    completion_subscriber_ids: assigneeIds('Everyone notified on completion from now on').optional(),
    due_on: clearableDate('New due date'),
    starts_on: clearableDate('New start date'),
    notify: z.boolean().default(false).describe('Notify newly assigned people'),
  }),
  outputSchema: TodoSchema,
  annotations: SETS_STATE,
}));

export const createUpdateTodo = (deps: ToolDeps) =>
  defineTool({
    ...updateTodoShape(),
    handler: async (input, { signal }) => {
      const changes = [
        'content',
        'description',
        'assignee_ids',
        'completion_subscriber_ids',
        'due_on',
        'starts_on',
      ];
      if (!changes.some((key) => key in input && input[key as keyof typeof input] !== undefined)) {
        throw new InvalidInputError(`Nothing to change: pass one of ${changes.join(', ')}.`);
      }
      // Basecamp's PUT replaces every field, so the ones not changed are sent back as they are.
      const scope = todoScope(input.project_id, input.todo_id);
      const target = scoped(scope, `/todos/${input.todo_id}.json`, deps);
      const [html, current] = await Promise.all([
        deps.html(),
        withinProject(deps, scope, signal, () =>
          deps.client.get<Record<string, unknown>>(target.path, { signal, notFound: target.notFound }),
        ),
      ]);
      const now = current.data ?? {};
      const keep = <T>(given: T | undefined, existing: unknown) => (given === undefined ? existing : given);
      return sendOne(deps, 'PUT', `/todos/${input.todo_id}.json`, {
        signal,
        scope,
        body: {
          content: keep(input.content, now.content),
          description: input.description === undefined ? (now.description ?? '') : html(input.description),
          assignee_ids: keep(input.assignee_ids, ids(now.assignees)),
          completion_subscriber_ids: keep(input.completion_subscriber_ids, ids(now.completion_subscribers)),
          due_on: input.due_on === undefined ? (now.due_on ?? '') : (input.due_on ?? ''),
          starts_on: input.starts_on === undefined ? (now.starts_on ?? '') : (input.starts_on ?? ''),
          ...(input.notify ? { notify: true } : {}),
        },
        convert: (raw, markdown) => toTodo(raw, markdown, ITEM_BODY_CHARS),
      });
    },
  });

export const updateTodo = basecampTool(
  { toolset: 'todos', operations: ['GetTodo', 'UpdateTodo'], inDefault: true },
  createUpdateTodo,
);
