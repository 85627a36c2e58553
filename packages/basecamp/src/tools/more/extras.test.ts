import { errorBody, resultData } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useBasecampSession } from '../../test-session.js';
import { questionNotifications } from '../../testing/families/account.js';
import { CARDS, CHECKINS, CLIENTS, DOCK, IDS, LAPTOP, LOCATOR } from '../../testing/index.js';

const session = useBasecampSession('all');
const call = session.call;

describe('single items', () => {
  it('reads one comment, one chat line and one reply to a forwarded email', async () => {
    const comment = resultData<{ id: number; parent: { id: number } }>(
      await call('get_comment', { comment_id: 1069479710 }),
    );
    expect(comment).toMatchObject({
      id: 1069479710,
      parent: expect.objectContaining({ id: IDS.locatorList }),
    });
    expect(
      errorBody(await call('get_comment', { project_id: LAPTOP, comment_id: 1069479710 })),
    ).toMatchObject({
      error_code: 'NOT_FOUND',
    });
    const line = resultData<{ content: string }>(
      await call('get_chat_line', { project_id: LOCATOR, line_id: IDS.locatorLine }),
    );
    expect(line.content).toBe('Prototype ships Monday');
    expect(
      errorBody(
        await call('get_chat_line', {
          project_id: LAPTOP,
          chat_id: DOCK.laptop.chat,
          line_id: IDS.locatorLine,
        }),
      ),
    ).toMatchObject({ error_code: 'NOT_FOUND' });
    const reply = resultData<{ id: number; content: string }>(
      await call('get_email_forward', { forward_id: CLIENTS.forward, reply_id: CLIENTS.forwardReply }),
    );
    expect(reply).toMatchObject({ id: CLIENTS.forwardReply, content: 'Too high, ask again.' });
  });
});

describe('settings on existing tools', () => {
  it('colours a card-table column', async () => {
    const column = resultData<{ color: string | null; title: string }>(
      await call('update_card_column', { column_id: CARDS.review, color: 'green' }),
    );
    expect(column.color).toBe('green');
    expect(session.fake.requests.at(-1)?.path).toBe(
      `/${session.fake.accountId}/card_tables/columns/${CARDS.review}/color.json`,
    );
  });

  it("sets one's own notifications of a check-in question", async () => {
    await call('update_checkin_question', {
      question_id: CHECKINS.dailyQuestion,
      notify_on_answer: true,
      digest_include_unanswered: false,
    });
    expect(questionNotifications(session.fake.recordings, CHECKINS.dailyQuestion)).toEqual({
      notify_on_answer: true,
      digest_include_unanswered: false,
    });
  });

  it("shows due to-dos and cards on a project's schedule", async () => {
    const schedule = resultData<{ include_due_assignments: boolean }>(
      await call('update_schedule_settings', { project_id: LAPTOP, include_due_assignments: true }),
    );
    expect(schedule.include_due_assignments).toBe(true);
    expect(session.fake.requests.at(-1)?.body).toEqual({ include_due_assignments: true });
  });
});

describe('check-in reminders', () => {
  it('lists the questions waiting for an answer, not the paused ones', async () => {
    const reminders = resultData<{ items: { group_on: string; question: { id: number; title: string } }[] }>(
      await call('list_checkin_reminders', {}),
    );
    const ids = reminders.items.map((item) => item.question.id);
    expect(ids).toContain(CHECKINS.dailyQuestion);
    expect(ids).not.toContain(CHECKINS.pausedQuestion);
  });
});

describe('hill charts', () => {
  it('tracks and untracks to-do lists and shows them as dots', async () => {
    const empty = resultData<{ enabled: boolean; dots: unknown[] }>(
      await call('get_hill_chart', { project_id: LAPTOP }),
    );
    expect(empty).toMatchObject({ enabled: false, dots: [] });
    const tracked = resultData<{ enabled: boolean; dots: { todolist_id: number }[] }>(
      await call('track_on_hill_chart', { project_id: LAPTOP, track: [IDS.launchList, IDS.strategyList] }),
    );
    expect(tracked.enabled).toBe(true);
    expect(tracked.dots.map((dot) => dot.todolist_id).sort()).toEqual(
      [IDS.launchList, IDS.strategyList].sort(),
    );
    const after = resultData<{ dots: { todolist_id: number }[] }>(
      await call('track_on_hill_chart', { project_id: LAPTOP, untrack: [IDS.strategyList] }),
    );
    expect(after.dots.map((dot) => dot.todolist_id)).toEqual([IDS.launchList]);
    expect(
      errorBody(await call('track_on_hill_chart', { project_id: LAPTOP, track: [IDS.locatorList] })),
    ).toMatchObject({ error_code: 'INVALID_INPUT' });
    expect(
      errorBody(
        await call('track_on_hill_chart', {
          project_id: LAPTOP,
          track: [IDS.launchList],
          untrack: [IDS.launchList],
        }),
      ),
    ).toMatchObject({ error_code: 'INVALID_INPUT' });
  });
});

