import type { FakeRecording } from '../fixtures.js';
import { type Family, type FamilyContext, isDate, nowIso, type Result } from './types.js';

// The account (name, logo), its chatbots and Lineup markers, and the signed-in person's own
// profile, preferences, check-in reminders and per-question notification settings.

interface AccountState {
  name: string;
  logo: { filename: string; contentType: string; bytes: number } | null;
  updated_at: string;
  chatbots: Map<number, { id: number; service_name: string; command_url: string | null; created_at: string }>;
  markers: Map<number, { id: number; name: string; date: string; created_at: string; updated_at: string }>;
  profile: Record<string, string>;
  preferences: { time_zone_name: string; first_week_day: string; time_format: string };
  notifications: Map<number, { notify_on_answer: boolean; digest_include_unanswered: boolean }>;
}

/** Each fake's own account state (keyed by its recordings), so two fakes never share it. */
const states = new WeakMap<Map<number, FakeRecording>, AccountState>();
let nextId = 1_049_716_000;

export const CHATBOT_ID = 1_049_715_953;
export const MARKER_ID = 1;

function state(c: FamilyContext): AccountState {
  let found = states.get(c.recordings);
  if (!found) {
    found = {
      name: 'Honcho Design',
      logo: null,
      updated_at: '2026-03-16T21:57:21.050Z',
      chatbots: new Map([
        [
          CHATBOT_ID,
          {
            id: CHATBOT_ID,
            service_name: 'Capistrano',
            command_url: null,
            created_at: '2026-02-26T16:46:10.842Z',
          },
        ],
      ]),
      markers: new Map([
        [
          MARKER_ID,
          {
            id: MARKER_ID,
            name: 'Anniversary',
            date: '2026-06-01',
            created_at: '2025-12-15T10:30:00.000Z',
            updated_at: '2025-12-15T10:30:00.000Z',
          },
        ],
      ]),
      profile: {},
      preferences: {
        time_zone_name: 'America/Chicago',
        first_week_day: 'Sunday',
        time_format: 'twelve_hour',
      },
      notifications: new Map(),
    };
    states.set(c.recordings, found);
  }
  return found;
}

function accountJson(account: AccountState) {
  return {
    id: 999999999,
    name: account.name,
    owner_name: 'Victor Cooper',
    active: true,
    created_at: '2026-03-16T21:42:20.134Z',
    updated_at: account.updated_at,
    trial: false,
    trial_ends_on: null,
    frozen: false,
    paused: false,
    // The docs: `logo` is left out entirely when the account has none.
    ...(account.logo ? { logo: { url: `https://3.basecamp-static.com/logo/${account.logo.filename}` } } : {}),
    limits: {
      can_create_projects: true,
      can_pin_projects: true,
      can_create_users: true,
      can_upload_files: true,
    },
    subscription: {
      short_name: 'ClientsV1',
      proper_name: 'Basecamp With Clients',
      project_limit: null,
      teams: true,
      clients: true,
      templates: true,
      logo: true,
      timesheet: true,
    },
    settings: { company_hq_enabled: false, teams_enabled: true, projects_enabled: true },
  };
}

const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/heic'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

