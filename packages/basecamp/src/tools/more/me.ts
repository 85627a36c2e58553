import { defineTool, InvalidInputError, toolRef, UpstreamError } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, listSchema, number, PersonSchema, record, text, toPerson } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import { QuestionSchema, toQuestion } from '../checkins/shapes.js';
import { limit, listPage, page, READS, SETS_STATE, type ToolDeps } from '../shared.js';

type Raw = Record<string, unknown>;

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

const PreferencesSchema = lazy(() =>
  z.object({
    time_zone_name: z.string().nullable().describe('e.g. "America/Chicago": read dates and times in it'),
    first_week_day: z.string().nullable(),
    time_format: z.string().nullable().describe('twelve_hour or twenty_four_hour'),
  }),
);
const toPreferences = (raw: Raw): z.infer<ReturnType<typeof PreferencesSchema>> => ({
  time_zone_name: text(raw.time_zone_name),
  first_week_day: text(raw.first_week_day),
  time_format: text(raw.time_format),
});

const myPreferencesShape = lazy(() => ({
  name: 'my_preferences',
  title: 'Your time zone and formats',
  description: `Returns your time zone, first day of the week and time format: use the time zone to turn "tomorrow at 9" into Basecamp's dates and times.`,
  inputSchema: z.strictObject({}),
  outputSchema: PreferencesSchema(),
  annotations: READS,
}));

export const createMyPreferences = (deps: ToolDeps) =>
  defineTool({
    ...myPreferencesShape(),
    handler: async (_input, { signal }) =>
      toPreferences((await deps.client.get<Raw>('/my/preferences.json', { signal })).data ?? {}),
  });

const profileText = (description: string, max: number) =>
  z.string().trim().min(1).max(max).optional().describe(description);

const updateMyProfileShape = lazy(() => ({
  name: 'update_my_profile',
  title: 'Change your profile',
  description: `Changes your own profile (name, title, bio, location) and preferences (time zone, week start, time format). Pass only what changes.`,
  inputSchema: z.strictObject({
    name: profileText('Display name', 255),
    title: profileText('Job title', 255),
    bio: profileText('A short bio', 1_000),
    location: profileText('Where you are, e.g. "Chicago, IL"', 255),
    time_zone_name: profileText('Time zone, e.g. "America/Chicago", "London", "UTC"', 100),
    first_week_day: z.enum(DAYS).optional().describe('First day of the week'),
    time_format: z.enum(['twelve_hour', 'twenty_four_hour']).optional().describe('Time format'),
  }),
  outputSchema: z.object({
    profile: PersonSchema.extend({ bio: z.string().nullable(), location: z.string().nullable() }),
    preferences: PreferencesSchema(),
  }),
  annotations: SETS_STATE,
}));

export const createUpdateMyProfile = (deps: ToolDeps) =>
  defineTool({
    ...updateMyProfileShape(),
    handler: async (input, { signal }) => {
      const profile = Object.fromEntries(
        (['name', 'title', 'bio', 'location'] as const)
          .filter((key) => input[key] !== undefined)
          .map((key) => [key, input[key]]),
      );
      const preferences = Object.fromEntries(
        (['time_zone_name', 'first_week_day', 'time_format'] as const)
          .filter((key) => input[key] !== undefined)
          .map((key) => [key, input[key]]),
      );
      if (Object.keys(profile).length === 0 && Object.keys(preferences).length === 0) {
        throw new InvalidInputError(
          'Nothing to change: pass name, title, bio, location, time_zone_name, first_week_day or time_format.',
        );
      }
      if (Object.keys(profile).length > 0) {
        await deps.client.request('PUT', '/my/profile.json', { signal, body: profile });
      }
      const prefs =
        Object.keys(preferences).length > 0
          ? (
              await deps.client.request<Raw>('PUT', '/my/preferences.json', {
                signal,
                body: { person: preferences },
              })
            ).data
          : (await deps.client.get<Raw>('/my/preferences.json', { signal })).data;
      const raw = (await deps.client.get<unknown>('/my/profile.json', { signal })).data;
      const person = toPerson(raw);
      if (!person) throw new UpstreamError('Basecamp answered GET /my/profile.json without a person.');
      const details = record(raw) ?? {};
      return {
        profile: { ...person, bio: text(details.bio), location: text(details.location) },
        preferences: toPreferences(prefs ?? {}),
      };
    },
  });

const ReminderSchema = lazy(() =>
  z.object({
    reminder_id: z.number(),
    remind_at: z.string().nullable(),
    group_on: z.string().nullable().describe('The day the answer is for (YYYY-MM-DD)'),
    question: QuestionSchema(),
  }),
);

const listCheckinRemindersShape = lazy(() => ({
  name: 'list_checkin_reminders',
  title: 'Check-ins waiting for your answer',
  description: `Lists the check-in questions waiting for your answer, across projects, with the day each answer is for. Answer with ${toolRef('answer_checkin')}.`,
  inputSchema: z.strictObject({ page: page(), limit: limit(30) }),
  outputSchema: listSchema(ReminderSchema()),
  annotations: READS,
}));

export const createListCheckinReminders = (deps: ToolDeps) =>
  defineTool({
    ...listCheckinRemindersShape(),
    handler: (input, { signal }) =>
      listPage(deps, '/my/question_reminders.json', {
        page: input.page,
        limit: input.limit,
        signal,
        notFound: 'Basecamp found no check-in reminders.',
        convert: (raw) => ({
          reminder_id: number(raw.reminder_id) ?? 0,
          remind_at: text(raw.remind_at),
          group_on: text(raw.group_on),
          question: toQuestion(record(raw.question) ?? {}),
        }),
      }),
  });

export const myPreferences = basecampTool(
  { toolset: 'projects', operations: ['GetMyPreferences'] },
  createMyPreferences,
);
export const updateMyProfile = basecampTool(
  { toolset: 'projects', operations: ['UpdateMyProfile', 'UpdateMyPreferences', 'GetMyProfile'] },
  createUpdateMyProfile,
);
export const listCheckinReminders = basecampTool(
  { toolset: 'checkins', operations: ['GetQuestionReminders'] },
  createListCheckinReminders,
);
