import { defineTool, InvalidInputError, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import {
  CREATES,
  dockOverride,
  id,
  itemProjectId,
  projectId,
  richText,
  SETS_STATE,
  send,
  sendOne,
  type ToolDeps,
  toolProject,
} from '../shared.js';
import { readCardTable } from './get-card-table.js';
import { CardColumnSchema, CardTableSchema, columnScope, toCardColumn } from './shapes.js';

const columnId = () => id(`Column ID, from ${toolRef('get_card_table')}`);

const createCardColumnShape = lazy(() => ({
  name: 'create_card_column',
  title: 'Add a card-table column',
  description: `Adds a column to a project's card table (before Done). Returns the new column; reorder columns with ${toolRef('move_card_column')}.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    card_table_id: dockOverride(),
    title: z.string().trim().min(1).max(200).describe("The column's name"),
    description: richText('What belongs in this column.', 5_000).optional(),
  }),
  outputSchema: CardColumnSchema(),
  annotations: CREATES,
}));

export const createCreateCardColumn = (deps: ToolDeps) =>
  defineTool({
    ...createCardColumnShape(),
    handler: async (input, { signal }) => {
      const table = await deps.docks.resolve(input.project_id, 'kanban_board', input.card_table_id, signal);
      const html = await deps.html();
      return sendOne(deps, 'POST', `/card_tables/${table}/columns.json`, {
        signal,
        scope: {
          projectId: toolProject(deps, input.project_id),
          what: `Card table ${table}`,
          probe: `/card_tables/${table}.json`,
          notFound: `Card table ${table} was not found, or you have no access to it. Use ${toolRef('get_project_tools')} to see the project's tools.`,
        },
        body: {
          title: input.title,
          ...(input.description === undefined ? {} : { description: html(input.description) }),
        },
        convert: toCardColumn,
      });
    },
  });

/** The colours Basecamp offers for a column (OpenAPI `SetCardColumnColor`). */
const COLUMN_COLORS = [
  'white',
  'red',
  'orange',
  'yellow',
  'green',
  'blue',
  'aqua',
  'purple',
  'gray',
  'pink',
  'brown',
] as const;

const updateCardColumnShape = lazy(() => ({
  name: 'update_card_column',
  title: 'Rename or describe a column',
  description: `Changes a card-table column's name, description or colour.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    column_id: columnId(),
    title: z.string().trim().min(1).max(200).optional().describe('New name'),
    description: richText('New description.', 5_000).optional(),
    color: z.enum(COLUMN_COLORS).optional().describe('New colour of the column'),
  }),
  outputSchema: CardColumnSchema(),
  annotations: SETS_STATE,
}));

export const createUpdateCardColumn = (deps: ToolDeps) =>
  defineTool({
    ...updateCardColumnShape(),
    handler: async (input, { signal }) => {
      if (input.title === undefined && input.description === undefined && input.color === undefined) {
        throw new InvalidInputError('Nothing to change: pass title, description or color.');
      }
      const scope = columnScope(input.project_id, input.column_id);
      if (input.color !== undefined) {
        const colored = await sendOne(deps, 'PUT', `/card_tables/columns/${input.column_id}/color.json`, {
          signal,
          scope,
          body: { color: input.color },
          convert: toCardColumn,
        });
        if (input.title === undefined && input.description === undefined) return colored;
      }
      const html = await deps.html();
      return sendOne(deps, 'PUT', `/card_tables/columns/${input.column_id}.json`, {
        signal,
        scope,
        body: {
          ...(input.title === undefined ? {} : { title: input.title }),
          ...(input.description === undefined ? {} : { description: html(input.description) }),
        },
        convert: toCardColumn,
      });
    },
  });

const moveCardColumnShape = lazy(() => ({
  name: 'move_card_column',
  title: 'Reorder card-table columns',
  description: `Moves a column to another place in its card table (1 = leftmost).`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    card_table_id: dockOverride(),
    column_id: columnId(),
    position: z.number().int().min(1).max(100).describe('New place, 1 = leftmost'),
  }),
  outputSchema: CardTableSchema(),
  annotations: SETS_STATE,
}));

export const createMoveCardColumn = (deps: ToolDeps) =>
  defineTool({
    ...moveCardColumnShape(),
    handler: async (input, { signal }) => {
      const table = await deps.docks.resolve(input.project_id, 'kanban_board', input.card_table_id, signal);
      await send(deps, 'POST', `/card_tables/${table}/moves.json`, {
        signal,
        scope: columnScope(input.project_id, input.column_id),
        body: { source_id: input.column_id, target_id: table, position: input.position },
      });
      return readCardTable(deps, input.project_id, table, signal);
    },
  });

const setCardColumnOnHoldShape = lazy(() => ({
  name: 'set_card_column_on_hold',
  title: 'Turn a column\'s "on hold" section on or off',
  description: `Gives a card-table column an "on hold" section for parked cards (on_hold: true) or removes it (false).`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    column_id: columnId(),
    on_hold: z.boolean().describe('true: add the on-hold section; false: remove it'),
  }),
  outputSchema: CardColumnSchema(),
  annotations: SETS_STATE,
}));

export const createSetCardColumnOnHold = (deps: ToolDeps) =>
  defineTool({
    ...setCardColumnOnHoldShape(),
    handler: async (input, { signal }) => {
      const [markdown, data] = await Promise.all([
        deps.markdown(),
        send(
          deps,
          input.on_hold ? 'POST' : 'DELETE',
          `/card_tables/columns/${input.column_id}/on_hold.json`,
          {
            signal,
            scope: columnScope(input.project_id, input.column_id),
          },
        ),
      ]);
      return toCardColumn(data ?? {}, markdown, 5_000);
    },
  });

export const createCardColumn = basecampTool(
  { toolset: 'cards', operations: ['CreateCardColumn'] },
  createCreateCardColumn,
);
export const updateCardColumn = basecampTool(
  { toolset: 'cards', operations: ['UpdateCardColumn', 'SetCardColumnColor'] },
  createUpdateCardColumn,
);
export const moveCardColumn = basecampTool(
  { toolset: 'cards', operations: ['MoveCardColumn', 'GetCardTable'] },
  createMoveCardColumn,
);
export const setCardColumnOnHold = basecampTool(
  { toolset: 'cards', operations: ['EnableCardColumnOnHold', 'DisableCardColumnOnHold'] },
  createSetCardColumnOnHold,
);

const watchCardColumnShape = lazy(() => ({
  name: 'watch_card_column',
  title: 'Watch a card-table column',
  description: `Subscribes you to a card-table column (watching: true, the default), so you are notified of cards added to it, or unsubscribes you.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    column_id: columnId(),
    watching: z.boolean().default(true).describe('true: watch (default); false: stop watching'),
  }),
  outputSchema: z.object({ column_id: z.number(), watching: z.boolean() }),
  annotations: SETS_STATE,
}));

export const createWatchCardColumn = (deps: ToolDeps) =>
  defineTool({
    ...watchCardColumnShape(),
    handler: async (input, { signal }) => {
      await send(
        deps,
        input.watching ? 'POST' : 'DELETE',
        `/card_tables/lists/${input.column_id}/subscription.json`,
        {
          signal,
          scope: columnScope(input.project_id, input.column_id),
        },
      );
      return { column_id: input.column_id, watching: input.watching };
    },
  });

export const watchCardColumn = basecampTool(
  { toolset: 'cards', operations: ['SubscribeToCardColumn', 'UnsubscribeFromCardColumn'] },
  createWatchCardColumn,
);
