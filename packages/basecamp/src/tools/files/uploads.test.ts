import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorBody, resultData } from '@x/mcp-core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { useBasecampSession } from '../../test-session.js';
import { accountLogo } from '../../testing/families/account.js';
import { fakeAttachments } from '../../testing/families/uploads.js';
import { DOCK, IDS, LAPTOP, LOCATOR } from '../../testing/index.js';

// A folder the server may upload from, and a secret next to it that it must never read.
const root = mkdtempSync(join(tmpdir(), 'basecamp-uploads-'));
const uploads = join(root, 'uploads');
mkdirSync(uploads);
// Bytes that are not UTF-8, so any text round trip would change their length.
const BINARY = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe, 0x80]);
writeFileSync(join(uploads, 'diagram.png'), BINARY);
writeFileSync(join(root, 'secret.txt'), 'do not send');
symlinkSync(join(root, 'secret.txt'), join(uploads, 'link.txt'));
writeFileSync(join(uploads, 'huge.bin'), '');
truncateSync(join(uploads, 'huge.bin'), 10 * 1024 * 1024 + 1);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const session = useBasecampSession('docs,chat,admin,messages', { uploadDir: uploads });
const call = session.call;
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const attachmentRequests = () =>
  session.fake.requests.filter((request) => request.path.endsWith('/attachments.json'));

describe('upload_file', () => {
  it('sends the file to /attachments.json as raw bytes, then files it in Docs & Files', async () => {
    const upload = resultData<{
      filename: string;
      content_type: string;
      byte_size: number;
      description: string;
    }>(
      await call('upload_file', {
        project_id: LAPTOP,
        content_base64: Buffer.from('Quarterly plan').toString('base64'),
        filename: 'plan.txt',
        description: 'The **plan**',
        name: 'Q3 plan',
      }),
    );
    expect(upload).toMatchObject({
      filename: 'Q3 plan.txt',
      content_type: 'text/plain',
      byte_size: 14,
      description: 'The **plan**',
    });
    const [attachment, filed] = session.fake.requests.slice(-2);
    expect(attachment).toMatchObject({ method: 'POST', query: { name: 'plan.txt' } });
    expect(attachment?.headers).toMatchObject({ 'content-type': 'text/plain', 'content-length': '14' });
    expect(filed?.path).toBe(`/${session.fake.accountId}/vaults/${DOCK.laptop.vault}/uploads.json`);
    expect(filed?.body).toEqual({
      attachable_sgid: expect.stringMatching(/^BAh7/),
      description: '<div>The <strong>plan</strong></div>',
      base_name: 'Q3 plan',
    });
  });

  it('reads a file by path inside the upload directory, bytes unchanged', async () => {
    const upload = resultData<{ filename: string; content_type: string; byte_size: number }>(
      await call('upload_file', { project_id: LAPTOP, folder_id: IDS.folder, path: 'diagram.png' }),
    );
    expect(upload).toMatchObject({
      filename: 'diagram.png',
      content_type: 'image/png',
      byte_size: BINARY.length,
    });
    expect(attachmentRequests().at(-1)?.headers['content-length']).toBe(String(BINARY.length));
    expect(
      resultData<{ byte_size: number }>(
        await call('upload_file', { project_id: LAPTOP, path: join(uploads, 'diagram.png') }),
      ).byte_size,
    ).toBe(BINARY.length);
  });

  it('never reads outside the upload directory, not even through a link, and sends nothing', async () => {
    const before = attachmentRequests().length;
    for (const path of ['../secret.txt', join(root, 'secret.txt'), 'link.txt']) {
      const error = errorBody(await call('upload_file', { project_id: LAPTOP, path }));
      expect(error).toMatchObject({ error_code: 'INVALID_INPUT' });
      expect(String(error.message)).toContain('not inside the upload directory');
    }
    expect(errorBody(await call('upload_file', { project_id: LAPTOP, path: 'missing.pdf' }))).toMatchObject({
      error_code: 'INVALID_INPUT',
    });
    expect(errorBody(await call('upload_file', { project_id: LAPTOP, path: 'huge.bin' }))).toMatchObject({
      error_code: 'LIMIT_EXCEEDED',
    });
    expect(attachmentRequests().length).toBe(before);
  });

  it('refuses unclear input and a wrong folder before sending the file', async () => {
    const before = attachmentRequests().length;
    const both = await call('upload_file', { project_id: LAPTOP, path: 'diagram.png', content_base64: PNG });
    expect(errorBody(both)).toMatchObject({ error_code: 'INVALID_INPUT' });
    const nameless = await call('upload_file', { project_id: LAPTOP, content_base64: PNG });
    expect(String(errorBody(nameless).message)).toContain('filename is required');
    const notBase64 = await call('upload_file', {
      project_id: LAPTOP,
      content_base64: '%%%',
      filename: 'a.txt',
    });
    expect(errorBody(notBase64)).toMatchObject({ error_code: 'INVALID_INPUT' });
    const folder = await call('upload_file', {
      project_id: LOCATOR,
      folder_id: IDS.folder,
      content_base64: PNG,
      filename: 'chart.png',
    });
    expect(errorBody(folder)).toMatchObject({ error_code: 'NOT_FOUND' });
    expect(attachmentRequests().length).toBe(before);
  });
});

