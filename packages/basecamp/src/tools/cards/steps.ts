import { defineTool, InvalidInputError, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import {
  assigneeIds,
  CREATES,
  clearableDate,
  date,
  id,
  itemProjectId,
  SETS_STATE,
  send,
  sendOne,
  type ToolDeps,
} from '../shared.js';
import { readCard } from './get-card.js';
import { CardSchema, CardStepSchema, cardScope, stepScope, toCardStep } from './shapes.js';

const stepId = () => id(`Step ID, from ${toolRef('get_card')} (its steps)`);

const createCardStepShape = lazy(() => ({
  name: 'create_card_step',
  title: 'Add a step to a card',
  description: `Adds a step (a checklist item) to a card, optionally with a due date and assignees (from ${toolRef('list_people')}).`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    card_id: id(`Card ID, from ${toolRef('list_cards')}`),
    title: z.string().trim().min(1).max(1_000).describe('What the step is (plain text)'),
    due_on: date('Due date').optional(),
    assignee_ids: assigneeIds().optional(),
  }),
  outputSchema: CardStepSchema(),
  annotations: CREATES,
}));

export const createCreateCardStep = (deps: ToolDeps) =>
  defineTool({
    ...createCardStepShape(),
    handler: (input, { signal }) =>
      sendOne(deps, 'POST', `/card_tables/cards/${input.card_id}/steps.json`, {
        signal,
        scope: cardScope(input.project_id, input.card_id),
        body: {
          title: input.title,
          ...(input.due_on === undefined ? {} : { due_on: input.due_on }),
          ...(input.assignee_ids === undefined ? {} : { assignee_ids: input.assignee_ids }),
        },
        convert: toCardStep,
      }),
  });

const updateCardStepShape = lazy(() => ({
  name: 'update_card_step',
  title: 'Change a card step',
  description: `Changes a card step's title, due date (null clears it) or assignees (replaced; [] unassigns). Complete it with ${toolRef('complete_card_step')}.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    step_id: stepId(),
    title: z.string().trim().min(1).max(1_000).optional().describe('New title (plain text)'),
    due_on: clearableDate('New due date'),
    assignee_ids: assigneeIds(
      `Everyone assigned from now on, by ID from ${toolRef('list_people')}`,
    ).optional(),
  }),
  outputSchema: CardStepSchema(),
  annotations: SETS_STATE,
}));

export const createUpdateCardStep = (deps: ToolDeps) =>
  defineTool({
    ...updateCardStepShape(),
    handler: (input, { signal }) => {
      if (input.title === undefined && input.due_on === undefined && input.assignee_ids === undefined) {
        throw new InvalidInputError('Nothing to change: pass title, due_on or assignee_ids.');
      }
      return sendOne(deps, 'PUT', `/card_tables/steps/${input.step_id}.json`, {
        signal,
        scope: stepScope(input.project_id, input.step_id),
        body: {
          ...(input.title === undefined ? {} : { title: input.title }),
          ...(input.due_on === undefined ? {} : { due_on: input.due_on ?? '' }),
          ...(input.assignee_ids === undefined ? {} : { assignee_ids: input.assignee_ids }),
        },
        convert: toCardStep,
      });
    },
  });

const completeCardStepShape = lazy(() => ({
  name: 'complete_card_step',
  title: 'Complete or reopen a card step',
  description: `Marks a card step done (completed: true, the default) or not done (completed: false).`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    step_id: stepId(),
    completed: z.boolean().default(true).describe('true: done (default); false: not done'),
  }),
  outputSchema: CardStepSchema(),
  annotations: SETS_STATE,
}));

export const createCompleteCardStep = (deps: ToolDeps) =>
  defineTool({
    ...completeCardStepShape(),
    handler: (input, { signal }) =>
      sendOne(deps, 'PUT', `/card_tables/steps/${input.step_id}/completions.json`, {
        signal,
        scope: stepScope(input.project_id, input.step_id),
        body: { completion: input.completed ? 'on' : '' },
        convert: toCardStep,
      }),
  });

const moveCardStepShape = lazy(() => ({
  name: 'move_card_step',
  title: 'Reorder a card step',
  description: `Moves a step to another place in its card's list of steps (1 = first).`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    card_id: id(`Card ID, from ${toolRef('list_cards')}`),
    step_id: stepId(),
    position: z.number().int().min(1).max(1_000).describe('New place among the steps, 1 = first'),
  }),
  outputSchema: CardSchema(),
  annotations: SETS_STATE,
}));

export const createMoveCardStep = (deps: ToolDeps) =>
  defineTool({
    ...moveCardStepShape(),
    handler: async (input, { signal }) => {
      // Basecamp counts this position from 0.
      await send(deps, 'POST', `/card_tables/cards/${input.card_id}/positions.json`, {
        signal,
        scope: cardScope(input.project_id, input.card_id),
        body: { source_id: input.step_id, position: input.position - 1 },
      });
      return readCard(deps, input.project_id, input.card_id, signal);
    },
  });

export const createCardStep = basecampTool(
  { toolset: 'cards', operations: ['CreateCardStep'] },
  createCreateCardStep,
);
export const updateCardStep = basecampTool(
  { toolset: 'cards', operations: ['UpdateCardStep'] },
  createUpdateCardStep,
);
export const completeCardStep = basecampTool(
  { toolset: 'cards', operations: ['SetCardStepCompletion'] },
  createCompleteCardStep,
);
export const moveCardStep = basecampTool(
  { toolset: 'cards', operations: ['RepositionCardStep', 'GetCard'] },
  createMoveCardStep,
);
