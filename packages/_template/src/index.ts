import type { ToolProvider } from '@x/mcp-core';
import { TemplateRuntime } from './runtime.js';
import type { TemplateSettings } from './settings.js';
import { createNoteTool } from './tools/create-note.js';
import { getNoteTool } from './tools/get-note.js';
import { listNotesTool } from './tools/list-notes.js';
import { VERSION } from './version.js';

/**
 * The Notes tools. Building the provider does no I/O and reads no settings: the runtime resolves
 * them when a tool first runs.
 */
export function createTemplateProvider(settings: TemplateSettings = {}): ToolProvider {
  const runtime = new TemplateRuntime(settings);
  return {
    id: 'template',
    version: VERSION,
    tools: [listNotesTool(runtime), getNoteTool(runtime), createNoteTool(runtime)],
  };
}

export type { TemplateSettings } from './settings.js';
export { VERSION } from './version.js';
