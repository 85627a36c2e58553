import type { BasecampToolSpec } from '../toolsets.js';
import { completeTodo } from './complete-todo.js';
import { createComment } from './create-comment.js';
import { createMessage } from './create-message.js';
import { createTodo } from './create-todo.js';
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
import { postCampfireLine } from './post-campfire-line.js';
import { reopenTodo } from './reopen-todo.js';
import { search } from './search.js';

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
];
