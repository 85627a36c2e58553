/**
 * The Basecamp provider, built from the tool specs it is given: all of them (`createBasecampProvider`,
 * index.ts) or only the modules of the served toolsets (`loadBasecampProvider`, load.ts).
 */
import {
  type AnyToolDefinition,
  McpToolError,
  type ReadinessCheck,
  type ToolProvider,
  type ToolsetInfo,
  toolRef,
} from '@x/mcp-core';
import { checkReachable } from '@x/mcp-core/upstream';
import { parseProjects } from './client/projects.js';
import { DockResolver } from './dock.js';
import { basecampResources } from './resources.js';
import { BasecampClient } from './runtime.js';
import type { BasecampSettings } from './settings.js';
import { createDeps } from './tools/shared.js';
import { TOOLSET_TOOL_NAMES } from './toolset-names.js';
import {
  type BasecampToolSpec,
  parseToolsets,
  selects,
  TOOLSET_NAMES,
  TOOLSETS,
  type ToolsetSelection,
} from './toolsets.js';
import { VERSION } from './version.js';

const CONTRACT =
  `Basecamp for an agent. Start with ${toolRef('list_projects')}: every project-scoped tool takes its project_id (the number after /projects/ in a Basecamp URL; never a tool or dock ID: those are found for you), plus the content IDs from a list tool, e.g. ${toolRef('get_message')} {project_id, message_id}, ${toolRef('list_todos')} {project_id, todolist_id}, ${toolRef('get_todo')} {project_id, todo_id}. On tools for one item project_id may be left out; when given, the item must be in that project. ` +
  'Bodies come back as Markdown and are written as Markdown (bold, italic, strike, links, lists, quotes, code blocks and tables are kept; one heading size; a table shows as aligned text). ' +
  'Lists take page (from next_page) and limit, and say has_more / next_page.';

/**
 * The contract, and which toolsets this server has (and which it could have), so an agent can
 * enable one (dynamic toolsets) or tell the user.
 */
function instructions(
  selection: ToolsetSelection,
  dynamic: boolean,
  projects: readonly number[] | undefined,
): string {
  const served = TOOLSET_NAMES.filter((name) => selection.toolsets.has(name));
  const others = TOOLSET_NAMES.filter((name) => !selection.toolsets.has(name));
  const parts = [CONTRACT];
  if (projects) {
    parts.push(
      `Limited to projects ${projects.length > 0 ? projects.join(', ') : '(none)'}: always pass project_id; other projects are refused.`,
    );
  }
  if (served.length > 0) parts.push(`Toolsets served: ${served.join(', ')}.`);
  if (others.length > 0) {
    const how = dynamic
      ? `enable one with ${toolRef('enable_toolset')} when a task needs it; ${toolRef('list_toolsets')} lists their tools`
      : 'the user can add them with --toolsets or BASECAMP_TOOLSETS';
    parts.push(`Not served (${how}): ${others.map((name) => `${name} (${TOOLSETS[name]})`).join('; ')}.`);
  }
  return parts.join(' ');
}

/**
 * Every toolset with the names of all its tools, served or not, from src/toolset-names.ts
 * (generated from the specs), so that nothing unserved is built at start-up.
 */
const TOOLSET_INFO: readonly ToolsetInfo[] = TOOLSET_NAMES.map((name) => ({
  name,
  description: TOOLSETS[name],
  tools: TOOLSET_TOOL_NAMES[name],
})).filter((toolset) => toolset.tools.length > 0);

/** `1`, `true`, `yes` and `on` switch a flag variable on. */
const isOn = (value: string | undefined): boolean =>
  value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());

/** The toolsets these settings serve, and whether toolsets can be enabled while connected. */
export function servedToolsets(settings: BasecampSettings): {
  selection: ToolsetSelection;
  dynamic: boolean;
} {
  const env = settings.env ?? process.env;
  return {
    selection: parseToolsets(settings.toolsets ?? env.BASECAMP_TOOLSETS),
    dynamic: settings.dynamicToolsets ?? isOn(env.BASECAMP_DYNAMIC_TOOLSETS),
  };
}

/**
 * The Basecamp provider from `specs`, which hold at least every tool it serves (every tool with
 * dynamic toolsets). Nothing is read or fetched here: settings, the environment and the login
 * file are read when a tool first runs.
 */
export function buildBasecampProvider(
  settings: BasecampSettings,
  specs: readonly BasecampToolSpec[],
): ToolProvider {
  const env = settings.env ?? process.env;
  const { selection, dynamic } = servedToolsets(settings);
  // Read now (for the instructions), and again by the client on first use.
  const projects = parseProjects(settings.projects, env.BASECAMP_PROJECTS);
  const client = new BasecampClient(settings);
  const deps = createDeps(client, new DockResolver(client));
  const created = new Map<BasecampToolSpec, AnyToolDefinition>();
  const create = (spec: BasecampToolSpec) => {
    let tool = created.get(spec);
    if (!tool) {
      tool = spec.create(deps);
      created.set(spec, tool);
    }
    return tool;
  };
  const tools = specs.filter((spec) => selects(selection, spec)).map(create);
  return {
    id: 'basecamp',
    version: VERSION,
    instructions: instructions(selection, dynamic, projects ? [...projects.ids] : undefined),
    toolsets: TOOLSET_INFO,
    ...(dynamic
      ? {
          loadToolset: (name: string) =>
            specs.filter((spec) => spec.toolset === name).map((spec) => create(spec)),
        }
      : {}),
    resources: basecampResources(deps, new Set(tools.map((tool) => tool.name))),
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
    tools,
  };
}
