/**
 * The Basecamp tools by module, for a server that loads only what it serves (the bins and the
 * composed server, through `loadBasecampProvider`). The modules of the default set are imported
 * here; every other module is a dynamic import, loaded only when one of its toolsets is served
 * (or all of them with dynamic toolsets). `TOOL_SPECS` (./index.ts) stays the complete list, in
 * the same order, for `createBasecampProvider`; a test keeps the two in step.
 */
import type { BasecampToolSpec, ToolsetName, ToolsetSelection } from '../toolsets.js';
import * as activityAssignments from './activity/assignments.js';
import * as completeTodo from './complete-todo.js';
import * as createComment from './create-comment.js';
import * as createMessage from './create-message.js';
import * as createTodo from './create-todo.js';
import * as getDocument from './get-document.js';
import * as getMessage from './get-message.js';
import * as getProjectTools from './get-project-tools.js';
import * as getTodo from './get-todo.js';
import * as listCampfireLines from './list-campfire-lines.js';
import * as listComments from './list-comments.js';
import * as listDocuments from './list-documents.js';
import * as listFolders from './list-folders.js';
import * as listMessages from './list-messages.js';
import * as listPeople from './list-people.js';
import * as listProjects from './list-projects.js';
import * as listScheduleEntries from './list-schedule-entries.js';
import * as listTodolists from './list-todolists.js';
import * as listTodos from './list-todos.js';
import * as listUploads from './list-uploads.js';
import * as postCampfireLine from './post-campfire-line.js';
import * as reopenTodo from './reopen-todo.js';
import * as search from './search.js';
import * as todosUpdateTodo from './todos/update-todo.js';

type ToolModule = Readonly<Record<string, unknown>>;

interface ModuleEntry {
  /** The toolsets of the module's tools. */
  toolsets: readonly ToolsetName[];
  /** Whether one of its tools is in the default set. */
  inDefault: boolean;
  load(): Promise<ToolModule>;
}

const loaded = (module: ToolModule) => async () => module;

