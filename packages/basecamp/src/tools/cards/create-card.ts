import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import { CREATES, date, id, itemProjectId, richText, sendOne, type ToolDeps } from '../shared.js';
import { CardSchema, columnScope, toCard } from './shapes.js';

const createCardShape = lazy(() => ({
  name: 'create_card',
  title: 'Add a card',
  description: `Adds a card to a card-table column (at the bottom). Assign people afterwards with ${toolRef('update_card')}.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    column_id: id(`Column ID, from ${toolRef('get_card_table')}`),
    title: z.string().trim().min(1).max(1_000).describe("The card's title (plain text)"),
    content: richText('What the card is about.').optional(),
    due_on: date('Due date').optional(),
    notify: z.boolean().default(false).describe('Notify the people assigned'),
  }),
  outputSchema: CardSchema(),
  annotations: CREATES,
}));

export const createCreateCard = (deps: ToolDeps) =>
  defineTool({
    ...createCardShape(),
    handler: async (input, { signal }) => {
      const html = await deps.html();
      return sendOne(deps, 'POST', `/card_tables/lists/${input.column_id}/cards.json`, {
        signal,
        scope: columnScope(input.project_id, input.column_id),
        body: {
          title: input.title,
          ...(input.content === undefined ? {} : { content: html(input.content) }),
          ...(input.due_on === undefined ? {} : { due_on: input.due_on }),
          ...(input.notify ? { notify: true } : {}),
        },
        convert: toCard,
      });
    },
  });

export const createCard = basecampTool({ toolset: 'cards', operations: ['CreateCard'] }, createCreateCard);
