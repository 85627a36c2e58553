import { defineTool, InvalidInputError, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import {
  assigneeIds,
  clearableDate,
  id,
  itemProjectId,
  richText,
  SETS_STATE,
  sendOne,
  type ToolDeps,
} from '../shared.js';
import { CardSchema, cardScope, toCard } from './shapes.js';

const updateCardShape = lazy(() => ({
  name: 'update_card',
  title: 'Change a card',
  description: `Changes a card's title, description, due date or assignees; fields left out stay. due_on null clears the date; assignee_ids replaces the assignees ([] unassigns all). Move it with ${toolRef('move_card')}.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    card_id: id(`Card ID, from ${toolRef('list_cards')}`),
    title: z.string().trim().min(1).max(1_000).optional().describe('New title (plain text)'),
    content: richText('New description.').optional(),
    due_on: clearableDate('New due date'),
    assignee_ids: assigneeIds(
      `Everyone assigned from now on, by ID from ${toolRef('list_people')}`,
    ).optional(),
  }),
  outputSchema: CardSchema(),
  annotations: SETS_STATE,
}));

export const createUpdateCard = (deps: ToolDeps) =>
  defineTool({
    ...updateCardShape(),
    handler: async (input, { signal }) => {
      if (Object.keys(input).every((key) => key === 'project_id' || key === 'card_id')) {
        throw new InvalidInputError('Nothing to change: pass title, content, due_on or assignee_ids.');
      }
      const html = await deps.html();
      return sendOne(deps, 'PUT', `/card_tables/cards/${input.card_id}.json`, {
        signal,
        scope: cardScope(input.project_id, input.card_id),
        body: {
          ...(input.title === undefined ? {} : { title: input.title }),
          ...(input.content === undefined ? {} : { content: html(input.content) }),
          ...(input.due_on === undefined ? {} : { due_on: input.due_on ?? '' }),
          ...(input.assignee_ids === undefined ? {} : { assignee_ids: input.assignee_ids }),
        },
        convert: toCard,
      });
    },
  });

export const updateCard = basecampTool({ toolset: 'cards', operations: ['UpdateCard'] }, createUpdateCard);