/** Every module that defines tools, with what its tools belong to (checked by a test). */
export const TOOL_MODULES = {
  'list-projects': { toolsets: ['projects'], inDefault: true, load: loaded(listProjects) },
  'get-project-tools': { toolsets: ['projects'], inDefault: true, load: loaded(getProjectTools) },
  'list-messages': { toolsets: ['messages'], inDefault: true, load: loaded(listMessages) },
  'get-message': { toolsets: ['messages'], inDefault: true, load: loaded(getMessage) },
  'list-todolists': { toolsets: ['todos'], inDefault: true, load: loaded(listTodolists) },
  'list-todos': { toolsets: ['todos'], inDefault: true, load: loaded(listTodos) },
  'get-todo': { toolsets: ['todos'], inDefault: true, load: loaded(getTodo) },
  'list-comments': { toolsets: ['messages'], inDefault: true, load: loaded(listComments) },
  'list-folders': { toolsets: ['docs'], inDefault: true, load: loaded(listFolders) },
  'list-documents': { toolsets: ['docs'], inDefault: true, load: loaded(listDocuments) },
  'get-document': { toolsets: ['docs'], inDefault: true, load: loaded(getDocument) },
  'list-uploads': { toolsets: ['docs'], inDefault: true, load: loaded(listUploads) },
  'list-campfire-lines': { toolsets: ['chat'], inDefault: true, load: loaded(listCampfireLines) },
  'list-schedule-entries': { toolsets: ['schedule'], inDefault: true, load: loaded(listScheduleEntries) },
  'list-people': { toolsets: ['projects'], inDefault: true, load: loaded(listPeople) },
  search: { toolsets: ['projects'], inDefault: true, load: loaded(search) },
  'create-message': { toolsets: ['messages'], inDefault: true, load: loaded(createMessage) },
  'create-todo': { toolsets: ['todos'], inDefault: true, load: loaded(createTodo) },
  'complete-todo': { toolsets: ['todos'], inDefault: true, load: loaded(completeTodo) },
  'reopen-todo': { toolsets: ['todos'], inDefault: true, load: loaded(reopenTodo) },
  'create-comment': { toolsets: ['messages'], inDefault: true, load: loaded(createComment) },
  'post-campfire-line': { toolsets: ['chat'], inDefault: true, load: loaded(postCampfireLine) },
  'todos/update-todo': { toolsets: ['todos'], inDefault: true, load: loaded(todosUpdateTodo) },
  'todos/trash-move-todo': {
    toolsets: ['todos'],
    inDefault: false,
    load: () => import('./todos/trash-move-todo.js'),
  },
  'todos/todolists': { toolsets: ['todos'], inDefault: false, load: () => import('./todos/todolists.js') },
  'cards/get-card-table': {
    toolsets: ['cards'],
    inDefault: false,
    load: () => import('./cards/get-card-table.js'),
  },
  'cards/list-cards': { toolsets: ['cards'], inDefault: false, load: () => import('./cards/list-cards.js') },
  'cards/get-card': { toolsets: ['cards'], inDefault: false, load: () => import('./cards/get-card.js') },
  'cards/create-card': {
    toolsets: ['cards'],
    inDefault: false,
    load: () => import('./cards/create-card.js'),
  },
  'cards/update-card': {
    toolsets: ['cards'],
    inDefault: false,
    load: () => import('./cards/update-card.js'),
  },
  'cards/move-card': { toolsets: ['cards'], inDefault: false, load: () => import('./cards/move-card.js') },
  'cards/steps': { toolsets: ['cards'], inDefault: false, load: () => import('./cards/steps.js') },
  'cards/columns': { toolsets: ['cards'], inDefault: false, load: () => import('./cards/columns.js') },
  'checkins/questions': {
    toolsets: ['checkins'],
    inDefault: false,
    load: () => import('./checkins/questions.js'),
  },
  'checkins/answers': {
    toolsets: ['checkins'],
    inDefault: false,
    load: () => import('./checkins/answers.js'),
  },
  'activity/assignments': { toolsets: ['activity'], inDefault: true, load: loaded(activityAssignments) },
  'activity/recordings': {
    toolsets: ['activity'],
    inDefault: false,
    load: () => import('./activity/recordings.js'),
  },
  'edits/messages': { toolsets: ['messages'], inDefault: false, load: () => import('./edits/messages.js') },
  'edits/schedule-docs': {
    toolsets: ['schedule', 'docs'],
    inDefault: false,
    load: () => import('./edits/schedule-docs.js'),
  },
  'projects/manage': { toolsets: ['projects'], inDefault: false, load: () => import('./projects/manage.js') },
  'clients/clients': { toolsets: ['clients'], inDefault: false, load: () => import('./clients/clients.js') },
  'social/social': {
    toolsets: ['chat', 'activity'],
    inDefault: false,
    load: () => import('./social/social.js'),
  },
  'admin/admin': {
    toolsets: ['projects', 'admin'],
    inDefault: false,
    load: () => import('./admin/admin.js'),
  },
  'more/more': {
    toolsets: ['schedule', 'docs', 'messages', 'projects', 'activity'],
    inDefault: false,
    load: () => import('./more/more.js'),
  },
  'more/people': {
    toolsets: ['activity', 'projects'],
    inDefault: false,
    load: () => import('./more/people.js'),
  },
  'more/gauges': { toolsets: ['projects'], inDefault: false, load: () => import('./more/gauges.js') },
  'more/timesheets': { toolsets: ['schedule'], inDefault: false, load: () => import('./more/timesheets.js') },
  'more/progress': { toolsets: ['activity'], inDefault: false, load: () => import('./more/progress.js') },
  'more/singles': {
    toolsets: ['messages', 'chat'],
    inDefault: false,
    load: () => import('./more/singles.js'),
  },
  'todos/hill-chart': { toolsets: ['todos'], inDefault: false, load: () => import('./todos/hill-chart.js') },
  'more/me': { toolsets: ['checkins', 'projects'], inDefault: false, load: () => import('./more/me.js') },
  'projects/dock-tools': {
    toolsets: ['projects'],
    inDefault: false,
    load: () => import('./projects/dock-tools.js'),
  },
  'more/lineup': { toolsets: ['schedule'], inDefault: false, load: () => import('./more/lineup.js') },
  'admin/account': { toolsets: ['admin'], inDefault: false, load: () => import('./admin/account.js') },
  'files/uploads': {
    toolsets: ['docs', 'chat', 'admin'],
    inDefault: false,
    load: () => import('./files/uploads.js'),
  },
} as const satisfies Record<string, ModuleEntry>;

export type ToolModuleName = keyof typeof TOOL_MODULES;

