import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, listSchema } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import { id, itemProjectId, limit, listPage, page, READS, type ToolDeps } from '../shared.js';
import { CardSchema, columnScope, toCard } from './shapes.js';

const listCardsShape = lazy(() => ({
  name: 'list_cards',
  title: 'List the cards in a column',
  description: `Lists the cards of one card-table column, top to bottom, with assignees, due dates and steps.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    column_id: id(`Column ID, from ${toolRef('get_card_table')}`),
    page: page(),
    limit: limit(30),
  }),
  outputSchema: listSchema(CardSchema()),
  annotations: READS,
}));

export const createListCards = (deps: ToolDeps) =>
  defineTool({
    ...listCardsShape(),
    handler: (input, { signal }) => {
      const scope = columnScope(input.project_id, input.column_id);
      return listPage(deps, `/card_tables/lists/${input.column_id}/cards.json`, {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: scope.notFound,
        scope,
        convert: toCard,
      });
    },
  });

export const listCards = basecampTool({ toolset: 'cards', operations: ['ListCards'] }, createListCards);
