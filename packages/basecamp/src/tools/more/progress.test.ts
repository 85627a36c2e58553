import { errorBody, resultData } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useBasecampSession } from '../../test-session.js';
import { LAPTOP, LOCATOR } from '../../testing/index.js';

const session = useBasecampSession('activity');
const call = session.call;
type Events = {
  items: { project: { id: number }; author: { id: number }; created_at: string }[];
  has_more: boolean;
};

describe('latest activity', () => {
  it('reads the account, one project and one person, newest first', async () => {
    const all = resultData<Events>(await call('latest_activity', { limit: 20 }));
    const times = all.items.map((item) => item.created_at);
    expect(times).toEqual([...times].sort().reverse());
    const locator = resultData<Events>(await call('latest_activity', { project_id: LOCATOR }));
    expect(locator.items.length).toBeGreaterThan(0);
    expect(locator.items.every((item) => item.project.id === LOCATOR)).toBe(true);
    const sharon = resultData<Events>(await call('latest_activity', { person_id: 1049715930, limit: 5 }));
    expect(sharon.items.every((item) => item.author.id === 1049715930)).toBe(true);
    expect(
      errorBody(await call('latest_activity', { project_id: LAPTOP, person_id: 1049715930 })),
    ).toMatchObject({
      error_code: 'INVALID_INPUT',
    });
  });
});