function route(c: FamilyContext): Result | undefined {
  const account = state(c);
  const { method, path } = c;

  if (path === '/account.json' && method === 'GET') return { status: 200, body: accountJson(account) };
  if (path === '/account/name.json' && method === 'PUT') {
    if (!c.me.owner) return { status: 403, body: { status: 403, error: 'Forbidden' } };
    if (typeof c.body.name !== 'string' || c.body.name.trim() === '')
      return { status: 400, body: { status: 400, error: "Name can't be blank" } };
    account.name = c.body.name;
    account.updated_at = nowIso();
    return { status: 200, body: accountJson(account) };
  }

  // The logo: a multipart upload with one `logo` file field (PNG, JPEG, GIF, WebP, AVIF, HEIC; 5 MB).
  if (path === '/account/logo.json') {
    if (!(c.me.admin || c.me.owner)) return { status: 403, body: { status: 403, error: 'Forbidden' } };
    if (method === 'DELETE') {
      account.logo = null;
      return { status: 204 };
    }
    if (method !== 'PUT') return undefined;
    const boundary = /^multipart\/form-data;\s*boundary=(.+)$/i.exec(c.headers['content-type'] ?? '')?.[1];
    if (!boundary) return c.invalid('The logo must be sent as multipart/form-data');
    const part = new RegExp(
      `--${boundary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\r\nContent-Disposition: form-data; name="logo"; filename="([^"]+)"\r\nContent-Type: ([^\r]+)\r\n\r\n`,
    ).exec(c.text);
    if (!part) return c.invalid('logo is missing');
    const [, filename = '', contentType = ''] = part;
    if (!LOGO_TYPES.includes(contentType))
      return c.invalid('The logo must be a PNG, JPEG, GIF, WebP, AVIF or HEIC image');
    const bytes = Number(c.headers['content-length']);
    if (!(bytes > 0) || bytes > 5 * 1024 * 1024 + 1024) return c.invalid('The logo is larger than 5 MB');
    account.logo = { filename, contentType, bytes };
    account.updated_at = nowIso();
    return { status: 204 };
  }

  // Chatbots: account-wide, managed through any chat of a project.
  const chat = c.id(/^\/chats\/(\d+)\/integrations(?:\.json|\/\d+\.json)$/);
  if (chat !== undefined) {
    const owner = c.dockOwner(chat, 'chat');
    if (!owner?.entry.enabled) return c.notFound;
    const json = (bot: {
      id: number;
      service_name: string;
      command_url: string | null;
      created_at: string;
    }) => ({
      ...bot,
      updated_at: bot.created_at,
      url: `${c.base}/buckets/${owner.project.id}/chats/${chat}/integrations/${bot.id}.json`,
      app_url: `https://3.basecamp.com/999999999/buckets/${owner.project.id}/chats/${chat}/integrations/${bot.id}`,
      lines_url: `${c.base}/integrations/Ws${bot.id.toString(36)}SECRETKEY/buckets/${owner.project.id}/chats/${chat}/lines`,
    });
    const valid = (): string | undefined => {
      if (typeof c.body.service_name !== 'string' || !/^\w+$/.test(c.body.service_name))
        return 'service_name must be a word (no spaces, emoji or punctuation)';
      const url = c.body.command_url;
      if (
        url !== undefined &&
        url !== null &&
        url !== '' &&
        !(typeof url === 'string' && url.startsWith('https://'))
      )
        return 'command_url must be an HTTPS URL';
      return undefined;
    };
    const botId = c.id(/\/integrations\/(\d+)\.json$/);
    if (botId === undefined) {
      if (method === 'GET') return { status: 200, body: [...account.chatbots.values()].map(json) };
      if (method === 'POST') {
        const problem = valid();
        if (problem) return c.invalid(problem);
        const bot = {
          id: nextId++,
          service_name: c.body.service_name as string,
          command_url: (c.body.command_url as string | undefined) || null,
          created_at: nowIso(),
        };
        account.chatbots.set(bot.id, bot);
        return { status: 201, body: json(bot) };
      }
      return undefined;
    }
    const bot = account.chatbots.get(botId);
    if (!bot) return c.notFound;
    if (method === 'GET') return { status: 200, body: json(bot) };
    if (method === 'PUT') {
      const problem = valid();
      if (problem) return c.invalid(problem);
      bot.service_name = c.body.service_name as string;
      if (c.body.command_url !== undefined) bot.command_url = (c.body.command_url as string | null) || null;
      return { status: 200, body: json(bot) };
    }
    if (method === 'DELETE') {
      account.chatbots.delete(botId);
      return { status: 204 };
    }
    return undefined;
  }

  // Lineup markers: creating and updating answer with an empty body, as the docs say.
  if (path === '/lineup/markers.json') {
    if (method === 'GET')
      return {
        status: 200,
        body: [...account.markers.values()].sort((a, b) => a.created_at.localeCompare(b.created_at)),
      };
    if (method === 'POST') {
      if (typeof c.body.name !== 'string' || c.body.name.trim() === '')
        return c.invalid("Name can't be blank");
      if (!isDate(c.body.date)) return c.invalid('date must be YYYY-MM-DD');
      const now = nowIso();
      const marker = {
        id: nextId++,
        name: c.body.name,
        date: c.body.date as string,
        created_at: now,
        updated_at: now,
      };
      account.markers.set(marker.id, marker);
      return { status: 201 };
    }
    return undefined;
  }
  const markerId = c.id(/^\/lineup\/markers\/(\d+)\.json$/);
  if (markerId !== undefined) {
    const marker = account.markers.get(markerId);
    if (!marker) return c.notFound;
    if (method === 'PUT') {
      if (c.body.name !== undefined) {
        if (typeof c.body.name !== 'string' || c.body.name.trim() === '')
          return c.invalid("Name can't be blank");
        marker.name = c.body.name;
      }
      if (c.body.date !== undefined) {
        if (!isDate(c.body.date)) return c.invalid('date must be YYYY-MM-DD');
        marker.date = c.body.date as string;
      }
      marker.updated_at = nowIso();
      return { status: 200 };
    }
    if (method === 'DELETE') {
      account.markers.delete(markerId);
      return { status: 204 };
    }
    return undefined;
  }

  // The signed-in person's own profile and preferences.
  if (path === '/my/profile.json') {
    if (method === 'GET') return { status: 200, body: { ...c.person(c.me.id), ...account.profile } };
    if (method === 'PUT') {
      for (const key of ['name', 'email_address', 'title', 'bio', 'location']) {
        const value = c.body[key];
        if (value === undefined) continue;
        if (typeof value !== 'string' || (key === 'name' && value.trim() === ''))
          return c.invalid(`${key} is not valid`);
        account.profile[key] = value;
      }
      return { status: 204 };
    }
    return undefined;
  }
  if (path === '/my/preferences.json') {
    const json = () => ({
      url: `${c.base}/my/preferences.json`,
      app_url: 'https://3.basecamp.com/999999999/my/preferences',
      ...account.preferences,
    });
    if (method === 'GET') return { status: 200, body: json() };
    if (method === 'PUT') {
      const person = c.body.person;
      if (typeof person !== 'object' || person === null) return c.invalid('person is required');
      const changes = person as Record<string, unknown>;
      if (changes.first_week_day !== undefined && !DAYS.includes(String(changes.first_week_day)))
        return c.invalid('first_week_day is not a weekday');
      if (
        changes.time_format !== undefined &&
        changes.time_format !== 'twelve_hour' &&
        changes.time_format !== 'twenty_four_hour'
      )
        return c.invalid('time_format must be twelve_hour or twenty_four_hour');
      if (changes.time_zone_name !== undefined && typeof changes.time_zone_name !== 'string')
        return c.invalid('time_zone_name is not valid');
      Object.assign(
        account.preferences,
        Object.fromEntries(
          Object.entries(changes).filter(([key]) =>
            ['time_zone_name', 'first_week_day', 'time_format'].includes(key),
          ),
        ),
      );
      return { status: 200, body: json() };
    }
    return undefined;
  }

  // Check-ins waiting for the signed-in person's answer: each active question that is not paused.
  if (path === '/my/question_reminders.json' && method === 'GET') {
    const questions = [...c.recordings.values()].filter(
      (record) => record.type === 'Question' && record.status === 'active' && record.extra?.paused !== true,
    );
    return c.paginate(
      questions.map((question, index) => ({
        reminder_id: 1_004_522_375 + index,
        remind_at: '2026-02-02T15:00:00.000Z',
        group_on: '2026-02-02',
        question: c.json(question),
      })),
    );
  }
  const question = c.id(/^\/questions\/(\d+)\/notification_settings\.json$/);
  if (question !== undefined && method === 'PUT') {
    const found = c.recording(question, 'Question');
    if (!found) return c.notFound;
    const settings = account.notifications.get(question) ?? {
      notify_on_answer: false,
      digest_include_unanswered: false,
    };
    for (const key of ['notify_on_answer', 'digest_include_unanswered'] as const) {
      const value = c.body[key];
      if (value === undefined) continue;
      if (typeof value !== 'boolean') return c.invalid(`${key} must be true or false`);
      settings[key] = value;
    }
    account.notifications.set(question, settings);
    return { status: 200, body: { ...c.json(found), notification_settings: settings } };
  }
  return undefined;
}

/** A fake's account logo, when set (tests). */
export function accountLogo(recordings: Map<number, FakeRecording>) {
  return states.get(recordings)?.logo ?? null;
}

/** Reads a fake's notification settings of a question (tests). */
export function questionNotifications(recordings: Map<number, FakeRecording>, questionId: number) {
  return states.get(recordings)?.notifications.get(questionId);
}

export const accountFamily: Family = { route };
