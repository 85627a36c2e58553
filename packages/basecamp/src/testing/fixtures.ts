/**
 * The fake's data: our own fixtures in the shapes the bc3 API documents (basecamp/bc3-api
 * `sections/*.md`). Fields an agent never sees are kept where the docs show them, so the
 * client is exercised on realistic payloads.
 */

export const ACCOUNT_ID = '999999999';
/** A second Basecamp account of the same person (login asks which one to use). */
export const SECOND_ACCOUNT_ID = '777777777';
/** An account whose trial ran out: every request answers 404 with `Reason: Account Inactive`. */
export const INACTIVE_ACCOUNT_ID = '888888888';

export interface FakePerson {
  id: number;
  name: string;
  email_address: string;
  title: string;
  admin: boolean;
  owner: boolean;
  client: boolean;
  employee: boolean;
  company: { id: number; name: string };
}

export type DockName =
  | 'message_board'
  | 'todoset'
  | 'vault'
  | 'chat'
  | 'schedule'
  | 'questionnaire'
  | 'inbox'
  | 'kanban_board';

export interface FakeDockEntry {
  id: number;
  title: string;
  name: DockName;
  enabled: boolean;
  position: number | null;
}

export interface FakeProject {
  id: number;
  name: string;
  description: string;
  status: 'active' | 'archived' | 'trashed';
  purpose: 'topic' | 'company_hq' | 'team';
  created_at: string;
  updated_at: string;
  dock: FakeDockEntry[];
  people: number[];
}

export type RecordingType =
  | 'Message'
  | 'Todolist'
  | 'Todo'
  | 'Comment'
  | 'Document'
  | 'Upload'
  | 'Chat::Lines::RichText'
  | 'Chat::Lines::Text'
  | 'Chat::Lines::Upload'
  | 'Schedule::Entry'
  | 'Vault'
  | 'Kanban::Triage'
  | 'Kanban::Column'
  | 'Kanban::DoneColumn'
  | 'Kanban::Card'
  | 'Kanban::Step'
  | 'Question'
  | 'Question::Answer'
  | 'Client::Approval'
  | 'Client::Correspondence'
  | 'Client::Reply'
  | 'Inbox::Forward'
  | 'Inbox::Forward::Reply';

/** Every piece of content is a recording in a project (bucket) with a parent. */
export interface FakeRecording {
  id: number;
  type: RecordingType;
  projectId: number;
  parentId: number;
  creatorId: number;
  status: 'active' | 'archived' | 'trashed';
  created_at: string;
  updated_at: string;
  /** Title (message subject, to-do content, list name, file name, ...). */
  title: string;
  /** Rich text: message/document/comment `content`, to-do/list/upload/entry `description`. */
  html: string;
  position?: number;
  completed?: boolean;
  completion?: { created_at: string; creatorId: number };
  due_on?: string | null;
  starts_on?: string | null;
  assignee_ids?: number[];
  upload?: { filename: string; content_type: string; byte_size: number; width?: number; height?: number };
  entry?: { starts_at: string; ends_at: string; all_day: boolean; participant_ids: number[] };
  /** Chat lines: plain text or rich text. */
  lineContent?: string;
  /** Files of a chat upload line (`Chat::Lines::Upload`). */
  attachments?: { filename: string; content_type: string; byte_size: number }[];
  /** People notified when a to-do is completed. */
  completion_subscriber_ids?: number[];
  /** A repeating schedule entry's `recurrence_schedule`. */
  recurrence?: {
    frequency: string;
    days: number[];
    hour: number;
    minute: number;
    week_instance: number | null;
    start_date: string;
    end_date: string | null;
  };
  /** Shown to the project's clients (default false). */
  visible_to_clients?: boolean;
  /** Fields of the recording families in `families/` (card columns on hold, question schedules, ...). */
  extra?: Record<string, unknown>;
}

export const PEOPLE: FakePerson[] = [
  person(1049715913, 'Victor Cooper', 'victor@honchodesign.com', 'Chief Strategist', {
    owner: true,
    admin: true,
  }),
  person(1049715930, 'Sharon Bradford', 'sharon@honchodesign.com', 'Principal Branding Administrator'),
  person(1049715938, 'Annie Bryan', 'annie@honchodesign.com', 'Central Markets Manager'),
  person(1049715944, 'Steve Marsh', 'steve@honchodesign.com', 'Legacy Directives Strategist'),
];

/** The person the fake's tokens belong to (`/my/profile.json`). */
export const ME = PEOPLE[0] as FakePerson;

