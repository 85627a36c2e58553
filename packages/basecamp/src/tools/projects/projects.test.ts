import { errorBody, resultData } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useBasecampSession } from '../../test-session.js';
import { LOCATOR } from '../../testing/index.js';

const session = useBasecampSession('projects');
const call = session.call;

describe('projects and people', () => {
  it('creates a project with its tools, renames it, and refuses a taken name', async () => {
    const project = resultData<{ id: number; name: string; enabled_tools: string[] }>(
      await call('create_project', { name: 'Scratch', description: 'Try things' }),
    );
    expect(project.enabled_tools).toEqual(['message_board', 'todoset', 'vault', 'chat', 'schedule']);
    const renamed = resultData<{ name: string; description: string }>(
      await call('update_project', { project_id: project.id, description: 'Try here' }),
    );
    expect(renamed).toMatchObject({ name: 'Scratch', description: 'Try here' });
    const again = await call('create_project', { name: 'Scratch' });
    expect(errorBody(again)).toMatchObject({ error_code: 'INVALID_INPUT' });
    expect(errorBody(again).message).toContain('already been taken');
  });

  it('trashes a project only with its exact name as confirmation', async () => {
    const project = resultData<{ id: number }>(await call('create_project', { name: 'Doomed' }));
    session.fake.resetLog();
    const wrong = await call('trash_project', { project_id: project.id, confirm_name: 'The Leto Locator' });
    expect(errorBody(wrong)).toMatchObject({ error_code: 'INVALID_INPUT' });
    expect(errorBody(wrong).message).toContain('Nothing was trashed');
    expect(session.fake.requests.some((request) => request.method === 'DELETE')).toBe(false);
    expect(
      resultData(await call('trash_project', { project_id: project.id, confirm_name: 'Doomed' })),
    ).toEqual({
      project_id: project.id,
      trashed: true,
    });
    const listed = resultData<{ items: { id: number }[] }>(await call('list_projects', {}));
    expect(listed.items.map((entry) => entry.id)).not.toContain(project.id);
  });

  it('grants and revokes access, and reads people and yourself', async () => {
    const changed = resultData<{ granted: { name: string }[]; revoked: { name: string }[] }>(
      await call('update_project_access', { project_id: LOCATOR, grant: [1049715944], revoke: [1049715930] }),
    );
    expect(changed.granted.map((person) => person.name)).toEqual(['Steve Marsh']);
    expect(changed.revoked.map((person) => person.name)).toEqual(['Sharon Bradford']);
    const people = resultData<{ items: { name: string }[] }>(
      await call('list_people', { project_id: LOCATOR }),
    );
    expect(people.items.map((person) => person.name).sort()).toEqual(['Steve Marsh', 'Victor Cooper']);
    expect(resultData<{ name: string }>(await call('get_person', {})).name).toBe('Victor Cooper');
    expect(resultData<{ name: string }>(await call('get_person', { person_id: 1049715938 })).name).toBe(
      'Annie Bryan',
    );
    expect(errorBody(await call('get_person', { person_id: 1 }))).toMatchObject({ error_code: 'NOT_FOUND' });
    expect(errorBody(await call('update_project_access', { project_id: LOCATOR }))).toMatchObject({
      error_code: 'INVALID_INPUT',
    });
  });
});
