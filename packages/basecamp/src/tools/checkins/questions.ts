import { defineTool, InvalidInputError, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, listSchema } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
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
  SETS_STATE,
  send,
  sendOne,
  type ToolDeps,
  toolProject,
} from '../shared.js';
import { QuestionSchema, questionScope, scheduleInput, toQuestion } from './shapes.js';

const questionId = () => id(`Question ID, from ${toolRef('list_checkin_questions')}`);

const listCheckinQuestionsShape = lazy(() => ({
  name: 'list_checkin_questions',
  title: 'List check-in questions',
  description: `Lists a project's automatic check-in questions with their schedule, paused state and answer count. Answers: ${toolRef('list_checkin_answers')}.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    questionnaire_id: dockOverride(),
    page: page(),
    limit: limit(50),
  }),
  outputSchema: listSchema(QuestionSchema()),
  annotations: READS,
}));

export const createListCheckinQuestions = (deps: ToolDeps) =>
  defineTool({
    ...listCheckinQuestionsShape(),
    handler: async (input, { signal }) => {
      const questionnaire = await deps.docks.resolve(
        input.project_id,
        'questionnaire',
        input.questionnaire_id,
        signal,
      );
      return listPage(deps, `/questionnaires/${questionnaire}/questions.json`, {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: `Check-ins ${questionnaire} were not found, or you have no access to them. Use ${toolRef('get_project_tools')} to see the project's tools.`,
        convert: toQuestion,
      });
    },
  });

const getCheckinQuestionShape = lazy(() => ({
  name: 'get_checkin_question',
  title: 'Get a check-in question',
  description: `Returns one check-in question with its schedule, paused state and answer count.`,
  inputSchema: z.strictObject({ project_id: itemProjectId(), question_id: questionId() }),
  outputSchema: QuestionSchema(),
  annotations: READS,
}));

export const createGetCheckinQuestion = (deps: ToolDeps) =>
  defineTool({
    ...getCheckinQuestionShape(),
    handler: (input, { signal }) =>
      getOne(deps, `/questions/${input.question_id}.json`, {
        signal,
        scope: questionScope(input.project_id, input.question_id),
        convert: toQuestion,
      }),
  });

const createCheckinQuestionShape = lazy(() => ({
  name: 'create_checkin_question',
  title: 'Ask a new check-in question',
  description: `Adds an automatic check-in question to a project, asked of the project's people on a schedule (e.g. every weekday at 16:00).`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    questionnaire_id: dockOverride(),
    title: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .describe('The question, e.g. "What will you work on this week?"'),
    schedule: scheduleInput(),
  }),
  outputSchema: QuestionSchema(),
  annotations: CREATES,
}));

export const createCreateCheckinQuestion = (deps: ToolDeps) =>
  defineTool({
    ...createCheckinQuestionShape(),
    handler: async (input, { signal }) => {
      const questionnaire = await deps.docks.resolve(
        input.project_id,
        'questionnaire',
        input.questionnaire_id,
        signal,
      );
      return sendOne(deps, 'POST', `/questionnaires/${questionnaire}/questions.json`, {
        signal,
        scope: {
          projectId: toolProject(deps, input.project_id),
          what: `Check-ins ${questionnaire}`,
          probe: `/questionnaires/${questionnaire}.json`,
          notFound: `Check-ins ${questionnaire} were not found, or you have no access to them. Use ${toolRef('get_project_tools')} to see the project's tools.`,
        },
        body: { title: input.title, schedule: input.schedule },
        convert: toQuestion,
      });
    },
  });

const updateCheckinQuestionShape = lazy(() => ({
  name: 'update_checkin_question',
  title: 'Change a check-in question',
  description: `Changes a check-in question's wording or schedule, pauses / resumes it (paused), or sets how you are notified of its answers.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    question_id: questionId(),
    title: z.string().trim().min(1).max(500).optional().describe('New wording'),
    schedule: scheduleInput().optional(),
    paused: z.boolean().optional().describe('true: stop asking for now; false: ask again'),
    notify_on_answer: z
      .boolean()
      .optional()
      .describe('Your own notifications: true to be notified of each answer'),
    digest_include_unanswered: z
      .boolean()
      .optional()
      .describe("Your own notifications: true to list who hasn't answered in the daily digest"),
  }),
  outputSchema: QuestionSchema(),
  annotations: SETS_STATE,
}));

export const createUpdateCheckinQuestion = (deps: ToolDeps) =>
  defineTool({
    ...updateCheckinQuestionShape(),
    handler: async (input, { signal }) => {
      const notifications = {
        ...(input.notify_on_answer === undefined ? {} : { notify_on_answer: input.notify_on_answer }),
        ...(input.digest_include_unanswered === undefined
          ? {}
          : { digest_include_unanswered: input.digest_include_unanswered }),
      };
      if (
        input.title === undefined &&
        input.schedule === undefined &&
        input.paused === undefined &&
        Object.keys(notifications).length === 0
      ) {
        throw new InvalidInputError(
          'Nothing to change: pass title, schedule, paused, notify_on_answer or digest_include_unanswered.',
        );
      }
      const scope = questionScope(input.project_id, input.question_id);
      if (Object.keys(notifications).length > 0) {
        await send(deps, 'PUT', `/questions/${input.question_id}/notification_settings.json`, {
          signal,
          scope,
          body: notifications,
        });
      }
      if (input.paused !== undefined) {
        await send(deps, input.paused ? 'POST' : 'DELETE', `/questions/${input.question_id}/pause.json`, {
          signal,
          scope,
        });
      }
      if (input.title === undefined && input.schedule === undefined) {
        return getOne(deps, `/questions/${input.question_id}.json`, { signal, scope, convert: toQuestion });
      }
      return sendOne(deps, 'PUT', `/questions/${input.question_id}.json`, {
        signal,
        scope,
        body: {
          ...(input.title === undefined ? {} : { title: input.title }),
          ...(input.schedule === undefined ? {} : { schedule: input.schedule }),
        },
        convert: toQuestion,
      });
    },
  });

export const listCheckinQuestions = basecampTool(
  { toolset: 'checkins', operations: ['ListQuestions'] },
  createListCheckinQuestions,
);
export const getCheckinQuestion = basecampTool(
  { toolset: 'checkins', operations: ['GetQuestion'] },
  createGetCheckinQuestion,
);
export const createCheckinQuestion = basecampTool(
  { toolset: 'checkins', operations: ['CreateQuestion'] },
  createCreateCheckinQuestion,
);
export const updateCheckinQuestion = basecampTool(
  {
    toolset: 'checkins',
    operations: ['UpdateQuestion', 'PauseQuestion', 'ResumeQuestion', 'UpdateQuestionNotificationSettings'],
  },
  createUpdateCheckinQuestion,
);