function person(
  id: number,
  name: string,
  email: string,
  title: string,
  flags: { owner?: boolean; admin?: boolean } = {},
): FakePerson {
  return {
    id,
    name,
    email_address: email,
    title,
    admin: flags.admin ?? false,
    owner: flags.owner ?? false,
    client: false,
    employee: true,
    company: { id: 1033447817, name: 'Honcho Design' },
  };
}

/** The project with every tool, two chats (a cloned Campfire) and a disabled questionnaire. */
export const LAPTOP = 2085958504;
/** A project whose message board is switched off and which has no schedule at all. */
export const LOCATOR = 2085958505;
/** An archived project. */
export const OLD_SITE = 2085958506;

export const DOCK = {
  laptop: {
    messageBoard: 1069479392,
    todoset: 1069479393,
    vault: 1069479394,
    chat: 1069479395,
    designChat: 1069479400,
    schedule: 1069479396,
    cardTable: 1069479399,
    inbox: 1069479398,
  },
  locator: {
    messageBoard: 1069479606,
    todoset: 1069479607,
    vault: 1069479608,
    chat: 1069479609,
    questionnaire: 1069479610,
  },
} as const;

export const PROJECTS: FakeProject[] = [
  {
    id: LAPTOP,
    name: 'The Leto Laptop',
    description: 'Laptop product launch.',
    status: 'active',
    purpose: 'topic',
    created_at: '2025-12-29T18:52:00.000Z',
    updated_at: '2026-02-26T16:42:05.843Z',
    people: PEOPLE.map((entry) => entry.id),
    dock: [
      dock(DOCK.laptop.messageBoard, 'Message Board', 'message_board', 1),
      dock(DOCK.laptop.todoset, 'To-dos', 'todoset', 2),
      dock(DOCK.laptop.vault, 'Docs & Files', 'vault', 3),
      dock(DOCK.laptop.chat, 'Chat', 'chat', 4),
      dock(DOCK.laptop.schedule, 'Schedule', 'schedule', 5),
      dock(DOCK.laptop.designChat, 'Design Chat', 'chat', 6),
      dock(1069479397, 'Automatic Check-ins', 'questionnaire', null),
      dock(1069479398, 'Email Forwards', 'inbox', 8),
      dock(1069479399, 'Card Table', 'kanban_board', 7),
    ],
  },
  {
    id: LOCATOR,
    name: 'The Leto Locator',
    description: 'New software and hardware built for locating and securing Leto products.',
    status: 'active',
    purpose: 'topic',
    created_at: '2025-12-29T18:09:00.000Z',
    updated_at: '2026-02-26T16:29:39.623Z',
    people: [1049715913, 1049715930],
    dock: [
      dock(DOCK.locator.messageBoard, 'Message Board', 'message_board', null),
      dock(DOCK.locator.todoset, 'To-dos', 'todoset', 1),
      dock(DOCK.locator.vault, 'Docs & Files', 'vault', 2),
      dock(DOCK.locator.chat, 'Chat', 'chat', 3),
      dock(DOCK.locator.questionnaire, 'Automatic Check-ins', 'questionnaire', 4),
    ],
  },
  {
    id: OLD_SITE,
    name: 'Old Website',
    description: 'The 2019 site, kept for reference.',
    status: 'archived',
    purpose: 'topic',
    created_at: '2019-03-01T10:00:00.000Z',
    updated_at: '2020-01-15T10:00:00.000Z',
    people: [1049715913],
    dock: [dock(1069400001, 'Message Board', 'message_board', 1)],
  },
];

function dock(id: number, title: string, name: DockName, position: number | null): FakeDockEntry {
  return { id, title, name, enabled: position !== null, position };
}

/** Recording IDs tests refer to. */
export const IDS = {
  richMessage: 1069479583,
  launchList: 1069479573,
  strategyList: 1069479574,
  assignedTodo: 1069479576,
  completedTodo: 1069479577,
  document: 1069479601,
  upload: 1069479915,
  scheduleEntry: 1069479834,
  locatorList: 1069479700,
  /** A folder ("HR Stuff") in the laptop's Docs & Files, with a document and a file. */
  folder: 1069479146,
  folderDocument: 1069479147,
  folderUpload: 1069479148,
  /** A message with several mentions in a row, a captioned image and a gallery, as Basecamp sends it (whitespace inside attachments). */
  galleryMessage: 1069479590,
  /** A long message with an image right at the list excerpt's cut. */
  longMessage: 1069479591,
  /** A chat line that is a file. */
  uploadLine: 1069479923,
  /** The locator's only chat. */
  locatorLine: 1069479950,
} as const;

