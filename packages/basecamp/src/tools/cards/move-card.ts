import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import { id, itemProjectId, SETS_STATE, send, type ToolDeps } from '../shared.js';
import { readCard } from './get-card.js';
import { CardSchema, cardScope } from './shapes.js';

const moveCardShape = lazy(() => ({
  name: 'move_card',
  title: 'Move a card to another column',
  description: `Moves a card to a column of the same card table (e.g. from "In progress" to "Done"), at the top or at position.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    card_id: id(`Card ID, from ${toolRef('list_cards')}`),
    column_id: id(`ID of the column to move it to, from ${toolRef('get_card_table')}`),
    position: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe('Place in the column, 1 = top (default)'),
  }),
  outputSchema: CardSchema(),
  annotations: SETS_STATE,
}));

export const createMoveCard = (deps: ToolDeps) =>
  defineTool({
    ...moveCardShape(),
    handler: async (input, { signal }) => {
      await send(deps, 'POST', `/card_tables/cards/${input.card_id}/moves.json`, {
        signal,
        scope: cardScope(input.project_id, input.card_id),
        body: {
          column_id: input.column_id,
          ...(input.position === undefined ? {} : { position: input.position }),
        },
      });
      return readCard(deps, input.project_id, input.card_id, signal);
    },
  });

export const moveCard = basecampTool(
  { toolset: 'cards', operations: ['MoveCard', 'GetCard'] },
  createMoveCard,
);
