import { type FakeRecording, PEOPLE } from '../fixtures.js';
import { type Family, type FamilyContext, nowIso, personIds, type Result } from './types.js';

// Writes to the core families: message updates and pins, message types (categories), comment
// edits, schedule entries, documents, folders and uploads.

const CATEGORIES = [
  { id: 1069479501, name: 'Announcement', icon: '📢' },
  { id: 1069479502, name: 'FYI', icon: '✨' },
  { id: 1069479503, name: 'Heartbeat', icon: '❤️' },
];

const isTime = (value: unknown) => typeof value === 'string' && !Number.isNaN(Date.parse(value));

function route(c: FamilyContext): Result | undefined {
  const blank = (value: unknown) => typeof value !== 'string' || value.trim() === '';
  const touch = (record: FakeRecording, status = 200): Result => {
    record.updated_at = nowIso();
    return { status, body: c.json(record) };
  };
  const categories = CATEGORIES;

  if (c.path === '/categories.json' && c.method === 'GET') return { status: 200, body: categories };

  const pin = c.id(/^\/recordings\/(\d+)\/pin\.json$/);
  if (pin !== undefined && (c.method === 'POST' || c.method === 'DELETE')) {
    const message = c.recording(pin, 'Message');
    if (!message) return c.notFound;
    message.extra = { ...message.extra, pinned: c.method === 'POST' };
    return { status: 204 };
  }

  if (c.method === 'PUT') {
    let value = c.id(/^\/messages\/(\d+)\.json$/);
    if (value !== undefined) {
      const message = c.recording(value, 'Message');
      if (!message) return c.notFound;
      if (c.body.subject !== undefined) {
        if (blank(c.body.subject)) return c.invalid("Subject can't be blank");
        message.title = c.body.subject as string;
      }
      if (typeof c.body.content === 'string') message.html = c.body.content;
      if (c.body.category_id !== undefined) {
        if (!categories.some((category) => category.id === c.body.category_id))
          return c.invalid('Category not found');
        message.extra = { ...message.extra, category_id: c.body.category_id };
      }
      return touch(message);
    }
    value = c.id(/^\/comments\/(\d+)\.json$/);
    if (value !== undefined) {
      const comment = c.recording(value, 'Comment');
      if (!comment) return c.notFound;
      if (blank(c.body.content)) return c.invalid("Content can't be blank");
      comment.html = c.body.content as string;
      return touch(comment);
    }
    value = c.id(/^\/schedule_entries\/(\d+)\.json$/);
    if (value !== undefined) {
      const entry = c.recording(value, 'Schedule::Entry');
      if (!entry?.entry) return c.notFound;
      if (c.body.summary !== undefined) {
        if (blank(c.body.summary)) return c.invalid("Summary can't be blank");
        entry.title = c.body.summary as string;
      }
      for (const field of ['starts_at', 'ends_at'] as const) {
        if (c.body[field] !== undefined) {
          if (!isTime(c.body[field])) return c.invalid(`${field} is not a time`);
          entry.entry[field] = new Date(c.body[field] as string).toISOString();
        }
      }
      if (entry.entry.ends_at < entry.entry.starts_at) return c.invalid('ends_at must be after starts_at');
      if (typeof c.body.description === 'string') entry.html = c.body.description;
      if (typeof c.body.all_day === 'boolean') entry.entry.all_day = c.body.all_day;
      if (c.body.participant_ids !== undefined) {
        const people = personIds(c.body.participant_ids, PEOPLE);
        if (typeof people === 'string') return c.invalid(people);
        entry.entry.participant_ids = people;
      }
      return touch(entry);
    }
    value = c.id(/^\/documents\/(\d+)\.json$/);
    if (value !== undefined) {
      const document = c.recording(value, 'Document');
      if (!document) return c.notFound;
      if (c.body.title !== undefined) {
        if (blank(c.body.title)) return c.invalid("Title can't be blank");
        document.title = c.body.title as string;
      }
      if (typeof c.body.content === 'string') document.html = c.body.content;
      return touch(document);
    }
    value = c.id(/^\/uploads\/(\d+)\.json$/);
    if (value !== undefined) {
      const upload = c.recording(value, 'Upload');
      if (!upload?.upload) return c.notFound;
      if (typeof c.body.description === 'string') upload.html = c.body.description;
      if (c.body.base_name !== undefined) {
        if (blank(c.body.base_name)) return c.invalid("Name can't be blank");
        const extension = /\.[^.]+$/.exec(upload.upload.filename)?.[0] ?? '';
        upload.upload.filename = `${c.body.base_name as string}${extension}`;
        upload.title = upload.upload.filename;
      }
      return touch(upload);
    }
    value = c.id(/^\/vaults\/(\d+)\.json$/);
    if (value !== undefined) {
      const folder = c.recording(value, 'Vault');
      if (!folder) return c.notFound;
      if (blank(c.body.title)) return c.invalid("Title can't be blank");
      folder.title = c.body.title as string;
      return touch(folder);
    }
    return undefined;
  }

  if (c.method === 'POST') {
    const vault = (value: number) => {
      const docked = c.dockOwner(value, 'vault');
      if (docked) return docked.project.id;
      return c.recording(value, 'Vault')?.projectId;
    };
    let value = c.id(/^\/schedules\/(\d+)\/entries\.json$/);
    if (value !== undefined) {
      const owner = c.dockOwner(value, 'schedule');
      if (!owner) return c.notFound;
      if (blank(c.body.summary)) return c.invalid("Summary can't be blank");
      if (!isTime(c.body.starts_at) || !isTime(c.body.ends_at))
        return c.invalid('starts_at and ends_at must be times');
      const starts = new Date(c.body.starts_at as string).toISOString();
      const ends = new Date(c.body.ends_at as string).toISOString();
      if (ends < starts) return c.invalid('ends_at must be after starts_at');
      const people = personIds(c.body.participant_ids, PEOPLE);
      if (typeof people === 'string') return c.invalid(people);
      return c.created({
        type: 'Schedule::Entry',
        projectId: owner.project.id,
        parentId: value,
        title: c.body.summary as string,
        html: typeof c.body.description === 'string' ? c.body.description : '',
        entry: {
          starts_at: starts,
          ends_at: ends,
          all_day: c.body.all_day === true,
          participant_ids: people,
        },
      });
    }
    value = c.id(/^\/vaults\/(\d+)\/documents\.json$/);
    if (value !== undefined) {
      const projectId = vault(value);
      if (projectId === undefined) return c.notFound;
      if (blank(c.body.title)) return c.invalid("Title can't be blank");
      return c.created({
        type: 'Document',
        projectId,
        parentId: value,
        title: c.body.title as string,
        html: typeof c.body.content === 'string' ? c.body.content : '',
      });
    }
    value = c.id(/^\/vaults\/(\d+)\/vaults\.json$/);
    if (value !== undefined) {
      const projectId = vault(value);
      if (projectId === undefined) return c.notFound;
      if (blank(c.body.title)) return c.invalid("Title can't be blank");
      return c.created({
        type: 'Vault',
        projectId,
        parentId: value,
        title: c.body.title as string,
        html: '',
      });
    }
  }
  return undefined;
}

export const editsFamily: Family = {
  route,
  json(record, json) {
    if (record.type === 'Message' && record.extra?.category_id !== undefined) {
      const category = CATEGORIES.find((entry) => entry.id === record.extra?.category_id);
      if (category) json.category = category;
    }
    if (record.type === 'Message') json.pinned = record.extra?.pinned === true;
  },
};