const mention = (sgid: string, name: string, short: string, personId: number) =>
  [
    `<bc-attachment sgid="BAh7CEkiCGdpZAY6BkVU--${sgid}" content-type="application/vnd.basecamp.mention">`,
    '\n  <figure>',
    `\n    <img srcset="https://3.basecampapi.com/999999999/people/${personId}/avatar 2x" src="https://3.basecampapi.com/999999999/people/${personId}/avatar" class="avatar" width="20" height="20" alt="${name}">`,
    `\n    <figcaption>${short}</figcaption>`,
    '\n  </figure>\n',
    '</bc-attachment>',
  ].join('');

const image = (blob: string, filename: string, caption: string, presentation = '') =>
  [
    `<bc-attachment sgid="BAh7CEkiCGdpZAY6BkVU--${blob}" content-type="image/jpeg" width="1024" height="768" url="https://3.basecampapi.com/999999999/blobs/${blob}/previews/full" href="https://3.basecampapi.com/999999999/blobs/${blob}/download/${filename}" filename="${filename}" filesize="204800" previewable="true"${presentation ? ` presentation="${presentation}"` : ''}${caption ? ` caption="${caption}"` : ''}>`,
    '\n  <figure>',
    `\n    <img srcset="https://3.basecampapi.com/999999999/blobs/${blob}/previews/full 2x" src="https://3.basecampapi.com/999999999/blobs/${blob}/previews/full">`,
    `\n    <figcaption>${caption || filename}</figcaption>`,
    '\n  </figure>\n',
    '</bc-attachment>',
  ].join('');

/** Mentions in a row, a mention before "!", a captioned image and a two-image gallery. */
export const GALLERY_MESSAGE_HTML = [
  `<div>Thanks ${mention('victor', 'Victor Cooper', 'Victor', 1049715913)}!</div>`,
  `<div>Reviewers: ${mention('sharon', 'Sharon Bradford', 'Sharon', 1049715930)} ${mention('annie', 'Annie Bryan', 'Annie', 1049715938)}\n${mention('steve', 'Steve Marsh', 'Steve', 1049715944)}</div>`,
  `<div>${image('img001', 'front.jpg', 'The front, in silver')}</div>`,
  `<div>\n  ${image('img002', 'left.jpg', '', 'gallery')}\n  ${image('img003', 'right.jpg', 'Right side', 'gallery')}\n</div>`,
].join('');

/** About 2,000 characters of prose, with an image whose Markdown would straddle a 1,500-character cut. */
export const LONG_MESSAGE_HTML = [
  `<div>${'The launch copy needs another pass before Friday. '.repeat(28).trim()} See ${image('img004', 'launch-banner-final-version.jpg', 'Launch banner')} and the <a href="https://example.com/brief/launch_2026">brief</a>.</div>`,
  `<div>${'We keep the tone short and plain. '.repeat(12).trim()}</div>`,
].join('');

