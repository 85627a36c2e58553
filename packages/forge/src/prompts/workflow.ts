import { definePrompt, type PromptDefinition } from '@x/mcp-core';
import { z } from 'zod';
import type { ForgeClient } from '../runtime.js';
import { withAssigneeName } from '../tickets/assignees.js';
import { ticketMarkdown } from '../tickets/markdown.js';
import { normalizeTicket } from '../tickets/normalize.js';
import { ticketIdSchema, ticketPath } from '../tools/shared.js';
import { ticketIdCompleter } from './ticket-ids.js';

type ToolName = (ownName: string) => string;

/** One role in the Forge workflow: what the model is asked to do with the ticket below. */
interface Role {
  name: string;
  title: string;
  description: string;
  /** The tools the guide tells the model to call; the prompt is served only with all of them. */
  tools: readonly string[];
  guide: (tool: ToolName, ticketId: string) => string;
}

const EXECUTE: Role = {
  name: 'execute',
  title: 'Execute a Forge ticket',
  description:
    'Implement a Forge ticket end to end: plan against its acceptance criteria, start the forge/ branch, report decisions, risks and scope changes while coding, verify, and settle. The full ticket is included.',
  tools: [
    'get_ticket_context',
    'get_repository_context',
    'start_implementation',
    'report_decision',
    'report_risk',
    'report_scope_change',
    'submit_settlement',
  ],
  guide: (
    tool,
    id,
  ) => `You are implementing Forge ticket ${id}. The ticket, as Forge holds it now, is at the end of this message.

Work in this order:
1. Understand. Read the description, the problem and the proposed solution. Every numbered acceptance criterion is a promise you must keep; the file changes and the test plan are the spec's best guess, not a cage. If something in the ticket contradicts itself or the code, say so before writing code.
2. Look at the code. Call ${tool('get_repository_context')} to see the branch, uncommitted work and the file tree; read the files the ticket names before changing them.
3. Plan. Write a short plan that maps each acceptance criterion to the change that satisfies it and to the check that proves it. Ask the developer only what the ticket and the code cannot answer.
4. Start. Call ${tool('start_implementation')} with a branch name that starts with "forge/" (for example "forge/${id}-short-summary"); it moves the ticket to executing.
5. Implement in small steps. Whenever you choose between real alternatives, call ${tool('report_decision')} with the choice and why. When you see something that could break, leak or slip, call ${tool('report_risk')} with a severity. When the work must differ from the ticket (more, less or different files or behaviour), call ${tool('report_scope_change')} with the reason before you do it.
6. Verify. Run the tests and the checks the test plan asks for, and walk every acceptance criterion again; nothing counts as done until it is shown to work.
7. Settle. Call ${tool('submit_settlement')} with a summary of what was built, the files changed and the pull request URL if there is one. It moves the ticket to delivered.

If you need the ticket again later (it may change), call ${tool('get_ticket_context')}.`,
};

const EXEC: Role = {
  name: 'exec',
  title: 'Execute a Forge ticket (short)',
  description:
    'The short form of execute for small, clear tickets: a checklist instead of the full guide, with the full ticket included.',
  tools: [
    'start_implementation',
    'report_decision',
    'report_risk',
    'report_scope_change',
    'submit_settlement',
  ],
  guide: (tool, id) => `Implement Forge ticket ${id} (below). Checklist:
- Meet every numbered acceptance criterion; read the named files first.
- Start with ${tool('start_implementation')} on a branch named "forge/…".
- Report choices with ${tool('report_decision')}, dangers with ${tool('report_risk')}, and any change of scope with ${tool('report_scope_change')}, as they happen.
- Run the tests, check each criterion, then finish with ${tool('submit_settlement')} (summary, files changed, PR URL).`,
};

const DEVELOP: Role = {
  name: 'develop',
  title: 'Prepare a Forge ticket for implementation',
  description:
    'Prepare a Forge ticket with the developer before any code is written: check the spec against the code, settle open questions in a short Q&A, and start the forge/ branch with the answers recorded. The full ticket is included.',
  tools: ['get_ticket_context', 'get_repository_context', 'start_implementation'],
  guide: (
    tool,
    id,
  ) => `You are preparing Forge ticket ${id} (below) for implementation together with the developer. Do not write production code in this session.

1. Read the ticket completely, then call ${tool('get_repository_context')} and read the files it names, so your questions are about real code.
2. Find what is unclear: acceptance criteria that cannot be tested as written, file changes that do not fit the code, missing error cases, conflicts with existing behaviour, decisions the spec leaves open.
3. Ask the developer about them, a few at a time, most important first. Propose an answer for each question so the developer can simply agree. Stop when every criterion can be implemented and checked without guessing.
4. Summarise the agreed approach in a few lines.
5. Call ${tool('start_implementation')} with a branch name that starts with "forge/" and the questions and answers as qaItems, so they stay with the ticket. Then stop: implementation is a separate session.

If the ticket changes meanwhile, ${tool('get_ticket_context')} reads it again.`,
};

const REVIEW: Role = {
  name: 'review',
  title: 'Review a Forge ticket',
  description:
    "Review a Forge ticket's spec as a developer before it is approved: probe gaps and risks in a short Q&A and submit the answers as the ticket's review session. The full ticket is included.",
  tools: ['get_ticket_context', 'get_repository_context', 'submit_review_session'],
  guide: (
    tool,
    id,
  ) => `You are reviewing the spec of Forge ticket ${id} (below) with the developer who will build it. The goal is a ticket that can be implemented without guessing.

1. Read the whole ticket. Where it names code, call ${tool('get_repository_context')} and look at that code.
2. Check each acceptance criterion: is it testable, complete, and consistent with the description, the solution and the other criteria? Check the file changes, API changes and test plan against the code as it is.
3. Ask the developer one question at a time about what is missing, ambiguous or risky (error handling, permissions, data migration, performance, edge cases). Keep each answer as it is given.
4. When the important questions are answered, show the list of questions and answers and ask the developer to confirm it.
5. Call ${tool('submit_review_session')} with the confirmed questions and answers; Forge then refines the spec with them.

If the ticket changes meanwhile, ${tool('get_ticket_context')} reads it again.`,
};

export const TICKET_ROLES: readonly Role[] = [EXECUTE, DEVELOP, REVIEW, EXEC];

/** The four prompts that take a ticket id: a guide for one role, then the ticket as Markdown. */
export function createTicketPrompts(client: ForgeClient): PromptDefinition[] {
  return TICKET_ROLES.map((role) =>
    definePrompt({
      name: role.name,
      title: role.title,
      description: role.description,
      argsSchema: z.strictObject({ ticketId: ticketIdSchema }),
      complete: { ticketId: ticketIdCompleter(client) },
      tools: role.tools,
      handler: async ({ ticketId }, { signal, log, toolName }) => {
        const raw = await client.request<unknown>('GET', ticketPath(ticketId), { signal, ticketId });
        const ticket = await withAssigneeName(client, normalizeTicket(raw), log);
        return {
          description: `${role.title}: ${ticket.title}`,
          messages: [
            {
              role: 'user',
              content: {
                type: 'text',
                text: `${role.guide(toolName, ticket.slug ?? ticket.id)}\n\n<ticket_context>\n${ticketMarkdown(ticket)}</ticket_context>\n`,
              },
            },
          ],
        };
      },
    }),
  ) as PromptDefinition[];
}
