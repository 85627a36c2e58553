import { McpToolError, type ReadinessCheck, type ToolProvider, toolRef } from '@x/mcp-core';
import { checkReachable } from '@x/mcp-core/upstream';
import { createListPrompt } from './prompts/list.js';
import { createTicketPrompts } from './prompts/workflow.js';
import { createTicketResource } from './resources/ticket.js';
import { ForgeClient } from './runtime.js';
import type { ForgeSettings } from './settings.js';
import { createGetFileChanges } from './tools/get-file-changes.js';
import { createGetRepositoryContext } from './tools/get-repository-context.js';
import { createGetTicketContext } from './tools/get-ticket-context.js';
import { createListTickets } from './tools/list-tickets.js';
import { createReportDecision } from './tools/report-decision.js';
import { createReportRisk } from './tools/report-risk.js';
import { createReportScopeChange } from './tools/report-scope-change.js';
import { createStartImplementation } from './tools/start-implementation.js';
import { createSubmitReviewSession } from './tools/submit-review-session.js';
import { createSubmitSettlement } from './tools/submit-settlement.js';
import { createUpdateTicketStatus } from './tools/update-ticket-status.js';
import { VERSION } from './version.js';

const INSTRUCTIONS =
  `Forge tickets for a coding agent. ${toolRef('list_tickets')} gives the ticket ids every other tool takes. ` +
  `Read a ticket with ${toolRef('get_ticket_context')} (or just its files with ${toolRef('get_file_changes')}) and the local git state with ${toolRef('get_repository_context')}. ` +
  `Review: ${toolRef('submit_review_session')}. Implement: ${toolRef('start_implementation')} (branch "forge/..."), then ${toolRef('report_decision')}, ${toolRef('report_risk')} and ${toolRef('report_scope_change')} as you go, and ${toolRef('submit_settlement')} when done. ` +
  `${toolRef('update_ticket_status')} moves a ticket through its lifecycle.`;

/**
 * The Forge tools, the workflow prompts (list, execute, develop, review, exec) and the ticket
 * resource (`forge://tickets/{ticketId}`). Nothing is read or fetched here: settings, the environment and the login
 * file are read when a tool first runs.
 */
export function createForgeProvider(settings: ForgeSettings = {}): ToolProvider {
  const client = new ForgeClient(settings);
  return {
    id: 'forge',
    version: VERSION,
    instructions: INSTRUCTIONS,
    tools: [
      createListTickets(client),
      createGetTicketContext(client),
      createGetFileChanges(client),
      createGetRepositoryContext(() => settings.cwd ?? process.cwd()),
      createUpdateTicketStatus(client),
      createSubmitReviewSession(client),
      createStartImplementation(client),
      createReportDecision(client),
      createReportRisk(client),
      createReportScopeChange(client),
      createSubmitSettlement(client),
    ],
    prompts: [createListPrompt(client), ...createTicketPrompts(client)],
    resources: [createTicketResource(client)],
    // Ready with a login (file or environment) and an API that answers; no ticket is read.
    checkReadiness: async ({ signal }) => {
      let credentials: ReadinessCheck;
      try {
        await client.teamId();
        credentials = { name: 'credentials', ok: true, detail: 'a Forge login is available' };
      } catch (error) {
        const detail = McpToolError.isInstance(error) ? error.message : 'the Forge login could not be read';
        credentials = { name: 'credentials', ok: false, detail };
      }
      const settings = client.settings;
      const upstream = await checkReachable('upstream', settings.apiUrl, { signal, fetch: settings.fetch });
      return { ready: credentials.ok && upstream.ok, checks: [credentials, upstream] };
    },
  };
}

export { type ForgeConfig, readConfig, removeConfig, writeConfig } from './auth/config-file.js';
export type { ForgeCredentials } from './auth/credentials.js';
export { type LoginOptions, type LoginResult, login, logout } from './auth/login.js';
export { ForgeClient, type RequestOptions } from './runtime.js';
export { DEFAULT_API_URL, defaultConfigPath, type ForgeSettings } from './settings.js';
export { normalizeTicket } from './tickets/normalize.js';
export type { FileChange, TicketContext, TicketSummary } from './tickets/schema.js';
export {
  SETTABLE_STATUSES,
  type SettableStatus,
  TICKET_STATUSES,
  type TicketStatus,
} from './tickets/status.js';
export { VERSION } from './version.js';
