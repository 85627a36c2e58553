import { errorBody, resultData } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useBasecampSession } from '../../test-session.js';
import { CHECKINS, LAPTOP, LOCATOR } from '../../testing/index.js';

const session = useBasecampSession('checkins');
const call = session.call;
type Answer = { id: number; content: string; group_on: string; author: { name: string } };
type Question = {
  id: number;
  title: string;
  paused: boolean;
  schedule: { frequency: string; days: number[] };
};

describe('check-ins', () => {
  it('lists the questions of a project from project_id, with schedule and paused state', async () => {
    const questions = resultData<{ items: Question[] }>(
      await call('list_checkin_questions', { project_id: LOCATOR }),
    );
    expect(questions.items.map((question) => [question.title, question.paused])).toEqual([
      ['What did you work on today?', false],
      ['Anything blocking you?', true],
    ]);
    expect(questions.items[0]?.schedule).toMatchObject({ frequency: 'every_week', days: [1, 2, 3, 4, 5] });
  });

  it('says the laptop project has its check-ins switched off', async () => {
    const result = await call('list_checkin_questions', { project_id: LAPTOP });
    expect(errorBody(result)).toMatchObject({ error_code: 'TOOL_NOT_ENABLED' });
    expect(errorBody(result).message).toContain('Automatic Check-ins');
  });

  it('answers a check-in in Markdown and reads the answers back, also by person', async () => {
    const answer = resultData<Answer>(
      await call('answer_checkin', {
        project_id: LOCATOR,
        question_id: CHECKINS.dailyQuestion,
        content: 'Fixed the **pairing** bug\n\n- tests\n- docs',
        group_on: '2026-01-15',
      }),
    );
    expect(answer).toMatchObject({ group_on: '2026-01-15', author: { name: 'Victor Cooper' } });
    expect(answer.content).toBe('Fixed the **pairing** bug\n\n- tests\n- docs');
    expect(session.fake.requests.at(-1)?.body).toMatchObject({ group_on: '2026-01-15' });
    const answers = resultData<{ items: Answer[]; total: number }>(
      await call('list_checkin_answers', { question_id: CHECKINS.dailyQuestion }),
    );
    expect(answers.items[0]?.id).toBe(answer.id);
    expect(answers.total).toBe(3);
    const sharon = resultData<{ items: Answer[] }>(
      await call('list_checkin_answers', { question_id: CHECKINS.dailyQuestion, person_id: 1049715930 }),
    );
    expect(sharon.items.map((entry) => entry.content)).toEqual(['Finished the **pairing flow** mockups.']);
    const people = resultData<{ people: { name: string }[] }>(
      await call('list_checkin_answerers', { question_id: CHECKINS.dailyQuestion }),
    );
    expect(people.people.map((person) => person.name).sort()).toEqual(['Sharon Bradford', 'Victor Cooper']);
  });

  it('refuses an empty answer and a bad day before sending anything', async () => {
    session.fake.resetLog();
    const empty = await call('answer_checkin', { question_id: CHECKINS.dailyQuestion, content: '  ' });
    expect(errorBody(empty)).toMatchObject({ error_code: 'INVALID_INPUT' });
    const badDay = await call('answer_checkin', {
      question_id: CHECKINS.dailyQuestion,
      content: 'x',
      group_on: '15/01',
    });
    expect(errorBody(badDay)).toMatchObject({ error_code: 'INVALID_INPUT' });
    expect(session.fake.requests).toEqual([]);
  });

  it('edits an answer, and keeps it inside the project given', async () => {
    const edited = resultData<Answer>(
      await call('update_checkin_answer', { answer_id: CHECKINS.victorAnswer, content: 'Budget _done_' }),
    );
    expect(edited.content).toBe('Budget _done_');
    const elsewhere = await call('get_checkin_answer', {
      project_id: LAPTOP,
      answer_id: CHECKINS.victorAnswer,
    });
    expect(errorBody(elsewhere).message).toContain(`it is in project ${LOCATOR}`);
  });

  it('asks a new question and pauses, resumes and rewords questions', async () => {
    const question = resultData<Question>(
      await call('create_checkin_question', {
        project_id: LOCATOR,
        title: 'Any risks this week?',
        schedule: { frequency: 'every_week', days: [5], hour: 9 },
      }),
    );
    expect(question).toMatchObject({ title: 'Any risks this week?', paused: false, schedule: { days: [5] } });
    const paused = resultData<Question>(
      await call('update_checkin_question', { question_id: question.id, paused: true }),
    );
    expect(paused.paused).toBe(true);
    const resumed = resultData<Question>(
      await call('update_checkin_question', { question_id: question.id, paused: false, title: 'Any risks?' }),
    );
    expect(resumed).toMatchObject({ paused: false, title: 'Any risks?' });
    const nothing = await call('update_checkin_question', { question_id: question.id });
    expect(errorBody(nothing)).toMatchObject({ error_code: 'INVALID_INPUT' });
  });
});
