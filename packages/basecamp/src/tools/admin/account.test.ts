import { errorBody, resultData } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useBasecampSession } from '../../test-session.js';
import { CHATBOT_ID, MARKER_ID } from '../../testing/families/account.js';
import { DOCK, LOCATOR } from '../../testing/index.js';

const session = useBasecampSession('admin,schedule');
const call = session.call;
type Bot = { id: number; service_name: string; command_url: string | null; lines_url: string | null };
type Marker = { id: number; name: string; date: string };

describe('the account', () => {
  it('reads the account and its plan, and renames it', async () => {
    const account = resultData<{ name: string; plan: string; has_logo: boolean; project_limit: null }>(
      await call('get_account', {}),
    );
    expect(account).toMatchObject({
      name: 'Honcho Design',
      plan: 'Basecamp With Clients',
      has_logo: false,
      project_limit: null,
    });
    const renamed = resultData<{ name: string }>(
      await call('rename_account', { name: 'Honcho Design Studio' }),
    );
    expect(renamed.name).toBe('Honcho Design Studio');
    expect(session.fake.requests.at(-1)?.body).toEqual({ name: 'Honcho Design Studio' });
    expect(errorBody(await call('rename_account', { name: '  ' }))).toMatchObject({
      error_code: 'INVALID_INPUT',
    });
  });
});

describe('chatbots', () => {
  it('lists, adds, changes and removes chatbots, never showing their secret posting URL', async () => {
    const listed = await call('list_chatbots', { project_id: LOCATOR });
    expect(resultData<{ items: Bot[] }>(listed).items).toEqual([
      expect.objectContaining({ id: CHATBOT_ID, service_name: 'Capistrano', lines_url: '[redacted]' }),
    ]);
    expect(JSON.stringify(listed)).not.toContain('SECRETKEY');
    const created = await call('create_chatbot', {
      project_id: LOCATOR,
      service_name: 'tally',
      command_url: 'https://example.com/tally',
    });
    expect(JSON.stringify(created)).not.toContain('SECRETKEY');
    const bot = resultData<Bot>(created);
    expect(bot).toMatchObject({ service_name: 'tally', command_url: 'https://example.com/tally' });
    expect(session.fake.requests.at(-1)?.path).toBe(
      `/${session.fake.accountId}/chats/${DOCK.locator.chat}/integrations.json`,
    );
    const updated = resultData<Bot>(
      await call('update_chatbot', { project_id: LOCATOR, chatbot_id: bot.id, service_name: 'uptime' }),
    );
    expect(updated).toMatchObject({
      id: bot.id,
      service_name: 'uptime',
      command_url: 'https://example.com/tally',
    });
    await call('delete_chatbot', { project_id: LOCATOR, chatbot_id: bot.id });
    const after = resultData<{ items: Bot[] }>(await call('list_chatbots', { project_id: LOCATOR }));
    expect(after.items.map((item) => item.id)).toEqual([CHATBOT_ID]);
  });

  it('refuses a name with spaces and a command URL that is not HTTPS before sending', async () => {
    const before = session.fake.requests.length;
    expect(
      errorBody(await call('create_chatbot', { project_id: LOCATOR, service_name: 'two words' })),
    ).toMatchObject({ error_code: 'INVALID_INPUT' });
    expect(
      errorBody(
        await call('create_chatbot', {
          project_id: LOCATOR,
          service_name: 'bot',
          command_url: 'http://example.com/bot',
        }),
      ),
    ).toMatchObject({ error_code: 'INVALID_INPUT' });
    expect(session.fake.requests.length).toBe(before);
    expect(errorBody(await call('delete_chatbot', { project_id: LOCATOR, chatbot_id: 42 }))).toMatchObject({
      error_code: 'NOT_FOUND',
    });
  });
});

describe('Lineup markers', () => {
  it('adds a marker and answers with its ID (Basecamp answers 201 without a body), moves and removes it', async () => {
    const added = resultData<Marker>(
      await call('create_lineup_marker', { name: 'Launch', date: '2026-09-01' }),
    );
    expect(added).toMatchObject({ name: 'Launch', date: '2026-09-01' });
    expect(added.id).not.toBe(MARKER_ID);
    const moved = resultData<Marker>(
      await call('update_lineup_marker', { marker_id: added.id, date: '2026-09-15' }),
    );
    expect(moved).toMatchObject({ id: added.id, name: 'Launch', date: '2026-09-15' });
    const listed = resultData<{ items: Marker[] }>(await call('list_lineup_markers', {}));
    expect(listed.items.map((marker) => marker.date)).toEqual(['2026-06-01', '2026-09-15']);
    await call('delete_lineup_marker', { marker_id: added.id });
    expect(resultData<{ items: Marker[] }>(await call('list_lineup_markers', {})).items).toHaveLength(1);
    expect(errorBody(await call('update_lineup_marker', { marker_id: added.id, name: 'x' }))).toMatchObject({
      error_code: 'NOT_FOUND',
    });
    expect(errorBody(await call('update_lineup_marker', { marker_id: MARKER_ID }))).toMatchObject({
      error_code: 'INVALID_INPUT',
    });
  });
});
