import type { ToolProvider } from '@x/mcp-core';
import { buildBasecampProvider } from './provider.js';
import type { BasecampSettings } from './settings.js';
import { TOOL_SPECS } from './tools/index.js';

/**
 * The Basecamp tools. Nothing is read or fetched here: settings, the environment and the login
 * file are read when a tool first runs. Every tool's code is loaded; `loadBasecampProvider`
 * loads only the served toolsets' (what the bin does).
 */
export function createBasecampProvider(settings: BasecampSettings = {}): ToolProvider {
  return buildBasecampProvider(settings, TOOL_SPECS);
}

export type { BasecampCredentials } from './auth/credentials.js';
export { LaunchpadError } from './auth/launchpad.js';
export {
  LoginError,
  type LoginOptions,
  type LoginResult,
  type LogoutResult,
  login,
  logout,
} from './auth/login.js';
export { loadBasecampProvider } from './load.js';
export { excerpt } from './markdown/excerpt.js';
export {
  type HtmlToMarkdown,
  type HtmlToMarkdownOptions,
  loadHtmlToMarkdown,
  MAX_HTML_CHARS,
} from './markdown/html-to-markdown.js';
export { markdownToHtml } from './markdown/markdown-to-html.js';
export type { BasecampSettings } from './settings.js';
export { TOOLSET_NAMES, type ToolsetName } from './toolsets.js';
export { VERSION } from './version.js';