/** Trix HTML with everything Basecamp puts in rich text: mentions, an image, a file, code, strike, a table. */
export const RICH_MESSAGE_HTML = [
  '<div><strong>Launch plan</strong> for the <em>Leto</em> laptop. ',
  '<bc-attachment sgid="BAh7CEkiCGdpZAY6BkVU--mention-sharon" content-type="application/vnd.basecamp.mention">',
  '<figure><img srcset="https://3.basecampapi.com/999999999/people/1049715930/avatar 2x" src="https://3.basecampapi.com/999999999/people/1049715930/avatar" class="avatar" width="20" height="20" alt="Sharon Bradford">',
  '<figcaption>Sharon</figcaption></figure></bc-attachment> owns the shots, ',
  '<bc-attachment sgid="BAh7CEkiCGdpZAY6BkVU--mention-annie" content-type="application/vnd.basecamp.mention">',
  '<figure><img src="https://3.basecampapi.com/999999999/people/1049715938/avatar" class="avatar" alt="Annie Bryan"><figcaption>Annie</figcaption></figure></bc-attachment>',
  ' the copy.<br><br>Old date: <strike>March 1</strike> now March 15.</div>',
  '<h1>Assets</h1>',
  '<div><bc-attachment sgid="BAh7CEkiCGdpZAY6BkVU--image" content-type="image/png" url="https://3.basecampapi.com/999999999/blobs/abc123/previews/full" href="https://3.basecamp-static.com/999999999/blobs/abc123/download/laptop_1.png" filename="laptop_1.png" filesize="14531" width="630" height="420" previewable="true" presentation="" caption="Laptop, front">',
  '<figure><img src="https://3.basecampapi.com/999999999/blobs/abc123/previews/full"><figcaption>Laptop, front</figcaption></figure></bc-attachment></div>',
  '<div><bc-attachment sgid="BAh7CEkiCGdpZAY6BkVU--file" content-type="application/pdf" href="https://3.basecamp-static.com/999999999/blobs/def456/download/spec%20sheet.pdf" filename="spec sheet.pdf" filesize="248000">',
  '<figure><figcaption>spec sheet.pdf</figcaption></figure></bc-attachment></div>',
  '<ul><li>Shots by Friday</li><li>Copy by <em>Monday</em></li></ul>',
  '<ol><li>Review</li><li>Ship</li></ol>',
  '<blockquote>Make it feel *light*.</blockquote>',
  '<pre>const launch = new Date("2026-03-15");<br>if (launch &lt; today) { ship_it(); }</pre>',
  '<table><tr><th>Market</th><th>Units</th></tr><tr><td>US</td><td>1200</td></tr><tr><td>EU</td><td>800</td></tr></table>',
].join('');

