import type { BasecampToolSpec } from '../toolsets.js';
import { myAssignments, overdueTodos } from './activity/assignments.js';
import { listEvents, listRecordings, setRecordingStatus } from './activity/recordings.js';
import {
  createChatbot,
  deleteChatbot,
  getAccount,
  listChatbots,
  renameAccount,
  updateChatbot,
} from './admin/account.js';
import {
  createProjectFromTemplate,
  createTemplate,
  createWebhook,
  deleteWebhook,
  getProjectConstruction,
  listTemplates,
  listWebhooks,
  renameTemplate,
  trashTemplate,
  updateWebhook,
} from './admin/admin.js';
import {
  createCardColumn,
  moveCardColumn,
  setCardColumnOnHold,
  updateCardColumn,
  watchCardColumn,
} from './cards/columns.js';
import { createCard } from './cards/create-card.js';
import { getCard } from './cards/get-card.js';
import { getCardTable } from './cards/get-card-table.js';
import { listCards } from './cards/list-cards.js';
import { moveCard } from './cards/move-card.js';
import { completeCardStep, createCardStep, moveCardStep, updateCardStep } from './cards/steps.js';
import { updateCard } from './cards/update-card.js';
import {
  answerCheckin,
  getCheckinAnswer,
  listCheckinAnswerers,
  listCheckinAnswers,
  updateCheckinAnswer,
} from './checkins/answers.js';
import {
  createCheckinQuestion,
  getCheckinQuestion,
  listCheckinQuestions,
  updateCheckinQuestion,
} from './checkins/questions.js';
import {
  getClientItem,
  getEmailForward,
  listClientItems,
  listClientReplies,
  listEmailForwards,
  listForwardReplies,
  replyToForward,
  setClientVisibility,
} from './clients/clients.js';
import { completeTodo } from './complete-todo.js';
import { createComment } from './create-comment.js';
import { createMessage } from './create-message.js';
import { createTodo } from './create-todo.js';
import { listMessageTypes, pinMessage, updateComment, updateMessage } from './edits/messages.js';
import {
  createDocument,
  createFolder,
  createScheduleEntry,
  renameFolder,
  updateDocument,
  updateScheduleEntry,
  updateUpload,
} from './edits/schedule-docs.js';
import {
  attachFile,
  listChatUploads,
  removeAccountLogo,
  setAccountLogo,
  uploadChatFile,
  uploadFile,
} from './files/uploads.js';
import { getDocument } from './get-document.js';
import { getMessage } from './get-message.js';
import { getProjectTools } from './get-project-tools.js';
import { getTodo } from './get-todo.js';
import { listCampfireLines } from './list-campfire-lines.js';
import { listComments } from './list-comments.js';
import { listDocuments } from './list-documents.js';
import { listFolders } from './list-folders.js';
import { listMessages } from './list-messages.js';
import { listPeople } from './list-people.js';
import { listProjects } from './list-projects.js';
import { listScheduleEntries } from './list-schedule-entries.js';
import { listTodolists } from './list-todolists.js';
import { listTodos } from './list-todos.js';
import { listUploads } from './list-uploads.js';
import {
  addGaugeNeedle,
  deleteGaugeNeedle,
  listGaugeNeedles,
  listGauges,
  setGauge,
  updateGaugeNeedle,
} from './more/gauges.js';
import {
  createLineupMarker,
  deleteLineupMarker,
  listLineupMarkers,
  updateLineupMarker,
  updateScheduleSettings,
} from './more/lineup.js';
import { listCheckinReminders, myPreferences, updateMyProfile } from './more/me.js';
import {
  assignedTodos,
  createMessageType,
  deleteMessageType,
  getScheduleEntry,
  getUpload,
  listPingablePeople,
  upcomingSchedule,
  updateMessageType,
} from './more/more.js';
import { markNotificationsRead, myNotifications, outOfOffice } from './more/people.js';
import { latestActivity } from './more/progress.js';
import { getChatLine, getComment } from './more/singles.js';
import { getTimeEntry, listTimesheet, logTime, updateTimeEntry } from './more/timesheets.js';
import { postCampfireLine } from './post-campfire-line.js';
import { addProjectTool, updateProjectTool } from './projects/dock-tools.js';
import {
  createProject,
  getPerson,
  trashProject,
  updateProject,
  updateProjectAccess,
} from './projects/manage.js';
import { reopenTodo } from './reopen-todo.js';
import { search } from './search.js';
import {
  boost,
  deleteBoost,
  deleteCampfireLine,
  getSubscribers,
  listBoosts,
  listChats,
  updateSubscribers,
} from './social/social.js';
import { getHillChart, trackOnHillChart } from './todos/hill-chart.js';
import {
  createTodolist,
  createTodolistGroup,
  getTodolist,
  listTodolistGroups,
  moveTodolistGroup,
  updateTodolist,
} from './todos/todolists.js';
import { moveTodo, trashTodo } from './todos/trash-move-todo.js';
import { updateTodo } from './todos/update-todo.js';

