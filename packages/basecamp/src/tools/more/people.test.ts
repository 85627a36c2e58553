import { errorBody, resultData } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useBasecampSession } from '../../test-session.js';

const session = useBasecampSession('activity,projects');
const call = session.call;
type Inbox = { unread: { readable_id: string; title: string }[]; read: { readable_id: string }[] };

describe('notifications and out of office', () => {
  it('lists unread notifications and marks one read', async () => {
    const before = resultData<Inbox>(await call('my_notifications', {}));
    expect(before.unread.length).toBeGreaterThan(0);
    const first = before.unread[0]?.readable_id as string;
    expect(resultData(await call('mark_notifications_read', { readable_ids: [first] }))).toEqual({
      marked: 1,
    });
    const after = resultData<Inbox>(await call('my_notifications', {}));
    expect(after.unread.map((entry) => entry.readable_id)).not.toContain(first);
    expect(after.read.map((entry) => entry.readable_id)).toContain(first);
  });

  it('sets, reads and clears out of office; refuses a period that ends before it starts', async () => {
    const set = resultData<{ enabled: boolean; start_date: string }>(
      await call('out_of_office', {
        person_id: 1049715913,
        start_date: '2026-07-01',
        end_date: '2026-07-14',
      }),
    );
    expect(set).toMatchObject({ enabled: true, start_date: '2026-07-01' });
    expect(
      resultData<{ enabled: boolean }>(await call('out_of_office', { person_id: 1049715913 })).enabled,
    ).toBe(true);
    await call('out_of_office', { person_id: 1049715913, clear: true });
    expect(
      resultData<{ enabled: boolean }>(await call('out_of_office', { person_id: 1049715913 })).enabled,
    ).toBe(false);
    const backwards = await call('out_of_office', {
      person_id: 1049715913,
      start_date: '2026-07-14',
      end_date: '2026-07-01',
    });
    expect(errorBody(backwards)).toMatchObject({ error_code: 'INVALID_INPUT' });
  });
});
