import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import { getOne, id, itemProjectId, READS, type ToolDeps } from '../shared.js';
import { CardSchema, cardScope, toCard } from './shapes.js';

export const readCard = (
  deps: ToolDeps,
  projectId: number | undefined,
  cardId: number,
  signal: AbortSignal,
) =>
  getOne(deps, `/card_tables/cards/${cardId}.json`, {
    signal,
    scope: cardScope(projectId, cardId),
    convert: toCard,
  });

const getCardShape = lazy(() => ({
  name: 'get_card',
  title: 'Get a card',
  description: `Returns one card with its whole description as Markdown, its column (parent), assignees, due date and steps.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    card_id: id(`Card ID, from ${toolRef('list_cards')}`),
  }),
  outputSchema: CardSchema(),
  annotations: READS,
}));

export const createGetCard = (deps: ToolDeps) =>
  defineTool({
    ...getCardShape(),
    handler: (input, { signal }) => readCard(deps, input.project_id, input.card_id, signal),
  });

export const getCard = basecampTool({ toolset: 'cards', operations: ['GetCard'] }, createGetCard);