/** Every Basecamp tool, in the order `tools/list` shows them. */
export const TOOL_SPECS: readonly BasecampToolSpec[] = [
  listProjects,
  getProjectTools,
  listMessages,
  getMessage,
  listTodolists,
  listTodos,
  getTodo,
  listComments,
  listFolders,
  listDocuments,
  getDocument,
  listUploads,
  listCampfireLines,
  listScheduleEntries,
  listPeople,
  search,
  createMessage,
  createTodo,
  completeTodo,
  reopenTodo,
  createComment,
  postCampfireLine,
  updateTodo,
  moveTodo,
  trashTodo,
  getTodolist,
  createTodolist,
  updateTodolist,
  listTodolistGroups,
  createTodolistGroup,
  moveTodolistGroup,
  getCardTable,
  listCards,
  getCard,
  createCard,
  updateCard,
  moveCard,
  createCardStep,
  updateCardStep,
  completeCardStep,
  moveCardStep,
  createCardColumn,
  updateCardColumn,
  moveCardColumn,
  setCardColumnOnHold,
  watchCardColumn,
  listCheckinQuestions,
  getCheckinQuestion,
  listCheckinAnswers,
  listCheckinAnswerers,
  getCheckinAnswer,
  answerCheckin,
  updateCheckinAnswer,
  createCheckinQuestion,
  updateCheckinQuestion,
  myAssignments,
  overdueTodos,
  listRecordings,
  listEvents,
  setRecordingStatus,
  updateMessage,
  pinMessage,
  listMessageTypes,
  updateComment,
  createScheduleEntry,
  updateScheduleEntry,
  createDocument,
  updateDocument,
  createFolder,
  renameFolder,
  updateUpload,
  getPerson,
  createProject,
  updateProject,
  updateProjectAccess,
  trashProject,
  listClientItems,
  getClientItem,
  listClientReplies,
  setClientVisibility,
  listEmailForwards,
  getEmailForward,
  listForwardReplies,
  replyToForward,
  listChats,
  deleteCampfireLine,
  getSubscribers,
  updateSubscribers,
  listBoosts,
  boost,
  deleteBoost,
  createProjectFromTemplate,
  getProjectConstruction,
  listWebhooks,
  createWebhook,
  updateWebhook,
  deleteWebhook,
  listTemplates,
  createTemplate,
  renameTemplate,
  trashTemplate,
  getScheduleEntry,
  upcomingSchedule,
  getUpload,
  createMessageType,
  updateMessageType,
  deleteMessageType,
  listPingablePeople,
  assignedTodos,
  myNotifications,
  markNotificationsRead,
  outOfOffice,
  listGauges,
  setGauge,
  listGaugeNeedles,
  addGaugeNeedle,
  updateGaugeNeedle,
  deleteGaugeNeedle,
  listTimesheet,
  getTimeEntry,
  logTime,
  updateTimeEntry,
  latestActivity,
  getComment,
  getChatLine,
  getHillChart,
  trackOnHillChart,
  listCheckinReminders,
  myPreferences,
  updateMyProfile,
  updateProjectTool,
  addProjectTool,
  updateScheduleSettings,
  listLineupMarkers,
  createLineupMarker,
  updateLineupMarker,
  deleteLineupMarker,
  getAccount,
  renameAccount,
  listChatbots,
  createChatbot,
  updateChatbot,
  deleteChatbot,
  uploadFile,
  attachFile,
  listChatUploads,
  uploadChatFile,
  setAccountLogo,
  removeAccountLogo,
];
