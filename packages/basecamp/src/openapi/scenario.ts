import type { CARDS, CHECKINS, CLIENTS, DOCK, IDS } from '../testing/index.js';

/** A 1×1 PNG, base64. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** The structured answer of the step before. */
export type Previous = { items?: { id: number }[]; id?: number } | undefined;

export interface ScenarioIds {
  LAPTOP: number;
  DOCK: typeof DOCK;
  IDS: typeof IDS;
  CARDS: typeof CARDS;
  CHECKINS: typeof CHECKINS;
  CLIENTS: typeof CLIENTS;
  TEMPLATE_ID: number;
  LOCATOR: number;
}

/**
 * One successful call of every tool against the fake, in an order where each step's data exists
 * (writes that remove things come last). The contract test runs it.
 */
export const SCENARIO: readonly {
  tool: string;
  /** The arguments, from the fixture IDs and the previous step's answer. */
  args: (ids: ScenarioIds, previous: Previous) => Record<string, unknown>;
}[] = [
  { tool: 'list_projects', args: () => ({ status: 'all' }) },
  { tool: 'list_templates', args: () => ({}) },
  {
    tool: 'create_project_from_template',
    args: ({ TEMPLATE_ID }) => ({ template_id: TEMPLATE_ID, name: 'Launch 2' }),
  },
  {
    tool: 'get_project_construction',
    args: ({ TEMPLATE_ID }, previous) => ({
      template_id: TEMPLATE_ID,
      construction_id: (previous as { construction_id?: number } | undefined)?.construction_id,
    }),
  },
  { tool: 'create_template', args: () => ({ name: 'Hiring' }) },
  { tool: 'rename_template', args: (_, previous) => ({ template_id: previous?.id, name: 'Hiring 2026' }) },
  { tool: 'trash_template', args: (_, previous) => ({ template_id: previous?.id }) },
  {
    tool: 'create_webhook',
    args: ({ LAPTOP }) => ({ project_id: LAPTOP, payload_url: 'https://example.com/hook', types: ['Todo'] }),
  },
  { tool: 'update_webhook', args: (_, previous) => ({ webhook_id: previous?.id, active: false }) },
  { tool: 'list_webhooks', args: ({ LAPTOP }) => ({ project_id: LAPTOP }) },
  { tool: 'delete_webhook', args: (_, previous) => ({ webhook_id: previous?.items?.[0]?.id }) },
  { tool: 'get_project_tools', args: ({ LAPTOP }) => ({ project_id: LAPTOP }) },
  { tool: 'list_people', args: () => ({}) },
  { tool: 'get_person', args: () => ({}) },
  { tool: 'get_person', args: () => ({ person_id: 1049715930 }) },
  { tool: 'create_project', args: () => ({ name: 'Scratch', description: 'For trying things' }) },
  { tool: 'update_project', args: (_, previous) => ({ project_id: previous?.id, description: 'Try here' }) },
  {
    tool: 'update_project_access',
    args: (_, previous) => ({ project_id: previous?.id, grant: [1049715930], revoke: [] }),
  },
  { tool: 'create_project', args: () => ({ name: 'Doomed' }) },
  { tool: 'trash_project', args: (_, previous) => ({ project_id: previous?.id, confirm_name: 'Doomed' }) },
  { tool: 'list_people', args: ({ LAPTOP }) => ({ project_id: LAPTOP }) },
  { tool: 'search', args: ({ LAPTOP }) => ({ query: 'launch', type: 'Message', project_id: LAPTOP }) },
  { tool: 'list_messages', args: ({ LAPTOP }) => ({ project_id: LAPTOP }) },
  { tool: 'get_message', args: ({ LAPTOP, IDS }) => ({ project_id: LAPTOP, message_id: IDS.richMessage }) },
  { tool: 'list_comments', args: ({ IDS }) => ({ recording_id: IDS.richMessage }) },
  {
    tool: 'create_message',
    args: ({ LAPTOP }) => ({ project_id: LAPTOP, subject: 'Hello', content: '**Hi**' }),
  },
  { tool: 'create_comment', args: ({ IDS }) => ({ recording_id: IDS.richMessage, content: 'Agreed' }) },
  {
    tool: 'update_comment',
    args: (_, previous) => ({ comment_id: previous?.id, content: 'Agreed, **mostly**' }),
  },
  { tool: 'list_message_types', args: () => ({}) },
  {
    tool: 'update_message',
    args: ({ IDS }) => ({ message_id: IDS.richMessage, subject: 'Launch plan v2', category_id: 1069479501 }),
  },
  { tool: 'pin_message', args: ({ IDS }) => ({ message_id: IDS.richMessage }) },
  {
    tool: 'pin_message',
    args: ({ LAPTOP, IDS }) => ({ project_id: LAPTOP, message_id: IDS.richMessage, pinned: false }),
  },
  {
    tool: 'create_schedule_entry',
    args: ({ LAPTOP }) => ({
      project_id: LAPTOP,
      summary: 'Launch party',
      starts_at: '2026-03-15T18:00:00Z',
      ends_at: '2026-03-15T22:00:00Z',
      participant_ids: [1049715930],
      description: 'Bring **snacks**',
    }),
  },
  {
    tool: 'update_schedule_entry',
    args: ({ IDS }) => ({
      entry_id: IDS.scheduleEntry,
      starts_at: '2026-02-02T09:00:00Z',
      ends_at: '2026-02-02T10:00:00Z',
    }),
  },
  {
    tool: 'create_document',
    args: ({ LAPTOP, IDS }) => ({
      project_id: LAPTOP,
      folder_id: IDS.folder,
      title: 'Notes',
      content: '# Notes',
    }),
  },
  { tool: 'update_document', args: ({ IDS }) => ({ document_id: IDS.document, content: 'Rewritten' }) },
  { tool: 'create_folder', args: ({ LAPTOP }) => ({ project_id: LAPTOP, title: 'Press kit' }) },
  { tool: 'rename_folder', args: ({ IDS }) => ({ folder_id: IDS.folder, title: 'People' }) },
  {
    tool: 'update_upload',
    args: ({ IDS }) => ({ upload_id: IDS.upload, name: 'laptop-front', description: 'Front view' }),
  },
  { tool: 'list_todolists', args: ({ LAPTOP }) => ({ project_id: LAPTOP }) },
  { tool: 'list_todos', args: ({ IDS }) => ({ todolist_id: IDS.strategyList, completed: true }) },
  { tool: 'get_todo', args: ({ IDS }) => ({ todo_id: IDS.assignedTodo }) },
  {
    tool: 'create_todo',
    args: ({ IDS }) => ({ todolist_id: IDS.strategyList, content: 'Book the hall', due_on: '2026-04-01' }),
  },
  { tool: 'complete_todo', args: ({ IDS }) => ({ todo_id: IDS.assignedTodo }) },
  { tool: 'reopen_todo', args: ({ IDS }) => ({ todo_id: IDS.assignedTodo }) },
  { tool: 'list_folders', args: ({ LAPTOP }) => ({ project_id: LAPTOP }) },
  { tool: 'list_documents', args: ({ LAPTOP }) => ({ project_id: LAPTOP }) },
  { tool: 'get_document', args: ({ IDS }) => ({ document_id: IDS.document }) },
  { tool: 'list_uploads', args: ({ LAPTOP }) => ({ project_id: LAPTOP }) },
  {
    tool: 'list_campfire_lines',
    args: ({ LAPTOP, DOCK }) => ({ project_id: LAPTOP, chat_id: DOCK.laptop.chat }),
  },
  {
    tool: 'post_campfire_line',
    args: ({ LAPTOP, DOCK }) => ({ project_id: LAPTOP, chat_id: DOCK.laptop.chat, content: 'On my way' }),
  },
  {
    tool: 'update_todo',
    args: ({ IDS }) => ({ todo_id: IDS.assignedTodo, due_on: '2026-05-01', assignee_ids: [1049715930] }),
  },
  { tool: 'move_todo', args: ({ IDS }) => ({ todo_id: IDS.assignedTodo, position: 2 }) },
  { tool: 'get_todolist', args: ({ IDS }) => ({ todolist_id: IDS.strategyList }) },
  {
    tool: 'create_todolist',
    args: ({ LAPTOP }) => ({ project_id: LAPTOP, name: 'Launch week', description: 'All _hands_' }),
  },
  { tool: 'update_todolist', args: ({ IDS }) => ({ todolist_id: IDS.launchList, description: 'Updated' }) },
  { tool: 'create_todolist_group', args: ({ IDS }) => ({ todolist_id: IDS.strategyList, name: 'Venue' }) },
  { tool: 'create_todolist_group', args: ({ IDS }) => ({ todolist_id: IDS.strategyList, name: 'Press' }) },
  { tool: 'list_todolist_groups', args: ({ IDS }) => ({ todolist_id: IDS.strategyList }) },
  {
    tool: 'move_todolist_group',
    args: (_, previous) => ({ group_id: previous?.items?.[0]?.id, position: 2 }),
  },
  {
    tool: 'update_todo',
    args: ({ IDS }) => ({ todo_id: IDS.assignedTodo, assignee_ids: [1049715913], due_on: '2026-01-01' }),
  },
  { tool: 'my_assignments', args: () => ({}) },
  { tool: 'my_assignments', args: () => ({ show: 'completed' }) },
  { tool: 'my_assignments', args: () => ({ show: 'due', due: 'overdue' }) },
  { tool: 'overdue_todos', args: () => ({}) },
  { tool: 'set_recording_status', args: ({ IDS }) => ({ recording_id: IDS.document, status: 'archived' }) },
  {
    tool: 'set_recording_status',
    args: ({ LAPTOP, IDS }) => ({ project_id: LAPTOP, recording_id: IDS.document, status: 'active' }),
  },
  { tool: 'set_recording_status', args: ({ IDS }) => ({ recording_id: IDS.longMessage, status: 'trashed' }) },
  {
    tool: 'list_recordings',
    args: ({ LAPTOP }) => ({
      type: 'Message',
      project_ids: [LAPTOP],
      status: 'trashed',
      sort: 'created_at',
      direction: 'asc',
    }),
  },
  { tool: 'list_events', args: ({ IDS }) => ({ recording_id: IDS.longMessage }) },
  { tool: 'trash_todo', args: ({ IDS }) => ({ todo_id: IDS.completedTodo }) },
  { tool: 'list_schedule_entries', args: ({ LAPTOP }) => ({ project_id: LAPTOP }) },
  { tool: 'list_chats', args: () => ({}) },
  { tool: 'get_schedule_entry', args: ({ IDS }) => ({ entry_id: IDS.scheduleEntry }) },
  { tool: 'list_schedule_entries', args: ({ LAPTOP }) => ({ project_id: LAPTOP }) },
  {
    tool: 'get_schedule_entry',
    args: (_, previous) => ({
      entry_id: (previous?.items as { id: number; recurrence: unknown }[] | undefined)?.find(
        (entry) => entry.recurrence,
      )?.id,
      date: '2026-02-03',
    }),
  },
  { tool: 'upcoming_schedule', args: () => ({ from: '2026-01-01', to: '2026-12-31' }) },
  { tool: 'get_upload', args: ({ IDS }) => ({ upload_id: IDS.upload }) },
  { tool: 'get_upload', args: ({ IDS }) => ({ upload_id: IDS.upload, versions: true }) },
  { tool: 'create_message_type', args: () => ({ name: 'Retro', icon: '🔁' }) },
  { tool: 'update_message_type', args: (_, previous) => ({ type_id: previous?.id, name: 'Retrospective' }) },
  { tool: 'delete_message_type', args: (_, previous) => ({ type_id: previous?.id }) },
  { tool: 'list_pingable_people', args: () => ({}) },
  { tool: 'latest_activity', args: () => ({}) },
  { tool: 'latest_activity', args: ({ LAPTOP }) => ({ project_id: LAPTOP, limit: 5 }) },
  { tool: 'latest_activity', args: () => ({ person_id: 1049715930 }) },
  {
    tool: 'log_time',
    args: ({ IDS }) => ({ recording_id: IDS.assignedTodo, date: '2026-02-02', hours: '1.5' }),
  },
  { tool: 'update_time_entry', args: (_, previous) => ({ entry_id: previous?.id, hours: '2:15' }) },
  { tool: 'get_time_entry', args: (_, previous) => ({ entry_id: previous?.id }) },
  { tool: 'list_timesheet', args: () => ({ from: '2026-01-01', to: '2026-12-31' }) },
  { tool: 'list_timesheet', args: ({ LAPTOP }) => ({ project_id: LAPTOP, person_id: 1049715913 }) },
  { tool: 'list_timesheet', args: ({ IDS }) => ({ recording_id: IDS.assignedTodo }) },
  { tool: 'set_gauge', args: ({ LAPTOP }) => ({ project_id: LAPTOP, enabled: true }) },
  {
    tool: 'add_gauge_needle',
    args: ({ LAPTOP }) => ({
      project_id: LAPTOP,
      position: 40,
      color: 'yellow',
      description: 'Hinges **late**',
    }),
  },
  {
    tool: 'update_gauge_needle',
    args: (_, previous) => ({ needle_id: previous?.id, description: 'Hinges arrived' }),
  },
  { tool: 'list_gauges', args: ({ LAPTOP }) => ({ project_ids: [LAPTOP] }) },
  { tool: 'list_gauge_needles', args: ({ LAPTOP }) => ({ project_id: LAPTOP }) },
  { tool: 'delete_gauge_needle', args: (_, previous) => ({ needle_id: previous?.items?.[0]?.id }) },
  { tool: 'my_notifications', args: () => ({}) },
  {
    tool: 'mark_notifications_read',
    args: (_, previous) => ({
      readable_ids: [
        (previous as { unread?: { readable_id: string }[] } | undefined)?.unread?.[0]?.readable_id ?? 'x',
      ],
    }),
  },
  {
    tool: 'out_of_office',
    args: () => ({ person_id: 1049715913, start_date: '2026-07-01', end_date: '2026-07-14' }),
  },
  { tool: 'out_of_office', args: () => ({ person_id: 1049715913 }) },
  { tool: 'out_of_office', args: () => ({ person_id: 1049715913, clear: true }) },
  { tool: 'assigned_todos', args: () => ({}) },
  { tool: 'assigned_todos', args: () => ({ person_id: 1049715930 }) },
  {
    tool: 'post_campfire_line',
    args: ({ LAPTOP, DOCK }) => ({ project_id: LAPTOP, chat_id: DOCK.laptop.chat, content: 'Oops' }),
  },
  {
    tool: 'delete_campfire_line',
    args: ({ LAPTOP, DOCK }, previous) => ({
      project_id: LAPTOP,
      chat_id: DOCK.laptop.chat,
      line_id: previous?.id,
    }),
  },
  { tool: 'get_subscribers', args: ({ IDS }) => ({ recording_id: IDS.document }) },
  { tool: 'update_subscribers', args: ({ IDS }) => ({ recording_id: IDS.document, me: true }) },
  {
    tool: 'update_subscribers',
    args: ({ IDS }) => ({ recording_id: IDS.document, me: false, add: [1049715930] }),
  },
  { tool: 'boost', args: ({ IDS }) => ({ recording_id: IDS.document, content: '🎉' }) },
  { tool: 'delete_boost', args: (_, previous) => ({ boost_id: previous?.id }) },
  { tool: 'list_events', args: ({ IDS }) => ({ recording_id: IDS.document }) },
  {
    tool: 'boost',
    args: ({ IDS }, previous) => ({
      recording_id: IDS.document,
      event_id: previous?.items?.[0]?.id,
      content: 'Nice',
    }),
  },
  { tool: 'list_boosts', args: ({ IDS }) => ({ recording_id: IDS.document }) },
  { tool: 'list_boosts', args: ({ IDS }) => ({ recording_id: IDS.document, event_id: IDS.document + 7 }) },
  { tool: 'get_card_table', args: ({ LAPTOP }) => ({ project_id: LAPTOP }) },
  { tool: 'list_cards', args: ({ LAPTOP, CARDS }) => ({ project_id: LAPTOP, column_id: CARDS.inProgress }) },
  { tool: 'get_card', args: ({ CARDS }) => ({ card_id: CARDS.hingeCard }) },
  {
    tool: 'create_card',
    args: ({ CARDS }) => ({
      column_id: CARDS.triage,
      title: 'Battery test',
      content: 'Run it _twice_',
      due_on: '2026-03-01',
    }),
  },
  {
    tool: 'update_card',
    args: ({ LAPTOP, CARDS }) => ({
      project_id: LAPTOP,
      card_id: CARDS.specCard,
      due_on: null,
      assignee_ids: [1049715930],
    }),
  },
  {
    tool: 'move_card',
    args: ({ CARDS }) => ({ card_id: CARDS.specCard, column_id: CARDS.review, position: 1 }),
  },
  {
    tool: 'create_card_step',
    args: ({ CARDS }) => ({ card_id: CARDS.hingeCard, title: 'Sign', due_on: '2026-02-05' }),
  },
  {
    tool: 'update_card_step',
    args: ({ CARDS }) => ({ step_id: CARDS.stepSample, title: 'Order 3 samples' }),
  },
  { tool: 'complete_card_step', args: ({ CARDS }) => ({ step_id: CARDS.stepSample, completed: false }) },
  {
    tool: 'move_card_step',
    args: ({ CARDS }) => ({ card_id: CARDS.hingeCard, step_id: CARDS.stepSample, position: 1 }),
  },
  { tool: 'create_card_column', args: ({ LAPTOP }) => ({ project_id: LAPTOP, title: 'Blocked' }) },
  {
    tool: 'update_card_column',
    args: ({ CARDS }) => ({ column_id: CARDS.review, description: 'Waiting for **review**' }),
  },
  {
    tool: 'move_card_column',
    args: ({ LAPTOP, CARDS }) => ({ project_id: LAPTOP, column_id: CARDS.review, position: 2 }),
  },
  { tool: 'set_card_column_on_hold', args: ({ CARDS }) => ({ column_id: CARDS.inProgress, on_hold: true }) },
  { tool: 'set_card_column_on_hold', args: ({ CARDS }) => ({ column_id: CARDS.inProgress, on_hold: false }) },
  { tool: 'watch_card_column', args: ({ CARDS }) => ({ column_id: CARDS.review }) },
  {
    tool: 'watch_card_column',
    args: ({ LAPTOP, CARDS }) => ({ project_id: LAPTOP, column_id: CARDS.review, watching: false }),
  },
  { tool: 'list_client_items', args: ({ LAPTOP }) => ({ project_id: LAPTOP, kind: 'approvals' }) },
  { tool: 'list_client_items', args: ({ LAPTOP }) => ({ project_id: LAPTOP, kind: 'correspondences' }) },
  {
    tool: 'get_client_item',
    args: ({ LAPTOP, CLIENTS }) => ({ project_id: LAPTOP, kind: 'approvals', item_id: CLIENTS.approval }),
  },
  {
    tool: 'get_client_item',
    args: ({ LAPTOP, CLIENTS }) => ({
      project_id: LAPTOP,
      kind: 'correspondences',
      item_id: CLIENTS.correspondence,
    }),
  },
  {
    tool: 'list_client_replies',
    args: ({ LAPTOP, CLIENTS }) => ({ project_id: LAPTOP, recording_id: CLIENTS.correspondence }),
  },
  { tool: 'set_client_visibility', args: ({ IDS }) => ({ recording_id: IDS.document, visible: true }) },
  { tool: 'list_email_forwards', args: ({ LAPTOP }) => ({ project_id: LAPTOP }) },
  { tool: 'get_email_forward', args: ({ CLIENTS }) => ({ forward_id: CLIENTS.forward }) },
  { tool: 'list_forward_replies', args: ({ CLIENTS }) => ({ forward_id: CLIENTS.forward }) },
  {
    tool: 'reply_to_forward',
    args: ({ CLIENTS }) => ({ forward_id: CLIENTS.forward, content: 'Asked for **$3.90**' }),
  },
  { tool: 'list_checkin_questions', args: ({ LOCATOR }) => ({ project_id: LOCATOR }) },
  { tool: 'get_checkin_question', args: ({ CHECKINS }) => ({ question_id: CHECKINS.dailyQuestion }) },
  { tool: 'list_checkin_answers', args: ({ CHECKINS }) => ({ question_id: CHECKINS.dailyQuestion }) },
  {
    tool: 'list_checkin_answers',
    args: ({ LOCATOR, CHECKINS }) => ({
      project_id: LOCATOR,
      question_id: CHECKINS.dailyQuestion,
      person_id: 1049715930,
    }),
  },
  { tool: 'list_checkin_answerers', args: ({ CHECKINS }) => ({ question_id: CHECKINS.dailyQuestion }) },
  { tool: 'get_checkin_answer', args: ({ CHECKINS }) => ({ answer_id: CHECKINS.sharonAnswer }) },
  {
    tool: 'answer_checkin',
    args: ({ CHECKINS }) => ({
      question_id: CHECKINS.dailyQuestion,
      content: 'Shipped the **pairing** flow',
      group_on: '2026-01-15',
    }),
  },
  {
    tool: 'update_checkin_answer',
    args: ({ CHECKINS }) => ({ answer_id: CHECKINS.victorAnswer, content: 'Budget review, done' }),
  },
  {
    tool: 'create_checkin_question',
    args: ({ LOCATOR }) => ({
      project_id: LOCATOR,
      title: 'Any risks?',
      schedule: { frequency: 'every_week', days: [5] },
    }),
  },
  {
    tool: 'update_checkin_question',
    args: ({ CHECKINS }) => ({ question_id: CHECKINS.pausedQuestion, paused: false }),
  },
  {
    tool: 'update_checkin_question',
    args: ({ CHECKINS }) => ({
      question_id: CHECKINS.dailyQuestion,
      paused: true,
      title: 'What did you do today?',
    }),
  },

  { tool: 'get_comment', args: () => ({ comment_id: 1069479710 }) },
  { tool: 'get_chat_line', args: ({ LOCATOR, IDS }) => ({ project_id: LOCATOR, line_id: IDS.locatorLine }) },
  {
    tool: 'get_email_forward',
    args: ({ CLIENTS }) => ({ forward_id: CLIENTS.forward, reply_id: CLIENTS.forwardReply }),
  },
  {
    tool: 'update_card_column',
    args: ({ CARDS }) => ({ column_id: CARDS.review, color: 'green' }),
  },
  {
    tool: 'update_checkin_question',
    args: ({ CHECKINS }) => ({ question_id: CHECKINS.dailyQuestion, notify_on_answer: true }),
  },
  { tool: 'list_checkin_reminders', args: () => ({}) },
  { tool: 'get_hill_chart', args: ({ LAPTOP }) => ({ project_id: LAPTOP }) },
  {
    tool: 'track_on_hill_chart',
    args: ({ LAPTOP, IDS }) => ({ project_id: LAPTOP, track: [IDS.launchList] }),
  },
  { tool: 'my_preferences', args: () => ({}) },
  {
    tool: 'update_my_profile',
    args: () => ({ title: 'Chief Strategist', time_zone_name: 'London', time_format: 'twenty_four_hour' }),
  },
  {
    tool: 'update_schedule_settings',
    args: ({ LAPTOP }) => ({ project_id: LAPTOP, include_due_assignments: true }),
  },
  { tool: 'list_lineup_markers', args: () => ({}) },
  { tool: 'create_lineup_marker', args: () => ({ name: 'Launch', date: '2026-09-01' }) },
  { tool: 'update_lineup_marker', args: (_, previous) => ({ marker_id: previous?.id, date: '2026-09-02' }) },
  { tool: 'delete_lineup_marker', args: (_, previous) => ({ marker_id: previous?.id }) },
  { tool: 'get_account', args: () => ({}) },
  { tool: 'rename_account', args: () => ({ name: 'Honcho Design Studio' }) },
  { tool: 'list_chatbots', args: ({ LOCATOR }) => ({ project_id: LOCATOR }) },
  { tool: 'create_chatbot', args: ({ LOCATOR }) => ({ project_id: LOCATOR, service_name: 'tally' }) },
  {
    tool: 'update_chatbot',
    args: ({ LOCATOR }, previous) => ({
      project_id: LOCATOR,
      chatbot_id: previous?.id,
      service_name: 'uptime',
      command_url: 'https://example.com/uptime',
    }),
  },
  {
    tool: 'delete_chatbot',
    args: ({ LOCATOR }, previous) => ({ project_id: LOCATOR, chatbot_id: previous?.id }),
  },
  {
    tool: 'update_project_tool',
    args: ({ LOCATOR, DOCK }) => ({
      project_id: LOCATOR,
      tool_id: DOCK.locator.questionnaire,
      title: 'Daily check-ins',
      enabled: false,
    }),
  },
  {
    tool: 'update_project_tool',
    args: ({ LOCATOR, DOCK }) => ({
      project_id: LOCATOR,
      tool_id: DOCK.locator.questionnaire,
      enabled: true,
      position: 1,
    }),
  },
  {
    tool: 'add_project_tool',
    args: ({ LOCATOR, DOCK }) => ({ project_id: LOCATOR, source_tool_id: DOCK.locator.chat, title: 'Q&A' }),
  },
  {
    tool: 'upload_file',
    args: ({ LAPTOP }) => ({
      project_id: LAPTOP,
      content_base64: Buffer.from('Quarterly plan').toString('base64'),
      filename: 'plan.txt',
      description: 'The **plan**',
      name: 'Q3 plan',
    }),
  },
  {
    tool: 'upload_file',
    args: ({ LAPTOP, IDS }) => ({
      project_id: LAPTOP,
      folder_id: IDS.folder,
      content_base64: PNG,
      filename: 'chart.png',
    }),
  },
  {
    tool: 'attach_file',
    args: ({ IDS }) => ({ recording_id: IDS.richMessage, content_base64: PNG, filename: 'chart.png' }),
  },
  {
    tool: 'attach_file',
    args: ({ IDS }) => ({
      recording_id: IDS.document,
      content_base64: PNG,
      filename: 'chart.png',
      caption: 'Q3',
    }),
  },
  {
    tool: 'attach_file',
    args: () => ({ recording_id: 1069479710, content_base64: PNG, filename: 'chart.png' }),
  },
  {
    tool: 'upload_chat_file',
    args: ({ LOCATOR, DOCK }) => ({
      project_id: LOCATOR,
      chat_id: DOCK.locator.chat,
      content_base64: PNG,
      filename: 'chart.png',
    }),
  },
  {
    tool: 'list_chat_uploads',
    args: ({ LOCATOR, DOCK }) => ({ project_id: LOCATOR, chat_id: DOCK.locator.chat }),
  },
  { tool: 'set_account_logo', args: () => ({ content_base64: PNG, filename: 'logo.png' }) },
  { tool: 'remove_account_logo', args: () => ({}) },
];
