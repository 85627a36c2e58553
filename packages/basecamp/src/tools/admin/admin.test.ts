import { errorBody, resultData } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useBasecampSession } from '../../test-session.js';
import { LAPTOP, TEMPLATE_ID } from '../../testing/index.js';

const session = useBasecampSession('admin,projects');
const call = session.call;

describe('admin', () => {
  it('adds, pauses, lists and deletes a webhook; refuses a plain-http URL before sending', async () => {
    session.fake.resetLog();
    const insecure = await call('create_webhook', {
      project_id: LAPTOP,
      payload_url: 'http://example.com/hook',
    });
    expect(errorBody(insecure)).toMatchObject({ error_code: 'INVALID_INPUT' });
    expect(session.fake.requests).toEqual([]);
    const hook = resultData<{ id: number; active: boolean; types: string[] }>(
      await call('create_webhook', {
        project_id: LAPTOP,
        payload_url: 'https://example.com/hook',
        types: ['Todo'],
      }),
    );
    expect(hook).toMatchObject({ active: true, types: ['Todo'] });
    expect(
      resultData<{ active: boolean }>(await call('update_webhook', { webhook_id: hook.id, active: false }))
        .active,
    ).toBe(false);
    const listed = resultData<{ items: { id: number; active: boolean }[] }>(
      await call('list_webhooks', { project_id: LAPTOP }),
    );
    expect(listed.items).toEqual([expect.objectContaining({ id: hook.id, active: false })]);
    await call('delete_webhook', { webhook_id: hook.id });
    expect(
      resultData<{ items: unknown[] }>(await call('list_webhooks', { project_id: LAPTOP })).items,
    ).toEqual([]);
    expect(errorBody(await call('delete_webhook', { webhook_id: hook.id }))).toMatchObject({
      error_code: 'NOT_FOUND',
    });
  });

  it('creates a project from a template and follows its construction', async () => {
    const started = resultData<{ construction_id: number; status: string }>(
      await call('create_project_from_template', { template_id: TEMPLATE_ID, name: 'Launch 2' }),
    );
    expect(started.status).toBe('pending');
    const poll = async () =>
      resultData<{ status: string; project: { name: string; id: number } | null }>(
        await call('get_project_construction', {
          template_id: TEMPLATE_ID,
          construction_id: started.construction_id,
        }),
      );
    // The fake copies the template over two looks: pending, then completed.
    expect(await poll()).toMatchObject({ status: 'pending', project: null });
    const done = (await poll()) as { status: string; project: { name: string; id: number } };
    expect(done).toMatchObject({ status: 'completed', project: { name: 'Launch 2' } });
    const projects = resultData<{ items: { id: number }[] }>(await call('list_projects', {}));
    expect(projects.items.map((project) => project.id)).toContain(done.project.id);
  });

  it('creates, renames and trashes templates', async () => {
    const template = resultData<{ id: number }>(await call('create_template', { name: 'Hiring' }));
    await call('rename_template', { template_id: template.id, name: 'Hiring 2026' });
    const listed = resultData<{ items: { name: string }[] }>(await call('list_templates', {}));
    expect(listed.items.map((entry) => entry.name)).toEqual(['Product launch', 'Hiring 2026']);
    await call('trash_template', { template_id: template.id });
    const trashed = resultData<{ items: { name: string }[] }>(
      await call('list_templates', { status: 'trashed' }),
    );
    expect(trashed.items.map((entry) => entry.name)).toEqual(['Hiring 2026']);
  });
});
