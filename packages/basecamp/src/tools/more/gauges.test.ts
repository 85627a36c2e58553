import { errorBody, resultData } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useBasecampSession } from '../../test-session.js';
import { LAPTOP, LOCATOR } from '../../testing/index.js';

const session = useBasecampSession('projects');
const call = session.call;

describe('progress gauges', () => {
  it('records progress on a project with its gauge on, and shows it in the report', async () => {
    const off = await call('add_gauge_needle', { project_id: LOCATOR, position: 10 });
    expect(errorBody(off)).toMatchObject({ error_code: 'INVALID_INPUT' });
    await call('set_gauge', { project_id: LAPTOP, enabled: true });
    await call('add_gauge_needle', { project_id: LAPTOP, position: 30 });
    const needle = resultData<{ id: number; description: string; color: string }>(
      await call('add_gauge_needle', {
        project_id: LAPTOP,
        position: 55,
        color: 'yellow',
        description: 'Hinges **late**',
      }),
    );
    expect(needle).toMatchObject({ color: 'yellow', description: 'Hinges **late**' });
    const report = resultData<{
      items: { project: { id: number }; position: number; previous_position: number }[];
    }>(await call('list_gauges', {}));
    expect(report.items).toEqual([
      expect.objectContaining({
        project: expect.objectContaining({ id: LAPTOP }),
        position: 55,
        previous_position: 30,
      }),
    ]);
    await call('update_gauge_needle', { needle_id: needle.id, description: 'On _track_' });
    const needles = resultData<{ items: { id: number; description: string }[] }>(
      await call('list_gauge_needles', { project_id: LAPTOP }),
    );
    expect(needles.items[0]).toMatchObject({ id: needle.id, description: 'On _track_' });
    await call('delete_gauge_needle', { needle_id: needle.id });
    expect(errorBody(await call('delete_gauge_needle', { needle_id: needle.id }))).toMatchObject({
      error_code: 'NOT_FOUND',
    });
  });
});
