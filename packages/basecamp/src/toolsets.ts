import { type AnyToolDefinition, ConfigError } from '@x/mcp-core';
import type { ToolDeps } from './tools/shared.js';

/** The groups tools are served in; `--toolsets` / `BASECAMP_TOOLSETS` picks them. */
export const TOOLSETS = {
  projects: 'Projects, their tools (dock), people, your profile and search',
  todos: 'To-do lists, groups and to-dos: create, update, assign, reschedule, move, complete, trash',
  messages: 'Message boards, messages, message types and comments',
  docs: 'Docs & Files: folders, documents, uploads and attaching files',
  schedule: 'Schedules and their entries, timesheets, Lineup markers',
  cards: 'Card tables (Kanban): columns, cards, steps, moving cards',
  checkins: 'Automatic check-ins: questions and answers',
  chat: 'Campfire chats, their lines and files',
  clients: 'Client approvals, correspondences and replies, email forwards',
  activity: 'Events, assignments and recordings across projects (archive, trash, restore)',
  admin: 'Account administration: the account, its logo, chatbots, webhooks, templates',
} as const;

export type ToolsetName = keyof typeof TOOLSETS;
export const TOOLSET_NAMES = Object.keys(TOOLSETS) as ToolsetName[];

/**
 * One Basecamp tool with what it belongs to: its toolset, whether it is in the default set, and
 * the OpenAPI operations (`operationId`s of the bc3 API) it sends requests to. The coverage table
 * and the contract test read these.
 */
export interface BasecampToolSpec {
  toolset: ToolsetName;
  /** In the small default set served when no toolset is chosen. */
  inDefault: boolean;
  operations: readonly string[];
  create(deps: ToolDeps): AnyToolDefinition;
}

export function basecampTool(
  meta: { toolset: ToolsetName; operations: readonly string[]; inDefault?: boolean },
  create: (deps: ToolDeps) => AnyToolDefinition,
): BasecampToolSpec {
  return { ...meta, inDefault: meta.inDefault ?? false, create };
}

/** What a toolset choice selects: `default`, `all`, or toolset names, comma-separated or as a list. */
export interface ToolsetSelection {
  default: boolean;
  toolsets: ReadonlySet<ToolsetName>;
}

/**
 * Reads a toolset choice (`"default,cards"`, `["todos"]`, `"all"`). Nothing chosen means
 * `default`. An unknown name is a configuration error naming the known ones.
 */
export function parseToolsets(value: string | readonly string[] | undefined): ToolsetSelection {
  const names = (typeof value === 'string' ? value.split(',') : (value ?? []))
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (names.length === 0) return { default: true, toolsets: new Set() };
  const chosen = new Set<ToolsetName>();
  let withDefault = false;
  for (const name of names) {
    if (name === 'all') for (const each of TOOLSET_NAMES) chosen.add(each);
    else if (name === 'default') withDefault = true;
    else if (name in TOOLSETS) chosen.add(name as ToolsetName);
    else {
      throw new ConfigError(
        `Unknown Basecamp toolset "${name.slice(0, 40)}" (in --toolsets / BASECAMP_TOOLSETS). Known: default, all, ${TOOLSET_NAMES.join(', ')}.`,
      );
    }
  }
  return { default: withDefault, toolsets: chosen };
}

export function selects(selection: ToolsetSelection, spec: BasecampToolSpec): boolean {
  return (selection.default && spec.inDefault) || selection.toolsets.has(spec.toolset);
}
