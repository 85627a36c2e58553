import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import { dockOverride, ITEM_BODY_CHARS, projectId, projectRoute, READS, type ToolDeps } from '../shared.js';
import { CardTableSchema, toCardTable } from './shapes.js';

/** The card table's JSON (its columns under `lists`), by project. */
export async function readCardTable(
  deps: ToolDeps,
  project: number,
  override: number | undefined,
  signal: AbortSignal,
) {
  const table = await deps.docks.resolve(project, 'kanban_board', override, signal);
  const [markdown, response] = await Promise.all([
    deps.markdown(),
    deps.client.get<Record<string, unknown>>(projectRoute(deps, project, `/card_tables/${table}.json`), {
      signal,
      notFound: `Card table ${table} was not found, or you have no access to it. Use ${toolRef('get_project_tools')} to see the project's tools.`,
    }),
  ]);
  return toCardTable(response.data ?? {}, markdown, ITEM_BODY_CHARS);
}

const getCardTableShape = lazy(() => ({
  name: 'get_card_table',
  title: 'Get a card table and its columns',
  description: `Returns a project's card table (Kanban board) with its columns left to right (ID, title, kind, card count, on hold). Column IDs are for ${toolRef('list_cards')}, ${toolRef('create_card')} and ${toolRef('move_card')}.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    card_table_id: dockOverride(),
  }),
  outputSchema: CardTableSchema(),
  annotations: READS,
}));

export const createGetCardTable = (deps: ToolDeps) =>
  defineTool({
    ...getCardTableShape(),
    handler: (input, { signal }) => readCardTable(deps, input.project_id, input.card_table_id, signal),
  });

export const getCardTable = basecampTool(
  { toolset: 'cards', operations: ['GetCardTable'] },
  createGetCardTable,
);