describe('your profile and preferences', () => {
  it('reads the time zone, and changes profile and preferences in one call', async () => {
    expect(resultData(await call('my_preferences', {}))).toEqual({
      time_zone_name: 'America/Chicago',
      first_week_day: 'Sunday',
      time_format: 'twelve_hour',
    });
    const changed = resultData<{
      profile: { title: string; location: string };
      preferences: { time_zone_name: string; first_week_day: string };
    }>(
      await call('update_my_profile', {
        title: 'Head of Strategy',
        location: 'London',
        time_zone_name: 'London',
        first_week_day: 'Monday',
      }),
    );
    expect(changed.profile).toMatchObject({ title: 'Head of Strategy', location: 'London' });
    expect(changed.preferences).toMatchObject({ time_zone_name: 'London', first_week_day: 'Monday' });
    const sent = session.fake.requests.filter((request) => request.method === 'PUT').slice(-2);
    expect(sent.map((request) => request.body)).toEqual([
      { title: 'Head of Strategy', location: 'London' },
      { person: { time_zone_name: 'London', first_week_day: 'Monday' } },
    ]);
    expect(errorBody(await call('update_my_profile', {}))).toMatchObject({ error_code: 'INVALID_INPUT' });
  });
});

describe("a project's tools", () => {
  type Dock = {
    dock: { id: number; title: string; name: string; enabled: boolean; position: number | null }[];
  };
  it('renames, switches off, switches on and moves a tool, and the other tools see the change', async () => {
    const off = resultData<Dock>(
      await call('update_project_tool', {
        project_id: LOCATOR,
        tool_id: DOCK.locator.questionnaire,
        title: 'Daily check-ins',
        enabled: false,
      }),
    );
    expect(off.dock.find((entry) => entry.id === DOCK.locator.questionnaire)).toMatchObject({
      title: 'Daily check-ins',
      enabled: false,
      position: null,
    });
    expect(errorBody(await call('list_checkin_questions', { project_id: LOCATOR }))).toMatchObject({
      error_code: 'TOOL_NOT_ENABLED',
    });
    const on = resultData<Dock>(
      await call('update_project_tool', {
        project_id: LOCATOR,
        tool_id: DOCK.locator.questionnaire,
        enabled: true,
        position: 1,
      }),
    );
    expect(on.dock.find((entry) => entry.id === DOCK.locator.questionnaire)).toMatchObject({
      enabled: true,
      position: 1,
    });
    expect(
      resultData<{ items: unknown[] }>(await call('list_checkin_questions', { project_id: LOCATOR })).items
        .length,
    ).toBeGreaterThan(0);
    expect(
      errorBody(
        await call('update_project_tool', { project_id: LOCATOR, tool_id: DOCK.laptop.chat, enabled: false }),
      ),
    ).toMatchObject({ error_code: 'INVALID_INPUT' });
  });

  it('adds a second chat; chat tools then ask which one', async () => {
    const added = resultData<Dock & { tool_id: number }>(
      await call('add_project_tool', {
        project_id: LOCATOR,
        source_tool_id: DOCK.locator.chat,
        title: 'Q&A',
      }),
    );
    expect(added.dock.find((entry) => entry.id === added.tool_id)).toMatchObject({
      name: 'chat',
      title: 'Q&A',
      enabled: true,
    });
    const ambiguous = errorBody(await call('list_campfire_lines', { project_id: LOCATOR }));
    expect(ambiguous).toMatchObject({ error_code: 'INVALID_INPUT' });
    expect(String(ambiguous.message)).toContain(`${added.tool_id} (Q&A)`);
  });
});
