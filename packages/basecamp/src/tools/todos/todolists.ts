import { defineTool, InvalidInputError, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, listSchema, TodolistSchema, toTodolist } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import { todolistScope } from '../list-todos.js';
import {
  CREATES,
  dockOverride,
  getOne,
  id,
  itemProjectId,
  limit,
  listPage,
  page,
  projectId,
  READS,
  richText,
  SETS_STATE,
  sendOne,
  type ToolDeps,
  toolProject,
} from '../shared.js';

const todolistId = () => id(`To-do list ID, from ${toolRef('list_todolists')}`);
const groupScope = (projectId: number | undefined, groupId: number) => ({
  ...todolistScope(projectId, groupId),
  what: `Group ${groupId}`,
  notFound: `Group ${groupId} was not found, or you have no access to it. Use ${toolRef('list_todolist_groups')} to see valid IDs.`,
});

const getTodolistShape = lazy(() => ({
  name: 'get_todolist',
  title: 'Get a to-do list',
  description: `Returns one to-do list (or group) with its description as Markdown and progress.`,
  inputSchema: z.strictObject({ project_id: itemProjectId(), todolist_id: todolistId() }),
  outputSchema: TodolistSchema,
  annotations: READS,
}));

export const createGetTodolist = (deps: ToolDeps) =>
  defineTool({
    ...getTodolistShape(),
    handler: (input, { signal }) =>
      getOne(deps, `/todolists/${input.todolist_id}.json`, {
        signal,
        scope: todolistScope(input.project_id, input.todolist_id),
        convert: toTodolist,
      }),
  });

const createTodolistShape = lazy(() => ({
  name: 'create_todolist',
  title: 'Add a to-do list',
  description: `Adds a to-do list to a project's To-dos. Returns the new list; add to-dos with ${toolRef('create_todo')}.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    todoset_id: dockOverride(),
    name: z.string().trim().min(1).max(500).describe("The list's name"),
    description: richText('What the list is for.').optional(),
  }),
  outputSchema: TodolistSchema,
  annotations: CREATES,
}));

export const createCreateTodolist = (deps: ToolDeps) =>
  defineTool({
    ...createTodolistShape(),
    handler: async (input, { signal }) => {
      const todoset = await deps.docks.resolve(input.project_id, 'todoset', input.todoset_id, signal);
      const html = await deps.html();
      return sendOne(deps, 'POST', `/todosets/${todoset}/todolists.json`, {
        signal,
        scope: {
          projectId: toolProject(deps, input.project_id),
          what: `To-do set ${todoset}`,
          probe: `/todosets/${todoset}.json`,
          notFound: `To-do set ${todoset} was not found, or you have no access to it. Use ${toolRef('get_project_tools')} to see the project's tools.`,
        },
        body: {
          name: input.name,
          ...(input.description === undefined ? {} : { description: html(input.description) }),
        },
        convert: toTodolist,
      });
    },
  });

const updateTodolistShape = lazy(() => ({
  name: 'update_todolist',
  title: 'Rename or describe a to-do list',
  description: `Changes a to-do list's (or group's) name or description.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    todolist_id: todolistId(),
    name: z.string().trim().min(1).max(500).optional().describe('New name'),
    description: richText('New description (lists only; groups have none).').optional(),
  }),
  outputSchema: TodolistSchema,
  annotations: SETS_STATE,
}));

export const createUpdateTodolist = (deps: ToolDeps) =>
  defineTool({
    ...updateTodolistShape(),
    handler: async (input, { signal }) => {
      if (input.name === undefined && input.description === undefined) {
        throw new InvalidInputError('Nothing to change: pass name or description.');
      }
      const scope = todolistScope(input.project_id, input.todolist_id);
      // Basecamp needs the name on every update.
      const name =
        input.name ??
        (await getOne(deps, `/todolists/${input.todolist_id}.json`, { signal, scope, convert: toTodolist }))
          .name;
      const html = await deps.html();
      return sendOne(deps, 'PUT', `/todolists/${input.todolist_id}.json`, {
        signal,
        scope,
        body: { name, ...(input.description === undefined ? {} : { description: html(input.description) }) },
        convert: toTodolist,
      });
    },
  });

const listTodolistGroupsShape = lazy(() => ({
  name: 'list_todolist_groups',
  title: "List a to-do list's groups",
  description: `Lists the groups (sections) of a to-do list, in order, with their progress. ${toolRef('list_todos')} and ${toolRef('create_todo')} take a group's ID as todolist_id.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    todolist_id: todolistId(),
    page: page(),
    limit: limit(50),
  }),
  outputSchema: listSchema(TodolistSchema),
  annotations: READS,
}));

export const createListTodolistGroups = (deps: ToolDeps) =>
  defineTool({
    ...listTodolistGroupsShape(),
    handler: (input, { signal }) => {
      const scope = todolistScope(input.project_id, input.todolist_id);
      return listPage(deps, `/todolists/${input.todolist_id}/groups.json`, {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: scope.notFound,
        scope,
        convert: toTodolist,
      });
    },
  });

const createTodolistGroupShape = lazy(() => ({
  name: 'create_todolist_group',
  title: 'Add a group to a to-do list',
  description: `Adds a group (a named section) to a to-do list. Returns the group; its ID works as todolist_id in ${toolRef('create_todo')}.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    todolist_id: todolistId(),
    name: z.string().trim().min(1).max(500).describe("The group's name"),
  }),
  outputSchema: TodolistSchema,
  annotations: CREATES,
}));

export const createCreateTodolistGroup = (deps: ToolDeps) =>
  defineTool({
    ...createTodolistGroupShape(),
    handler: (input, { signal }) =>
      sendOne(deps, 'POST', `/todolists/${input.todolist_id}/groups.json`, {
        signal,
        scope: todolistScope(input.project_id, input.todolist_id),
        body: { name: input.name },
        convert: toTodolist,
      }),
  });

const moveTodolistGroupShape = lazy(() => ({
  name: 'move_todolist_group',
  title: 'Reorder a to-do list group',
  description: `Moves a group to another place among the groups of its to-do list (1 = first).`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    group_id: id(`Group ID, from ${toolRef('list_todolist_groups')}`),
    position: z.number().int().min(1).max(1_000).describe('New place, 1 = first'),
  }),
  outputSchema: TodolistSchema,
  annotations: SETS_STATE,
}));

export const createMoveTodolistGroup = (deps: ToolDeps) =>
  defineTool({
    ...moveTodolistGroupShape(),
    handler: (input, { signal }) =>
      sendOne(deps, 'PUT', `/todolists/${input.group_id}/position.json`, {
        signal,
        scope: groupScope(input.project_id, input.group_id),
        body: { position: input.position },
        convert: toTodolist,
      }),
  });

export const getTodolist = basecampTool(
  { toolset: 'todos', operations: ['GetTodolistOrGroup'] },
  createGetTodolist,
);
export const createTodolist = basecampTool(
  { toolset: 'todos', operations: ['CreateTodolist'] },
  createCreateTodolist,
);
export const updateTodolist = basecampTool(
  { toolset: 'todos', operations: ['UpdateTodolistOrGroup'] },
  createUpdateTodolist,
);
export const listTodolistGroups = basecampTool(
  { toolset: 'todos', operations: ['ListTodolistGroups'] },
  createListTodolistGroups,
);
export const createTodolistGroup = basecampTool(
  { toolset: 'todos', operations: ['CreateTodolistGroup'] },
  createCreateTodolistGroup,
);
export const moveTodolistGroup = basecampTool(
  { toolset: 'todos', operations: ['RepositionTodolistGroup'] },
  createMoveTodolistGroup,
);
