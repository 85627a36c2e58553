import { DOCK, type FakeRecording, LOCATOR } from '../fixtures.js';
import { type Family, type FamilyContext, isDate, nowIso, type Result } from './types.js';

/** Check-in IDs tests refer to: the locator's questionnaire, its questions and answers. */
export const CHECKINS = {
  questionnaire: DOCK.locator.questionnaire,
  dailyQuestion: 1069479990,
  pausedQuestion: 1069479991,
  sharonAnswer: 1069479995,
  victorAnswer: 1069479996,
} as const;

interface QuestionSchedule {
  frequency: string;
  days: number[];
  hour: number;
  minute: number;
  week_instance: number | null;
  week_interval: number | null;
  month_interval: number | null;
  start_date: string;
  end_date: string | null;
}

const WEEKDAYS: QuestionSchedule = {
  frequency: 'every_week',
  days: [1, 2, 3, 4, 5],
  hour: 16,
  minute: 30,
  week_instance: null,
  week_interval: null,
  month_interval: null,
  start_date: '2026-01-05',
  end_date: null,
};

const FREQUENCIES = new Set([
  'every_day',
  'every_week',
  'every_other_week',
  'every_month',
  'on_certain_days',
]);

function seed(): FakeRecording[] {
  const base = { projectId: LOCATOR, status: 'active' as const };
  return [
    {
      ...base,
      id: CHECKINS.dailyQuestion,
      type: 'Question',
      parentId: CHECKINS.questionnaire,
      creatorId: 1049715913,
      title: 'What did you work on today?',
      html: '',
      created_at: '2026-01-05T08:00:00.000Z',
      updated_at: '2026-01-05T08:00:00.000Z',
      extra: { schedule: WEEKDAYS, paused: false },
    },
    {
      ...base,
      id: CHECKINS.pausedQuestion,
      type: 'Question',
      parentId: CHECKINS.questionnaire,
      creatorId: 1049715913,
      title: 'Anything blocking you?',
      html: '',
      created_at: '2026-01-05T08:01:00.000Z',
      updated_at: '2026-01-05T08:01:00.000Z',
      extra: { schedule: { ...WEEKDAYS, days: [1] }, paused: true },
    },
    {
      ...base,
      id: CHECKINS.sharonAnswer,
      type: 'Question::Answer',
      parentId: CHECKINS.dailyQuestion,
      creatorId: 1049715930,
      title: 'Answer for "What did you work on today?"',
      html: '<div>Finished the <strong>pairing flow</strong> mockups.</div>',
      created_at: '2026-01-13T16:40:00.000Z',
      updated_at: '2026-01-13T16:40:00.000Z',
      extra: { group_on: '2026-01-13' },
    },
    {
      ...base,
      id: CHECKINS.victorAnswer,
      type: 'Question::Answer',
      parentId: CHECKINS.dailyQuestion,
      creatorId: 1049715913,
      title: 'Answer for "What did you work on today?"',
      html: '<div>Budget review.</div>',
      created_at: '2026-01-14T16:35:00.000Z',
      updated_at: '2026-01-14T16:35:00.000Z',
      extra: { group_on: '2026-01-14' },
    },
  ];
}

/** A schedule from a body, or an error message. */
function schedule(value: unknown, fallback?: QuestionSchedule): QuestionSchedule | string {
  if (value === undefined && fallback) return fallback;
  if (typeof value !== 'object' || value === null) return 'schedule is required';
  const raw = value as Record<string, unknown>;
  const frequency = raw.frequency ?? fallback?.frequency;
  if (typeof frequency !== 'string' || !FREQUENCIES.has(frequency)) return 'schedule.frequency is not valid';
  const days = raw.days ?? fallback?.days ?? [];
  if (!Array.isArray(days) || days.some((day) => !Number.isInteger(day) || day < 0 || day > 6))
    return 'schedule.days must be weekdays 0-6';
  const start = raw.start_date ?? fallback?.start_date ?? nowIso().slice(0, 10);
  if (!isDate(start)) return 'schedule.start_date is not a date';
  return {
    frequency,
    days: days as number[],
    hour: Number(raw.hour ?? fallback?.hour ?? 9),
    minute: Number(raw.minute ?? fallback?.minute ?? 0),
    week_instance: (raw.week_instance as number | undefined) ?? fallback?.week_instance ?? null,
    week_interval: (raw.week_interval as number | undefined) ?? fallback?.week_interval ?? null,
    month_interval: (raw.month_interval as number | undefined) ?? fallback?.month_interval ?? null,
    start_date: start as string,
    end_date: (raw.end_date as string | undefined) ?? fallback?.end_date ?? null,
  };
}