/** Every tool, in `tools/list` order (that of TOOL_SPECS): its module and the name it is exported as. */
const TOOL_ORDER: readonly (readonly [ToolModuleName, string])[] = [
  ['list-projects', 'listProjects'],
  ['get-project-tools', 'getProjectTools'],
  ['list-messages', 'listMessages'],
  ['get-message', 'getMessage'],
  ['list-todolists', 'listTodolists'],
  ['list-todos', 'listTodos'],
  ['get-todo', 'getTodo'],
  ['list-comments', 'listComments'],
  ['list-folders', 'listFolders'],
  ['list-documents', 'listDocuments'],
  ['get-document', 'getDocument'],
  ['list-uploads', 'listUploads'],
  ['list-campfire-lines', 'listCampfireLines'],
  ['list-schedule-entries', 'listScheduleEntries'],
  ['list-people', 'listPeople'],
  ['search', 'search'],
  ['create-message', 'createMessage'],
  ['create-todo', 'createTodo'],
  ['complete-todo', 'completeTodo'],
  ['reopen-todo', 'reopenTodo'],
  ['create-comment', 'createComment'],
  ['post-campfire-line', 'postCampfireLine'],
  ['todos/update-todo', 'updateTodo'],
  ['todos/trash-move-todo', 'moveTodo'],
  ['todos/trash-move-todo', 'trashTodo'],
  ['todos/todolists', 'getTodolist'],
  ['todos/todolists', 'createTodolist'],
  ['todos/todolists', 'updateTodolist'],
  ['todos/todolists', 'listTodolistGroups'],
  ['todos/todolists', 'createTodolistGroup'],
  ['todos/todolists', 'moveTodolistGroup'],
  ['cards/get-card-table', 'getCardTable'],
  ['cards/list-cards', 'listCards'],
  ['cards/get-card', 'getCard'],
  ['cards/create-card', 'createCard'],
  ['cards/update-card', 'updateCard'],
  ['cards/move-card', 'moveCard'],
  ['cards/steps', 'createCardStep'],
  ['cards/steps', 'updateCardStep'],
  ['cards/steps', 'completeCardStep'],
  ['cards/steps', 'moveCardStep'],
  ['cards/columns', 'createCardColumn'],
  ['cards/columns', 'updateCardColumn'],
  ['cards/columns', 'moveCardColumn'],
  ['cards/columns', 'setCardColumnOnHold'],
  ['cards/columns', 'watchCardColumn'],
  ['checkins/questions', 'listCheckinQuestions'],
  ['checkins/questions', 'getCheckinQuestion'],
  ['checkins/answers', 'listCheckinAnswers'],
  ['checkins/answers', 'listCheckinAnswerers'],
  ['checkins/answers', 'getCheckinAnswer'],
  ['checkins/answers', 'answerCheckin'],
  ['checkins/answers', 'updateCheckinAnswer'],
  ['checkins/questions', 'createCheckinQuestion'],
  ['checkins/questions', 'updateCheckinQuestion'],
  ['activity/assignments', 'myAssignments'],
  ['activity/assignments', 'overdueTodos'],
  ['activity/recordings', 'listRecordings'],
  ['activity/recordings', 'listEvents'],
  ['activity/recordings', 'setRecordingStatus'],
  ['edits/messages', 'updateMessage'],
  ['edits/messages', 'pinMessage'],
  ['edits/messages', 'listMessageTypes'],
  ['edits/messages', 'updateComment'],
  ['edits/schedule-docs', 'createScheduleEntry'],
  ['edits/schedule-docs', 'updateScheduleEntry'],
  ['edits/schedule-docs', 'createDocument'],
  ['edits/schedule-docs', 'updateDocument'],
  ['edits/schedule-docs', 'createFolder'],
  ['edits/schedule-docs', 'renameFolder'],
  ['edits/schedule-docs', 'updateUpload'],
  ['projects/manage', 'getPerson'],
  ['projects/manage', 'createProject'],
  ['projects/manage', 'updateProject'],
  ['projects/manage', 'updateProjectAccess'],
  ['projects/manage', 'trashProject'],
  ['clients/clients', 'listClientItems'],
  ['clients/clients', 'getClientItem'],
  ['clients/clients', 'listClientReplies'],
  ['clients/clients', 'setClientVisibility'],
  ['clients/clients', 'listEmailForwards'],
  ['clients/clients', 'getEmailForward'],
  ['clients/clients', 'listForwardReplies'],
  ['clients/clients', 'replyToForward'],
  ['social/social', 'listChats'],
  ['social/social', 'deleteCampfireLine'],
  ['social/social', 'getSubscribers'],
  ['social/social', 'updateSubscribers'],
  ['social/social', 'listBoosts'],
  ['social/social', 'boost'],
  ['social/social', 'deleteBoost'],
  ['admin/admin', 'createProjectFromTemplate'],
  ['admin/admin', 'getProjectConstruction'],
  ['admin/admin', 'listWebhooks'],
  ['admin/admin', 'createWebhook'],
  ['admin/admin', 'updateWebhook'],
  ['admin/admin', 'deleteWebhook'],
  ['admin/admin', 'listTemplates'],
  ['admin/admin', 'createTemplate'],
  ['admin/admin', 'renameTemplate'],
  ['admin/admin', 'trashTemplate'],
  ['more/more', 'getScheduleEntry'],
  ['more/more', 'upcomingSchedule'],
  ['more/more', 'getUpload'],
  ['more/more', 'createMessageType'],
  ['more/more', 'updateMessageType'],
  ['more/more', 'deleteMessageType'],
  ['more/more', 'listPingablePeople'],
  ['more/more', 'assignedTodos'],
  ['more/people', 'myNotifications'],
  ['more/people', 'markNotificationsRead'],
  ['more/people', 'outOfOffice'],
  ['more/gauges', 'listGauges'],
  ['more/gauges', 'setGauge'],
  ['more/gauges', 'listGaugeNeedles'],
  ['more/gauges', 'addGaugeNeedle'],
  ['more/gauges', 'updateGaugeNeedle'],
  ['more/gauges', 'deleteGaugeNeedle'],
  ['more/timesheets', 'listTimesheet'],
  ['more/timesheets', 'getTimeEntry'],
  ['more/timesheets', 'logTime'],
  ['more/timesheets', 'updateTimeEntry'],
  ['more/progress', 'latestActivity'],
  ['more/singles', 'getComment'],
  ['more/singles', 'getChatLine'],
  ['todos/hill-chart', 'getHillChart'],
  ['todos/hill-chart', 'trackOnHillChart'],
  ['more/me', 'listCheckinReminders'],
  ['more/me', 'myPreferences'],
  ['more/me', 'updateMyProfile'],
  ['projects/dock-tools', 'updateProjectTool'],
  ['projects/dock-tools', 'addProjectTool'],
  ['more/lineup', 'updateScheduleSettings'],
  ['more/lineup', 'listLineupMarkers'],
  ['more/lineup', 'createLineupMarker'],
  ['more/lineup', 'updateLineupMarker'],
  ['more/lineup', 'deleteLineupMarker'],
  ['admin/account', 'getAccount'],
  ['admin/account', 'renameAccount'],
  ['admin/account', 'listChatbots'],
  ['admin/account', 'createChatbot'],
  ['admin/account', 'updateChatbot'],
  ['admin/account', 'deleteChatbot'],
  ['files/uploads', 'uploadFile'],
  ['files/uploads', 'attachFile'],
  ['files/uploads', 'listChatUploads'],
  ['files/uploads', 'uploadChatFile'],
  ['files/uploads', 'setAccountLogo'],
  ['files/uploads', 'removeAccountLogo'],
];

/** The modules a choice of toolsets needs (every module for `all`). */
export function modulesFor(selection: ToolsetSelection | 'all'): ToolModuleName[] {
  return (Object.keys(TOOL_MODULES) as ToolModuleName[]).filter((name) => {
    if (selection === 'all') return true;
    const entry: ModuleEntry = TOOL_MODULES[name];
    return (
      (selection.default && entry.inDefault) ||
      entry.toolsets.some((toolset) => selection.toolsets.has(toolset))
    );
  });
}

/**
 * The specs of the modules `selection` needs, in `tools/list` order: every tool of those modules
 * (the provider picks the served ones with `selects`, as it does from TOOL_SPECS).
 */
export async function loadToolSpecs(selection: ToolsetSelection | 'all'): Promise<BasecampToolSpec[]> {
  const names = modulesFor(selection);
  const modules = new Map<ToolModuleName, ToolModule>(
    await Promise.all(
      names.map(async (name) => [name, await (TOOL_MODULES[name] as ModuleEntry).load()] as const),
    ),
  );
  return TOOL_ORDER.flatMap(([name, exported]) => {
    const module = modules.get(name);
    return module ? [module[exported] as BasecampToolSpec] : [];
  });
}