const T0 = Date.parse('2026-01-05T09:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

/** Builds the recordings afresh, so every fake starts from the same state. */
export function buildRecordings(): FakeRecording[] {
  const records: FakeRecording[] = [];
  const add = (record: Omit<FakeRecording, 'status' | 'updated_at'> & Partial<FakeRecording>) => {
    records.push({ status: 'active', updated_at: record.created_at, ...record });
  };
  // Messages on the laptop's board: one rich message and 24 short ones (two pages).
  add({
    id: IDS.richMessage,
    type: 'Message',
    projectId: LAPTOP,
    parentId: DOCK.laptop.messageBoard,
    creatorId: 1049715913,
    created_at: at(10_000),
    title: 'Launch plan',
    html: RICH_MESSAGE_HTML,
  });
  for (let index = 1; index <= 24; index++) {
    add({
      id: 1069480000 + index,
      type: 'Message',
      projectId: LAPTOP,
      parentId: DOCK.laptop.messageBoard,
      creatorId: PEOPLE[index % PEOPLE.length]?.id ?? 1049715913,
      created_at: at(index * 60),
      title: `Weekly update ${index}`,
      html: `<div>Status for week ${index}: on track.</div>`,
    });
  }
  // To-do lists.
  add({
    id: IDS.strategyList,
    type: 'Todolist',
    projectId: LAPTOP,
    parentId: DOCK.laptop.todoset,
    creatorId: 1049715913,
    created_at: at(100),
    title: 'Strategy ideas',
    html: '<div>Ideas for the <strong>launch</strong>.</div>',
    position: 1,
  });
  add({
    id: IDS.launchList,
    type: 'Todolist',
    projectId: LAPTOP,
    parentId: DOCK.laptop.todoset,
    creatorId: 1049715913,
    created_at: at(90),
    title: 'Launch checklist',
    html: '',
    position: 2,
  });
  add({
    id: IDS.locatorList,
    type: 'Todolist',
    projectId: LOCATOR,
    parentId: DOCK.locator.todoset,
    creatorId: 1049715913,
    created_at: at(95),
    title: 'Prototype',
    html: '',
    position: 1,
  });
  add({
    id: IDS.assignedTodo,
    type: 'Todo',
    projectId: LAPTOP,
    parentId: IDS.strategyList,
    creatorId: 1049715938,
    created_at: at(200),
    title: 'Clear and simple UI',
    html: '<div>Keep the setup to <em>three</em> screens. Ask <bc-attachment sgid="BAh7--victor" content-type="application/vnd.basecamp.mention"><figure><img alt="Victor Cooper" src="https://3.basecampapi.com/999999999/people/1049715913/avatar"><figcaption>Victor</figcaption></figure></bc-attachment> first.</div>',
    position: 1,
    completed: false,
    due_on: '2026-03-01',
    starts_on: '2026-02-20',
    assignee_ids: [1049715930, 1049715938],
    completion_subscriber_ids: [1049715913],
  });
  add({
    id: IDS.completedTodo,
    type: 'Todo',
    projectId: LAPTOP,
    parentId: IDS.strategyList,
    creatorId: 1049715938,
    created_at: at(210),
    title: 'Go cutting edge: iOS8 and Android 4.5 only',
    html: '',
    position: 2,
    completed: true,
    completion: { created_at: at(5000), creatorId: 1049715930 },
    due_on: null,
    starts_on: null,
    assignee_ids: [1049715930],
  });
  add({
    id: 1069479578,
    type: 'Todo',
    projectId: LAPTOP,
    parentId: IDS.strategyList,
    creatorId: 1049715913,
    created_at: at(220),
    title: 'Pick the launch venue',
    html: '',
    position: 3,
    completed: false,
    due_on: null,
    starts_on: null,
    assignee_ids: [],
  });
  // 120 pending and 10 completed to-dos in the launch checklist: several geared pages.
  for (let index = 1; index <= 130; index++) {
    add({
      id: 1069490000 + index,
      type: 'Todo',
      projectId: LAPTOP,
      parentId: IDS.launchList,
      creatorId: 1049715913,
      created_at: at(300 + index),
      title: `Checklist item ${index}`,
      html: '',
      position: index,
      completed: index > 120,
      ...(index > 120 ? { completion: { created_at: at(6000 + index), creatorId: 1049715913 } } : {}),
      due_on: null,
      starts_on: null,
      assignee_ids: index % 10 === 0 ? [1049715944] : [],
    });
  }
  // Comments on the rich message and on a to-do.
  add({
    id: 1069479407,
    type: 'Comment',
    projectId: LAPTOP,
    parentId: IDS.richMessage,
    creatorId: 1049715930,
    created_at: at(10_100),
    title: 'Re: Launch plan',
    html: '<div>Shots are <strong>done</strong>. See <a href="https://example.com/shots">the folder</a>.</div>',
  });
  add({
    id: 1069479408,
    type: 'Comment',
    projectId: LAPTOP,
    parentId: IDS.richMessage,
    creatorId: 1049715938,
    created_at: at(10_200),
    title: 'Re: Launch plan',
    html: '<div>Copy is in review.</div>',
  });
  add({
    id: 1069479409,
    type: 'Comment',
    projectId: LAPTOP,
    parentId: IDS.assignedTodo,
    creatorId: 1049715913,
    created_at: at(10_300),
    title: 'Re: Clear and simple UI',
    html: '<div>Agreed, three screens max.</div>',
  });
  // Docs & files.
  add({
    id: IDS.document,
    type: 'Document',
    projectId: LAPTOP,
    parentId: DOCK.laptop.vault,
    creatorId: 1049715913,
    created_at: at(400),
    title: 'New Hire Info, Benefits Summary, and Forms',
    html: '<div><strong>Health Insurance</strong><br>We have one policy; the company pays most of it.<br><br><strong>Paid Time Off</strong><br>Clear it with your team.</div>',
    position: 1,
  });
  add({
    id: 1069479602,
    type: 'Document',
    projectId: LAPTOP,
    parentId: DOCK.laptop.vault,
    creatorId: 1049715930,
    created_at: at(410),
    title: 'Brand voice',
    html: '<div>Short sentences. No jargon.</div>',
    position: 2,
  });
  add({
    id: IDS.upload,
    type: 'Upload',
    projectId: LAPTOP,
    parentId: DOCK.laptop.vault,
    creatorId: 1049715913,
    created_at: at(420),
    title: 'company-logo.png',
    html: '<div>Check out the new logo</div>',
    position: 1,
    upload: {
      filename: 'company-logo.png',
      content_type: 'image/png',
      byte_size: 1281,
      width: 164,
      height: 39,
    },
  });
  add({
    id: 1069479916,
    type: 'Upload',
    projectId: LAPTOP,
    parentId: DOCK.laptop.vault,
    creatorId: 1049715930,
    created_at: at(430),
    title: 'pricing.xlsx',
    html: '',
    position: 2,
    upload: {
      filename: 'pricing.xlsx',
      content_type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      byte_size: 48_211,
    },
  });
  // Campfire lines: 40 in the main chat, 3 in the design chat.
  for (let index = 1; index <= 40; index++) {
    add({
      id: 1069479000 + index,
      type: 'Chat::Lines::Text',
      projectId: LAPTOP,
      parentId: DOCK.laptop.chat,
      creatorId: PEOPLE[index % PEOPLE.length]?.id ?? 1049715913,
      created_at: at(7000 + index),
      title: `Line ${index}`,
      html: '',
      lineContent: index === 40 ? "I'm hungry" : `Chat line ${index}`,
    });
  }
  for (let index = 1; index <= 3; index++) {
    add({
      id: 1069479100 + index,
      type: 'Chat::Lines::RichText',
      projectId: LAPTOP,
      parentId: DOCK.laptop.designChat,
      creatorId: 1049715930,
      created_at: at(8000 + index),
      title: `Design line ${index}`,
      html: '',
      lineContent: `<div>Palette option <strong>${index}</strong></div>`,
    });
  }
  // Schedule entries.
  add({
    id: IDS.scheduleEntry,
    type: 'Schedule::Entry',
    projectId: LAPTOP,
    parentId: DOCK.laptop.schedule,
    creatorId: 1049715913,
    created_at: at(500),
    title: 'Team Meeting',
    html: '<div>Time to synergize!</div>',
    recurrence: {
      frequency: 'every_week',
      days: [5],
      hour: 18,
      minute: 0,
      week_instance: null,
      start_date: '2026-02-27',
      end_date: null,
    },
    entry: {
      starts_at: '2026-02-27T18:00:00.000Z',
      ends_at: '2026-02-27T19:00:00.000Z',
      all_day: false,
      participant_ids: [1049715913, 1049715944],
    },
  });
  add({
    id: 1069479835,
    type: 'Schedule::Entry',
    projectId: LAPTOP,
    parentId: DOCK.laptop.schedule,
    creatorId: 1049715930,
    created_at: at(510),
    title: 'Launch day',
    html: '',
    entry: { starts_at: '2026-03-15', ends_at: '2026-03-15', all_day: true, participant_ids: [] },
  });
  add({
    id: IDS.galleryMessage,
    type: 'Message',
    projectId: LAPTOP,
    parentId: DOCK.laptop.messageBoard,
    creatorId: 1049715930,
    created_at: at(9_000),
    title: 'Photos from the shoot',
    html: GALLERY_MESSAGE_HTML,
    visible_to_clients: true,
  });
  add({
    id: IDS.longMessage,
    type: 'Message',
    projectId: LAPTOP,
    parentId: DOCK.laptop.messageBoard,
    creatorId: 1049715913,
    created_at: at(8_500),
    title: 'Launch copy',
    html: LONG_MESSAGE_HTML,
  });
  // A folder in the laptop's Docs & Files, with one document and one file.
  add({
    id: IDS.folder,
    type: 'Vault',
    projectId: LAPTOP,
    parentId: DOCK.laptop.vault,
    creatorId: 1049715913,
    created_at: at(390),
    title: 'HR Stuff',
    html: '',
    position: 1,
  });
  add({
    id: IDS.folderDocument,
    type: 'Document',
    projectId: LAPTOP,
    parentId: IDS.folder,
    creatorId: 1049715913,
    created_at: at(391),
    title: 'Vacation policy',
    html: '<div>Tell your team two weeks ahead.</div>',
    position: 1,
  });
  add({
    id: IDS.folderUpload,
    type: 'Upload',
    projectId: LAPTOP,
    parentId: IDS.folder,
    creatorId: 1049715913,
    created_at: at(392),
    title: 'handbook.pdf',
    html: '',
    position: 1,
    upload: { filename: 'handbook.pdf', content_type: 'application/pdf', byte_size: 524_288 },
  });
  // A file posted in the chat, and the locator's single chat line.
  add({
    id: IDS.uploadLine,
    type: 'Chat::Lines::Upload',
    projectId: LAPTOP,
    parentId: DOCK.laptop.chat,
    creatorId: 1049715913,
    created_at: at(7100),
    title: 'company-logo.png',
    html: '',
    attachments: [{ filename: 'company-logo.png', content_type: 'image/png', byte_size: 1281 }],
  });
  add({
    id: IDS.locatorLine,
    type: 'Chat::Lines::Text',
    projectId: LOCATOR,
    parentId: DOCK.locator.chat,
    creatorId: 1049715913,
    created_at: at(7200),
    title: 'Prototype ships Monday',
    html: '',
    lineContent: 'Prototype ships Monday',
  });
  // A comment matching "prototype" on the locator's list, for search hits on comments.
  add({
    id: 1069479710,
    type: 'Comment',
    projectId: LOCATOR,
    parentId: IDS.locatorList,
    creatorId: 1049715930,
    created_at: at(7300),
    title: 'Re: Prototype',
    html: '<div>The prototype board arrived.</div>',
  });
  return records;
}
