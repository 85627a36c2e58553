import { errorBody, resultData } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useBasecampSession } from '../../test-session.js';
import { DOCK, IDS, LAPTOP, LOCATOR } from '../../testing/index.js';

const session = useBasecampSession('chat,activity');
const call = session.call;

describe('chat, subscriptions and boosts', () => {
  it('lists every chat with its project, and deletes only your own lines', async () => {
    const chats = resultData<{ items: { id: number; project: { id: number } }[] }>(
      await call('list_chats', {}),
    );
    expect(chats.items.map((chat) => chat.id)).toEqual([
      DOCK.laptop.chat,
      DOCK.laptop.designChat,
      DOCK.locator.chat,
    ]);
    const line = resultData<{ id: number }>(
      await call('post_campfire_line', { project_id: LOCATOR, content: 'typo' }),
    );
    expect(resultData(await call('delete_campfire_line', { project_id: LOCATOR, line_id: line.id }))).toEqual(
      {
        line_id: line.id,
        deleted: true,
      },
    );
    const lines = resultData<{ items: { id: number }[] }>(
      await call('list_campfire_lines', { project_id: LOCATOR }),
    );
    expect(lines.items.map((entry) => entry.id)).not.toContain(line.id);
    const other = [...session.fake.recordings.values()].find(
      (record) =>
        record.type.startsWith('Chat::') &&
        record.parentId === DOCK.laptop.chat &&
        record.creatorId !== 1049715913,
    );
    expect(other).toBeDefined();
    const theirs = await call('delete_campfire_line', {
      project_id: LAPTOP,
      chat_id: DOCK.laptop.chat,
      line_id: other?.id,
    });
    expect(errorBody(theirs)).toMatchObject({ error_code: 'PERMISSION_DENIED' });
  });

  it('subscribes you and others to an item and back', async () => {
    const before = resultData<{ subscribed: boolean; count: number }>(
      await call('get_subscribers', { recording_id: IDS.document }),
    );
    const after = resultData<{ subscribed: boolean; subscribers: { name: string }[] }>(
      await call('update_subscribers', { project_id: LAPTOP, recording_id: IDS.document, add: [1049715938] }),
    );
    expect(after.subscribers.map((person) => person.name)).toContain('Annie Bryan');
    const unsubscribed = resultData<{ subscribed: boolean }>(
      await call('update_subscribers', { recording_id: IDS.document, me: false }),
    );
    expect(unsubscribed.subscribed).toBe(false);
    expect(before.count).toBeGreaterThan(0);
  });

  it('boosts an item and removes the boost; a long boost is refused before sending', async () => {
    const added = resultData<{ id: number; content: string; booster: { name: string } }>(
      await call('boost', { recording_id: IDS.richMessage, content: '🎉' }),
    );
    expect(added).toMatchObject({ content: '🎉', booster: { name: 'Victor Cooper' } });
    const listed = resultData<{ items: { id: number }[] }>(
      await call('list_boosts', { recording_id: IDS.richMessage }),
    );
    expect(listed.items.map((entry) => entry.id)).toEqual([added.id]);
    await call('delete_boost', { boost_id: added.id });
    expect(
      resultData<{ items: unknown[] }>(await call('list_boosts', { recording_id: IDS.richMessage })).items,
    ).toEqual([]);
    session.fake.resetLog();
    const long = await call('boost', { recording_id: IDS.richMessage, content: 'x'.repeat(17) });
    expect(errorBody(long)).toMatchObject({ error_code: 'INVALID_INPUT' });
    expect(session.fake.requests).toEqual([]);
  });
});