describe('upload_file without an upload directory', () => {
  const plain = useBasecampSession('docs');
  it('asks for base64 content or BASECAMP_UPLOAD_DIR', async () => {
    const error = errorBody(await plain.call('upload_file', { project_id: LAPTOP, path: '/etc/hostname' }));
    expect(error).toMatchObject({ error_code: 'INVALID_INPUT' });
    expect(String(error.message)).toContain('BASECAMP_UPLOAD_DIR');
    expect(plain.fake.requests.some((request) => request.path.endsWith('/attachments.json'))).toBe(false);
  });
});

describe('attach_file', () => {
  it('appends the file to a message, a document and a comment as a <bc-attachment>', async () => {
    for (const [recordingId, type] of [
      [IDS.richMessage, 'Message'],
      [IDS.document, 'Document'],
      [1069479710, 'Comment'],
    ] as const) {
      const before = session.fake.recordings.get(recordingId)?.html ?? '';
      const result = resultData<{ type: string; filename: string }>(
        await call('attach_file', {
          recording_id: recordingId,
          content_base64: PNG,
          filename: 'chart.png',
          caption: 'Q3 "final"',
        }),
      );
      expect(result).toMatchObject({ type, filename: 'chart.png' });
      const sgid = fakeAttachments(session.fake.recordings).at(-1)?.sgid as string;
      expect(session.fake.recordings.get(recordingId)?.html).toBe(
        `${before}<bc-attachment sgid="${sgid}" caption="Q3 &quot;final&quot;"></bc-attachment>`,
      );
    }
  });

  it('refuses an item without rich text before uploading anything', async () => {
    const before = attachmentRequests().length;
    const error = errorBody(
      await call('attach_file', { recording_id: IDS.upload, content_base64: PNG, filename: 'chart.png' }),
    );
    expect(error).toMatchObject({ error_code: 'INVALID_INPUT' });
    expect(String(error.message)).toContain('upload_file');
    expect(attachmentRequests().length).toBe(before);
  });
});

describe('chat files', () => {
  it('posts a file in a chat and lists it among its files', async () => {
    const line = resultData<{
      id: number;
      type: string;
      attachments: { filename: string; byte_size: number }[];
    }>(await call('upload_chat_file', { project_id: LOCATOR, path: 'diagram.png' }));
    expect(line.type).toBe('Chat::Lines::Upload');
    expect(line.attachments).toEqual([
      expect.objectContaining({ filename: 'diagram.png', byte_size: BINARY.length }),
    ]);
    const posted = session.fake.requests.at(-1);
    expect(posted?.path).toBe(`/${session.fake.accountId}/chats/${DOCK.locator.chat}/uploads.json`);
    expect(posted?.headers['content-type']).toBe('image/png');
    const list = resultData<{ items: { id: number }[] }>(
      await call('list_chat_uploads', { project_id: LOCATOR }),
    );
    expect(list.items.map((item) => item.id)).toContain(line.id);
    const laptop = resultData<{ items: { id: number }[] }>(
      await call('list_chat_uploads', { project_id: LAPTOP, chat_id: DOCK.laptop.chat }),
    );
    expect(laptop.items.map((item) => item.id)).toEqual([IDS.uploadLine]);
  });
});

describe('the account logo', () => {
  it('uploads a logo as a multipart form, and removes it', async () => {
    const set = resultData<{ has_logo: boolean }>(
      await call('set_account_logo', { content_base64: PNG, filename: 'logo.png' }),
    );
    expect(set.has_logo).toBe(true);
    expect(accountLogo(session.fake.recordings)).toMatchObject({
      filename: 'logo.png',
      contentType: 'image/png',
    });
    const sent = session.fake.requests.find((request) => request.path.endsWith('/account/logo.json'));
    expect(sent?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const notImage = await call('set_account_logo', { content_base64: PNG, filename: 'logo.pdf' });
    expect(String(errorBody(notImage).message)).toContain('PNG, JPEG');
    expect(resultData<{ has_logo: boolean }>(await call('remove_account_logo', {})).has_logo).toBe(false);
    expect(accountLogo(session.fake.recordings)).toBeNull();
  });

  it('marks removing the logo destructive and setting it not', async () => {
    const { tools } = await session.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool.annotations]));
    expect(byName.get('remove_account_logo')).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(byName.get('set_account_logo')).toMatchObject({ destructiveHint: false, readOnlyHint: false });
    expect(byName.get('list_chat_uploads')).toMatchObject({ readOnlyHint: true });
  });
});
