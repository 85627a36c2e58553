import { z } from 'zod';
import type { HtmlToMarkdown } from '../../markdown/html-to-markdown.js';
import {
  body,
  inProject,
  lazy,
  number,
  PersonRefSchema,
  placement,
  record,
  text,
  toPersonRef,
} from '../../shapes.js';
import { isoDate, itemScope } from '../shared.js';

type Raw = Record<string, unknown>;

export const QuestionScheduleSchema = lazy(() =>
  z.object({
    frequency: z.string().describe('every_day, every_week, every_other_week, every_month or on_certain_days'),
    days: z.array(z.number()).describe('Weekdays it is asked on, 0 = Sunday'),
    hour: z.number(),
    minute: z.number(),
    start_date: z.string().nullable(),
    end_date: z.string().nullable(),
  }),
);

export const QuestionSchema = lazy(() =>
  z.object({
    id: z.number(),
    ...inProject,
    title: z.string().describe('The question asked'),
    paused: z.boolean(),
    schedule: QuestionScheduleSchema().nullable(),
    answers_count: z.number(),
    creator: PersonRefSchema.nullable(),
    app_url: z.string().nullable(),
  }),
);

export const AnswerSchema = lazy(() =>
  z.object({
    id: z.number(),
    ...inProject,
    author: PersonRefSchema.nullable(),
    group_on: z.string().nullable().describe('The day the answer is for'),
    content: z.string(),
    content_truncated: z.boolean(),
    comments_count: z.number(),
    created_at: z.string().nullable(),
    app_url: z.string().nullable(),
  }),
);

export function toQuestion(raw: Raw): z.infer<ReturnType<typeof QuestionSchema>> {
  const schedule = record(raw.schedule);
  return {
    id: number(raw.id) ?? 0,
    ...placement(raw),
    title: text(raw.title) ?? '',
    paused: raw.paused === true,
    schedule: schedule
      ? {
          frequency: text(schedule.frequency) ?? '',
          days: (Array.isArray(schedule.days) ? schedule.days : []).filter(
            (day): day is number => typeof day === 'number',
          ),
          hour: number(schedule.hour) ?? 0,
          minute: number(schedule.minute) ?? 0,
          start_date: text(schedule.start_date),
          end_date: text(schedule.end_date),
        }
      : null,
    answers_count: number(raw.answers_count) ?? 0,
    creator: toPersonRef(raw.creator),
    app_url: text(raw.app_url),
  };
}

export function toAnswer(
  raw: Raw,
  markdown: HtmlToMarkdown,
  max: number,
): z.infer<ReturnType<typeof AnswerSchema>> {
  const content = body(markdown, raw.content, max);
  return {
    id: number(raw.id) ?? 0,
    ...placement(raw),
    author: toPersonRef(raw.creator),
    group_on: text(raw.group_on),
    content: content.text,
    content_truncated: content.truncated,
    comments_count: number(raw.comments_count) ?? 0,
    created_at: text(raw.created_at),
    app_url: text(raw.app_url),
  };
}

export const questionScope = (projectId: number | undefined, questionId: number) =>
  itemScope(projectId, `Question ${questionId}`, `/questions/${questionId}.json`, 'list_checkin_questions');
export const answerScope = (projectId: number | undefined, answerId: number) =>
  itemScope(projectId, `Answer ${answerId}`, `/question_answers/${answerId}.json`, 'list_checkin_answers');

/** The schedule fields an agent sets on a question. */
export const scheduleInput = () =>
  z
    .strictObject({
      frequency: z
        .enum(['every_day', 'every_week', 'every_other_week', 'every_month', 'on_certain_days'])
        .describe('How often it is asked'),
      days: z
        .array(z.number().int().min(0).max(6))
        .max(7)
        .default([1, 2, 3, 4, 5])
        .describe('Weekdays, 0 = Sunday (default Monday-Friday)'),
      hour: z
        .number()
        .int()
        .min(0)
        .max(23)
        .default(16)
        .describe('Hour it is asked, in the account time zone'),
      minute: z.number().int().min(0).max(59).default(0).describe('Minute'),
      start_date: isoDate().optional().describe('First day, default today'),
      end_date: isoDate().optional().describe('Last day, default never'),
    })
    .describe('When the question is asked');
