import { errorBody, resultData } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useBasecampSession } from '../../test-session.js';
import { IDS, LAPTOP, LOCATOR } from '../../testing/index.js';

const session = useBasecampSession('messages,schedule,docs');
const call = session.call;
const data = <T = Record<string, unknown>>(result: Awaited<ReturnType<typeof call>>) => resultData<T>(result);

describe('messages and comments', () => {
  it('edits a message in Markdown, sets its type and pins it', async () => {
    const types = data<{ items: { id: number; name: string }[] }>(await call('list_message_types', {}));
    const fyi = types.items.find((type) => type.name === 'FYI');
    const edited = data<{ subject: string; content: string }>(
      await call('update_message', {
        message_id: IDS.longMessage,
        subject: 'Copy, final',
        content: 'Ship it **Friday**',
        category_id: fyi?.id,
      }),
    );
    expect(edited).toMatchObject({ subject: 'Copy, final', content: 'Ship it **Friday**' });
    expect(session.fake.requests.at(-1)?.body).toMatchObject({ category_id: fyi?.id });
    expect(data(await call('pin_message', { message_id: IDS.longMessage }))).toEqual({
      message_id: IDS.longMessage,
      pinned: true,
    });
    expect(session.fake.requests.at(-1)?.method).toBe('POST');
    await call('pin_message', { message_id: IDS.longMessage, pinned: false });
    expect(session.fake.requests.at(-1)?.method).toBe('DELETE');
  });

  it('edits a comment; a message in another project is NOT_FOUND naming its project', async () => {
    const comment = data<{ id: number }>(
      await call('create_comment', { recording_id: IDS.richMessage, content: 'ok' }),
    );
    const edited = data<{ content: string }>(
      await call('update_comment', { comment_id: comment.id, content: '_Much_ better' }),
    );
    expect(edited.content).toBe('_Much_ better');
    const elsewhere = await call('update_message', {
      project_id: LOCATOR,
      message_id: IDS.richMessage,
      subject: 'x',
    });
    expect(errorBody(elsewhere).message).toContain(`it is in project ${LAPTOP}`);
  });
});

describe('schedule', () => {
  it('adds an event from project_id and reschedules it', async () => {
    const entry = data<{
      id: number;
      title?: string;
      summary?: string;
      starts_at: string;
      participants: { name: string }[];
    }>(
      await call('create_schedule_entry', {
        project_id: LAPTOP,
        summary: 'Launch party',
        starts_at: '2026-03-15T18:00:00Z',
        ends_at: '2026-03-15T22:00:00Z',
        participant_ids: [1049715930],
      }),
    );
    expect(entry.starts_at).toBe('2026-03-15T18:00:00.000Z');
    expect(entry.participants.map((person) => person.name)).toEqual(['Sharon Bradford']);
    const moved = data<{ starts_at: string }>(
      await call('update_schedule_entry', {
        entry_id: entry.id,
        starts_at: '2026-03-16T18:00:00Z',
        ends_at: '2026-03-16T20:00:00Z',
      }),
    );
    expect(moved.starts_at).toBe('2026-03-16T18:00:00.000Z');
  });

  it('refuses an event that ends before it starts, without sending it', async () => {
    session.fake.resetLog();
    const result = await call('create_schedule_entry', {
      project_id: LAPTOP,
      summary: 'Backwards',
      starts_at: '2026-03-15T18:00:00Z',
      ends_at: '2026-03-15T17:00:00Z',
    });
    expect(errorBody(result)).toMatchObject({ error_code: 'INVALID_INPUT' });
    expect(session.fake.requests).toEqual([]);
  });
});

describe('docs and files', () => {
  it('writes a document into a folder and edits it', async () => {
    const document = data<{ id: number; title: string; content: string; parent: { id: number } }>(
      await call('create_document', {
        project_id: LAPTOP,
        folder_id: IDS.folder,
        title: 'Notes',
        content: '- one\n- two',
      }),
    );
    expect(document).toMatchObject({ title: 'Notes', content: '- one\n- two', parent: { id: IDS.folder } });
    const edited = data<{ title: string }>(
      await call('update_document', { document_id: document.id, title: 'Meeting notes' }),
    );
    expect(edited.title).toBe('Meeting notes');
    const listed = data<{ items: { title: string }[] }>(
      await call('list_documents', { project_id: LAPTOP, folder_id: IDS.folder }),
    );
    expect(listed.items.map((entry) => entry.title)).toContain('Meeting notes');
  });

  it('creates and renames folders, and renames a file keeping its extension', async () => {
    const folder = data<{ id: number; title: string }>(
      await call('create_folder', { project_id: LAPTOP, title: 'Press kit' }),
    );
    expect(
      data<{ title: string }>(await call('rename_folder', { folder_id: folder.id, title: 'Press' })).title,
    ).toBe('Press');
    const upload = data<{ filename: string }>(
      await call('update_upload', { upload_id: IDS.upload, name: 'front-view' }),
    );
    expect(upload.filename).toMatch(/^front-view\.[a-z]+$/);
    expect(errorBody(await call('update_upload', { upload_id: IDS.upload }))).toMatchObject({
      error_code: 'INVALID_INPUT',
    });
  });
});
