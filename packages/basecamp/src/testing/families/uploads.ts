import { randomBytes } from 'node:crypto';
import type { FakeRecording } from '../fixtures.js';
import type { Family, FamilyContext, Result } from './types.js';

// File uploads: `POST /attachments.json` (the raw file, its Content-Type and Content-Length, the
// name in the query) answers an `attachable_sgid`, which a Docs & Files upload (`POST
// /vaults/{id}/uploads.json`) or rich text (`<bc-attachment sgid>`) then uses once; a chat takes a
// file directly (`POST /chats/{id}/uploads.json`). Also `GET /recordings/{id}.json`, any item by ID.

interface FakeAttachment {
  id: number;
  sgid: string;
  filename: string;
  content_type: string;
  byte_size: number;
  used: boolean;
}

const stores = new WeakMap<Map<number, FakeRecording>, Map<string, FakeAttachment>>();
let nextAttachment = 1_046_628_526;

/** The attachments of a fake (tests look at what was uploaded). */
export function fakeAttachments(recordings: Map<number, FakeRecording>): FakeAttachment[] {
  return [...(stores.get(recordings)?.values() ?? [])];
}

/** A raw file body: its name, type and size, or the error Basecamp answers. */
function file(c: FamilyContext): { filename: string; contentType: string; bytes: number } | Result {
  const filename = c.url.searchParams.get('name');
  if (!filename) return c.invalid('name is required (the file name, as a query parameter)');
  const contentType = (c.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
  if (contentType === '' || contentType.startsWith('application/json'))
    return c.invalid("Content-Type must be the file's own type");
  const bytes = Number(c.headers['content-length']);
  if (!Number.isInteger(bytes) || bytes <= 0 || c.text === '')
    return c.invalid('The file is empty (Content-Length is required)');
  return { filename, contentType, bytes };
}

function route(c: FamilyContext): Result | undefined {
  let attachments = stores.get(c.recordings);
  if (!attachments) {
    attachments = new Map();
    stores.set(c.recordings, attachments);
  }
  const { method } = c;

  if (c.path === '/attachments.json' && method === 'POST') {
    const found = file(c);
    if ('status' in found) return found;
    const id = nextAttachment++;
    const sgid = `BAh7BkkiC19yYWlscwY6BkVU--attachment-${id}-${randomBytes(4).toString('hex')}`;
    const blob = randomBytes(20).toString('hex');
    attachments.set(sgid, {
      id,
      sgid,
      filename: found.filename,
      content_type: found.contentType,
      byte_size: found.bytes,
      used: false,
    });
    const image = found.contentType.startsWith('image/');
    return {
      status: 201,
      body: {
        id,
        attachable_sgid: sgid,
        sgid,
        status_url: `${c.base}/attachments/${sgid}.json`,
        caption: null,
        byte_size: found.bytes,
        content_type: found.contentType,
        ...(image ? { width: 164, height: 39 } : {}),
        key: blob,
        filename: found.filename,
        download_url: `https://3.basecamp-static.com/999999999/blobs/${blob}/download/${encodeURIComponent(found.filename)}`,
        previewable: image,
        ...(image
          ? {
              preview_url: `https://3.basecamp-static.com/999999999/blobs/${blob}/previews/full`,
              thumbnail_url: `https://3.basecamp-static.com/999999999/blobs/${blob}/previews/card`,
            }
          : {}),
      },
    };
  }

  const vault = c.id(/^\/vaults\/(\d+)\/uploads\.json$/);
  if (vault !== undefined && method === 'POST') {
    const docked = c.dockOwner(vault, 'vault');
    const folder = c.recording(vault, 'Vault');
    const projectId = docked?.entry.enabled ? docked.project.id : folder?.projectId;
    if (projectId === undefined) return c.notFound;
    const sgid = c.body.attachable_sgid;
    const attachment = typeof sgid === 'string' ? attachments.get(sgid) : undefined;
    if (!attachment) return c.invalid('attachable_sgid is not an uploaded attachment');
    if (attachment.used) return c.invalid('That attachment is already used: upload the file again');
    const baseName = c.body.base_name;
    if (baseName !== undefined && (typeof baseName !== 'string' || baseName.trim() === ''))
      return c.invalid('base_name must be a file name without extension');
    attachment.used = true;
    const extension = /\.[^.]+$/.exec(attachment.filename)?.[0] ?? '';
    const filename = typeof baseName === 'string' ? `${baseName}${extension}` : attachment.filename;
    return c.created({
      type: 'Upload',
      projectId,
      parentId: vault,
      title: filename,
      html: typeof c.body.description === 'string' ? c.body.description : '',
      upload: { filename, content_type: attachment.content_type, byte_size: attachment.byte_size },
    });
  }

  const chat = c.id(/^\/chats\/(\d+)\/uploads\.json$/);
  if (chat !== undefined) {
    const owner = c.dockOwner(chat, 'chat');
    if (!owner?.entry.enabled) return c.notFound;
    if (method === 'GET')
      return c.paginate(c.children(chat, ['Chat::Lines::Upload']).map((record) => c.json(record)));
    if (method === 'POST') {
      const found = file(c);
      if ('status' in found) return found;
      return c.created({
        type: 'Chat::Lines::Upload',
        projectId: owner.project.id,
        parentId: chat,
        title: found.filename,
        html: '',
        attachments: [{ filename: found.filename, content_type: found.contentType, byte_size: found.bytes }],
      });
    }
    return undefined;
  }

  const recording = c.id(/^\/recordings\/(\d+)\.json$/);
  if (recording !== undefined && method === 'GET') {
    const found = c.recording(recording);
    return found ? { status: 200, body: c.json(found) } : c.notFound;
  }

  // Rich text may carry an attachment once: mark each one a message, document or comment takes.
  if (method === 'PUT' && typeof c.body.content === 'string') {
    for (const match of c.body.content.matchAll(/<bc-attachment sgid="([^"]+)"/g)) {
      const attachment = attachments.get(match[1] as string);
      if (attachment && !attachment.used && /^\/(messages|documents|comments)\/\d+\.json$/.test(c.path))
        attachment.used = true;
    }
  }
  return undefined;
}

export const uploadsFamily: Family = { route };
