import { checkReachable, McpToolError, type ReadinessCheck, type ToolProvider } from '@x/mcp-core';
import { BasecampClient } from './client/client.js';
import { DockResolver } from './dock.js';
import type { BasecampSettings } from './settings.js';
import { createCompleteTodo } from './tools/complete-todo.js';
import { createCreateComment } from './tools/create-comment.js';
import { createCreateMessage } from './tools/create-message.js';
import { createCreateTodo } from './tools/create-todo.js';
import { createGetDocument } from './tools/get-document.js';
import { createGetMessage } from './tools/get-message.js';
import { createGetProjectTools } from './tools/get-project-tools.js';
import { createGetTodo } from './tools/get-todo.js';
import { createListCampfireLines } from './tools/list-campfire-lines.js';
import { createListComments } from './tools/list-comments.js';
import { createListDocuments } from './tools/list-documents.js';
import { createListFolders } from './tools/list-folders.js';
import { createListMessages } from './tools/list-messages.js';
import { createListPeople } from './tools/list-people.js';
import { createListProjects } from './tools/list-projects.js';
import { createListScheduleEntries } from './tools/list-schedule-entries.js';
import { createListTodolists } from './tools/list-todolists.js';
import { createListTodos } from './tools/list-todos.js';
import { createListUploads } from './tools/list-uploads.js';
import { createPostCampfireLine } from './tools/post-campfire-line.js';
import { createReopenTodo } from './tools/reopen-todo.js';
import { createSearch } from './tools/search.js';
import { createDeps } from './tools/shared.js';
import { VERSION } from './version.js';

const INSTRUCTIONS =
  'Basecamp for an agent. Start with list_projects: every project-scoped tool takes its project_id (never a tool or dock ID: those are found for you), plus the content IDs from a list tool, e.g. get_message {project_id, message_id}, list_todos {project_id, todolist_id}, get_todo {project_id, todo_id}. On tools for one item project_id may be left out; when given, the item must be in that project. ' +
  'Read: list_messages/get_message, list_todolists/list_todos/get_todo, list_folders/list_documents/get_document, list_uploads, list_campfire_lines, list_schedule_entries, list_comments (any item), list_people, search. ' +
  'Write: create_message, create_todo, complete_todo, reopen_todo, create_comment, post_campfire_line. ' +
  'Bodies come back as Markdown and are written as Markdown. Lists take page and limit and say has_more / next_page.';

export interface BasecampProvider extends ToolProvider {
  /** The client the tools share (request counters in `client.stats`). */
  client: BasecampClient;
}

/**
 * The Basecamp tools. Nothing is read or fetched here: settings, the environment and the login
 * file are read when a tool first runs.
 */
export function createBasecampProvider(settings: BasecampSettings = {}): BasecampProvider {
  const client = new BasecampClient(settings);
  const deps = createDeps(client, new DockResolver(client));
  return {
    id: 'basecamp',
    version: VERSION,
    instructions: INSTRUCTIONS,
    client,
    // Ready with credentials (login file or environment) and an API that answers; nothing is read.
    checkReadiness: async ({ signal }) => {
      let credentials: ReadinessCheck;
      try {
        const accountId = await client.accountId();
        credentials = { name: 'credentials', ok: true, detail: `a Basecamp login for account ${accountId}` };
      } catch (error) {
        const detail = McpToolError.isInstance(error)
          ? error.message
          : 'the Basecamp login could not be read';
        credentials = { name: 'credentials', ok: false, detail };
      }
      let upstream: ReadinessCheck;
      try {
        const settings = client.settings;
        upstream = await checkReachable('upstream', settings.apiUrl, { signal, fetch: settings.fetch });
      } catch (error) {
        upstream = {
          name: 'upstream',
          ok: false,
          detail: McpToolError.isInstance(error) ? error.message : 'invalid settings',
        };
      }
      return { ready: credentials.ok && upstream.ok, checks: [credentials, upstream] };
    },
    tools: [
      createListProjects(deps),
      createGetProjectTools(deps),
      createListMessages(deps),
      createGetMessage(deps),
      createListTodolists(deps),
      createListTodos(deps),
      createGetTodo(deps),
      createListComments(deps),
      createListFolders(deps),
      createListDocuments(deps),
      createGetDocument(deps),
      createListUploads(deps),
      createListCampfireLines(deps),
      createListScheduleEntries(deps),
      createListPeople(deps),
      createSearch(deps),
      createCreateMessage(deps),
      createCreateTodo(deps),
      createCompleteTodo(deps),
      createReopenTodo(deps),
      createCreateComment(deps),
      createPostCampfireLine(deps),
    ],
  };
}

export type { BasecampCredentials } from './auth/credentials.js';
export { type Authorization, LaunchpadError, type TokenResponse } from './auth/launchpad.js';
export {
  LoginError,
  type LoginOptions,
  type LoginResult,
  type LogoutResult,
  login,
  logout,
} from './auth/login.js';
export { readLogin, removeLogin, type StoredLogin, writeLogin } from './auth/token-file.js';
export {
  type ApiResponse,
  BasecampClient,
  type ClientStats,
  type ListPage,
  type RequestOptions,
} from './client/client.js';
export { EtagCache } from './client/etag-cache.js';
export { SlidingWindowLimiter } from './client/limiter.js';
export { excerpt } from './markdown/excerpt.js';
export {
  type HtmlToMarkdown,
  type HtmlToMarkdownOptions,
  loadHtmlToMarkdown,
  MAX_HTML_CHARS,
} from './markdown/html-to-markdown.js';
export { loadMarkdownToHtml, type MarkdownToHtml, markdownToHtml } from './markdown/markdown-to-html.js';
export {
  type BasecampSettings,
  DEFAULT_API_URL,
  DEFAULT_LAUNCHPAD_URL,
  DEFAULT_REDIRECT_URI,
  defaultTokenFile,
} from './settings.js';
export { VERSION } from './version.js';
