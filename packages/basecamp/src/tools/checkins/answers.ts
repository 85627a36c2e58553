import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, listSchema, PersonRefSchema, toPersonRef } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import {
  CREATES,
  getOne,
  id,
  isoDate,
  itemProjectId,
  LIST_BODY_CHARS,
  limit,
  listPage,
  page,
  READS,
  richText,
  SETS_STATE,
  scoped,
  sendOne,
  type ToolDeps,
  withinProject,
} from '../shared.js';
import { AnswerSchema, answerScope, questionScope, toAnswer } from './shapes.js';

const questionId = () => id(`Question ID, from ${toolRef('list_checkin_questions')}`);
const groupOn = () =>
  isoDate()
    .optional()
    .describe("The day the answer is for, default today: answer a past day's check-in with it");

const listCheckinAnswersShape = lazy(() => ({
  name: 'list_checkin_answers',
  title: "Read a check-in question's answers",
  description: `Lists the answers to a check-in question, newest first; person_id gives one person's answers (all, on one page).`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    question_id: questionId(),
    person_id: id(
      `Only this person's answers, by ID from ${toolRef('list_people')} or ${toolRef('list_checkin_answerers')}`,
    ).optional(),
    page: page(),
    limit: limit(30),
  }),
  outputSchema: listSchema(AnswerSchema()),
  annotations: READS,
}));

export const createListCheckinAnswers = (deps: ToolDeps) =>
  defineTool({
    ...listCheckinAnswersShape(),
    handler: async (input, { signal }) => {
      const scope = questionScope(input.project_id, input.question_id);
      if (input.person_id === undefined) {
        return listPage(deps, `/questions/${input.question_id}/answers.json`, {
          page: input.page,
          limit: input.limit,
          signal,
          notFound: scope.notFound,
          scope,
          convert: toAnswer,
        });
      }
      // One person's answers come as one unpaginated list.
      const target = scoped(
        scope,
        `/questions/${input.question_id}/answers/by/${input.person_id}.json`,
        deps,
      );
      const [markdown, response] = await Promise.all([
        deps.markdown(),
        withinProject(deps, scope, signal, () =>
          deps.client.get<Record<string, unknown>[]>(target.path, { signal, notFound: target.notFound }),
        ),
      ]);
      const all = Array.isArray(response.data) ? response.data : [];
      const start = (input.page - 1) * input.limit;
      const hasMore = start + input.limit < all.length;
      return {
        items: all.slice(start, start + input.limit).map((raw) => toAnswer(raw, markdown, LIST_BODY_CHARS)),
        has_more: hasMore,
        next_page: hasMore ? input.page + 1 : null,
        total: all.length,
        truncated: false,
      };
    },
  });

const listCheckinAnswerersShape = lazy(() => ({
  name: 'list_checkin_answerers',
  title: 'Who answered a check-in question',
  description: `Lists the people who have answered a check-in question. Read one person's answers with ${toolRef('list_checkin_answers')} and person_id.`,
  inputSchema: z.strictObject({ project_id: itemProjectId(), question_id: questionId() }),
  outputSchema: z.object({ people: z.array(PersonRefSchema) }),
  annotations: READS,
}));

export const createListCheckinAnswerers = (deps: ToolDeps) =>
  defineTool({
    ...listCheckinAnswerersShape(),
    handler: async (input, { signal }) => {
      const scope = questionScope(input.project_id, input.question_id);
      const target = scoped(scope, `/questions/${input.question_id}/answers/by.json`, deps);
      const response = await withinProject(deps, scope, signal, () =>
        deps.client.get<unknown[]>(target.path, { signal, notFound: target.notFound }),
      );
      const people = (Array.isArray(response.data) ? response.data : [])
        .map(toPersonRef)
        .filter((person) => person !== null);
      return { people };
    },
  });

const getCheckinAnswerShape = lazy(() => ({
  name: 'get_checkin_answer',
  title: 'Get a check-in answer',
  description: `Returns one check-in answer, whole, as Markdown.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    answer_id: id(`Answer ID, from ${toolRef('list_checkin_answers')}`),
  }),
  outputSchema: AnswerSchema(),
  annotations: READS,
}));

export const createGetCheckinAnswer = (deps: ToolDeps) =>
  defineTool({
    ...getCheckinAnswerShape(),
    handler: (input, { signal }) =>
      getOne(deps, `/question_answers/${input.answer_id}.json`, {
        signal,
        scope: answerScope(input.project_id, input.answer_id),
        convert: toAnswer,
      }),
  });

const answerCheckinShape = lazy(() => ({
  name: 'answer_checkin',
  title: 'Answer a check-in question',
  description: `Posts your answer (Markdown) to a check-in question, for today or for group_on. Returns the answer; change it later with ${toolRef('update_checkin_answer')}.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    question_id: questionId(),
    content: richText('Your answer.', 20_000),
    group_on: groupOn(),
  }),
  outputSchema: AnswerSchema(),
  annotations: CREATES,
}));

export const createAnswerCheckin = (deps: ToolDeps) =>
  defineTool({
    ...answerCheckinShape(),
    handler: async (input, { signal }) => {
      const html = await deps.html();
      return sendOne(deps, 'POST', `/questions/${input.question_id}/answers.json`, {
        signal,
        scope: questionScope(input.project_id, input.question_id),
        body: {
          content: html(input.content),
          ...(input.group_on === undefined ? {} : { group_on: input.group_on }),
        },
        convert: toAnswer,
      });
    },
  });

const updateCheckinAnswerShape = lazy(() => ({
  name: 'update_checkin_answer',
  title: 'Change a check-in answer',
  description: `Replaces the text (Markdown) of a check-in answer.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    answer_id: id(`Answer ID, from ${toolRef('list_checkin_answers')}`),
    content: richText('The new answer.', 20_000),
    group_on: groupOn(),
  }),
  outputSchema: AnswerSchema(),
  annotations: SETS_STATE,
}));

export const createUpdateCheckinAnswer = (deps: ToolDeps) =>
  defineTool({
    ...updateCheckinAnswerShape(),
    handler: async (input, { signal }) => {
      const html = await deps.html();
      return sendOne(deps, 'PUT', `/question_answers/${input.answer_id}.json`, {
        signal,
        scope: answerScope(input.project_id, input.answer_id),
        body: {
          content: html(input.content),
          ...(input.group_on === undefined ? {} : { group_on: input.group_on }),
        },
        convert: toAnswer,
      });
    },
  });

export const listCheckinAnswers = basecampTool(
  { toolset: 'checkins', operations: ['ListAnswers', 'GetAnswersByPerson'] },
  createListCheckinAnswers,
);
export const listCheckinAnswerers = basecampTool(
  { toolset: 'checkins', operations: ['ListQuestionAnswerers'] },
  createListCheckinAnswerers,
);
export const getCheckinAnswer = basecampTool(
  { toolset: 'checkins', operations: ['GetAnswer'] },
  createGetCheckinAnswer,
);
export const answerCheckin = basecampTool(
  { toolset: 'checkins', operations: ['CreateAnswer'] },
  createAnswerCheckin,
);
export const updateCheckinAnswer = basecampTool(
  { toolset: 'checkins', operations: ['UpdateAnswer'] },
  createUpdateCheckinAnswer,
);