function route(c: FamilyContext): Result | undefined {
  if (!/^\/(questionnaires|questions|question_answers)\//.test(c.path)) return undefined;
  const questionnaire = (id: number | undefined) => {
    const owner = c.dockOwner(id, 'questionnaire');
    return owner?.entry.enabled ? owner : undefined;
  };
  if (c.method === 'GET') {
    let value = c.id(/^\/questionnaires\/(\d+)\.json$/);
    if (value !== undefined) {
      const owner = questionnaire(value);
      if (!owner) return c.notFound;
      return {
        status: 200,
        body: {
          ...c.dockJson(owner.project, owner.entry, 'Questionnaire', 'questionnaires'),
          name: owner.entry.title,
          questions_url: `${c.base}/buckets/${owner.project.id}/questionnaires/${value}/questions.json`,
          questions_count: c.children(value, ['Question']).length,
        },
      };
    }
    value = c.id(/^\/questionnaires\/(\d+)\/questions\.json$/);
    if (value !== undefined) {
      if (!questionnaire(value)) return c.notFound;
      return c.paginate(
        c
          .children(value, ['Question'])
          .reverse()
          .map((question) => c.json(question)),
      );
    }
    value = c.id(/^\/questions\/(\d+)\/answers\.json$/);
    if (value !== undefined) {
      if (!c.recording(value, 'Question')) return c.notFound;
      return c.paginate(c.children(value, ['Question::Answer']).map((answer) => c.json(answer)));
    }
    value = c.id(/^\/questions\/(\d+)\/answers\/by\.json$/);
    if (value !== undefined) {
      if (!c.recording(value, 'Question')) return c.notFound;
      const people = new Set(c.children(value, ['Question::Answer']).map((answer) => answer.creatorId));
      return { status: 200, body: [...people].map((person) => c.person(person)) };
    }
    const byPerson = /^\/questions\/(\d+)\/answers\/by\/(\d+)(?:\.json)?$/.exec(c.path);
    if (byPerson) {
      const question = Number(byPerson[1]);
      if (!c.recording(question, 'Question')) return c.notFound;
      const answers = c
        .children(question, ['Question::Answer'])
        .filter((answer) => answer.creatorId === Number(byPerson[2]));
      return { status: 200, body: answers.map((answer) => c.json(answer)) };
    }
    for (const [pattern, type] of [
      [/^\/questions\/(\d+)\.json$/, 'Question'],
      [/^\/question_answers\/(\d+)\.json$/, 'Question::Answer'],
    ] as const) {
      value = c.id(pattern);
      if (value !== undefined) {
        const found = c.recording(value, type);
        return found ? { status: 200, body: c.json(found) } : c.notFound;
      }
    }
    return undefined;
  }
  const pause = c.id(/^\/questions\/(\d+)\/pause\.json$/);
  if (pause !== undefined && (c.method === 'POST' || c.method === 'DELETE')) {
    const question = c.recording(pause, 'Question');
    if (!question) return c.notFound;
    question.extra = { ...question.extra, paused: c.method === 'POST' };
    return { status: 200, body: { paused: c.method === 'POST' } };
  }
  if (c.method === 'POST') {
    let value = c.id(/^\/questionnaires\/(\d+)\/questions\.json$/);
    if (value !== undefined) {
      const owner = questionnaire(value);
      if (!owner) return c.notFound;
      if (typeof c.body.title !== 'string' || c.body.title.trim() === '')
        return c.invalid("Title can't be blank");
      const parsed = schedule(c.body.schedule);
      if (typeof parsed === 'string') return c.invalid(parsed);
      return c.created({
        type: 'Question',
        projectId: owner.project.id,
        parentId: value,
        title: c.body.title,
        html: '',
        extra: { schedule: parsed, paused: false },
      });
    }
    value = c.id(/^\/questions\/(\d+)\/answers\.json$/);
    if (value !== undefined) {
      const question = c.recording(value, 'Question');
      if (!question) return c.notFound;
      if (typeof c.body.content !== 'string' || c.body.content.trim() === '')
        return c.invalid("Content can't be blank");
      if (c.body.group_on !== undefined && !isDate(c.body.group_on))
        return c.invalid('group_on is not a date');
      return c.created({
        type: 'Question::Answer',
        projectId: question.projectId,
        parentId: value,
        title: `Answer for "${question.title}"`,
        html: c.body.content,
        extra: { group_on: (c.body.group_on as string | undefined) ?? nowIso().slice(0, 10) },
      });
    }
    return undefined;
  }
  if (c.method === 'PUT') {
    let value = c.id(/^\/questions\/(\d+)\.json$/);
    if (value !== undefined) {
      const question = c.recording(value, 'Question');
      if (!question) return c.notFound;
      if (c.body.title !== undefined) {
        if (typeof c.body.title !== 'string' || c.body.title.trim() === '')
          return c.invalid("Title can't be blank");
        question.title = c.body.title;
      }
      const parsed = schedule(c.body.schedule, question.extra?.schedule as QuestionSchedule);
      if (typeof parsed === 'string') return c.invalid(parsed);
      question.extra = { ...question.extra, schedule: parsed };
      if (typeof c.body.paused === 'boolean') question.extra.paused = c.body.paused;
      question.updated_at = nowIso();
      return { status: 200, body: c.json(question) };
    }
    value = c.id(/^\/question_answers\/(\d+)\.json$/);
    if (value !== undefined) {
      const answer = c.recording(value, 'Question::Answer');
      if (!answer) return c.notFound;
      if (typeof c.body.content !== 'string' || c.body.content.trim() === '')
        return c.invalid("Content can't be blank");
      answer.html = c.body.content;
      if (c.body.group_on !== undefined) {
        if (!isDate(c.body.group_on)) return c.invalid('group_on is not a date');
        answer.extra = { ...answer.extra, group_on: c.body.group_on };
      }
      answer.updated_at = nowIso();
      return { status: 200, body: c.json(answer) };
    }
  }
  return undefined;
}

export const checkinsFamily: Family = {
  route,
  seed,
  segments: { Question: 'questions', 'Question::Answer': 'question_answers' },
  dockTypes: { questionnaire: 'Questionnaire' },
  json(record, json, context) {
    if (record.type === 'Question') {
      json.paused = record.extra?.paused === true;
      json.schedule = record.extra?.schedule ?? null;
      json.answers_count = [...context.recordings.values()].filter(
        (entry) =>
          entry.parentId === record.id && entry.type === 'Question::Answer' && entry.status === 'active',
      ).length;
      json.answers_url = `${context.base}/buckets/${record.projectId}/questions/${record.id}/answers.json`;
    } else if (record.type === 'Question::Answer') {
      json.content = record.html;
      json.group_on = record.extra?.group_on ?? null;
    }
  },
};
