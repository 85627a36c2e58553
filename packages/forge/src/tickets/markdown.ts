import type { TicketContext, TicketSummary } from './schema.js';

/** The ticket as Markdown an agent reads before it implements, reviews or reports on it. */
export function ticketMarkdown(ticket: TicketContext): string {
  const facts = [
    `- **ID:** \`${ticket.id}\`${ticket.slug && ticket.slug !== ticket.id ? ` (\`${ticket.slug}\`)` : ''}`,
    `- **Status:** ${ticket.status}`,
    `- **Priority:** ${ticket.priority ?? 'not set'}`,
    `- **Assignee:** ${assignee(ticket) ?? 'unassigned'}`,
    ticket.type ? `- **Type:** ${ticket.type}` : undefined,
    ticket.implementationBranch ? `- **Branch:** \`${ticket.implementationBranch}\`` : undefined,
  ];
  const sections: (string | undefined)[] = [
    `# ${ticket.title}`,
    facts.filter(Boolean).join('\n'),
    section('Description', ticket.description),
    section('Problem', ticket.problemStatement),
    section('Solution', ticket.solution),
    section('Acceptance criteria', numbered(ticket.acceptanceCriteria)),
    section(
      'File changes',
      ticket.fileChanges
        .map(
          (change) => `- **${change.action}** \`${change.path}\`${change.notes ? ` — ${change.notes}` : ''}`,
        )
        .join('\n'),
    ),
    section('API changes', ticket.apiChanges),
    section('Test plan', ticket.testPlan),
    section('In scope', bullets(ticket.inScope)),
    section('Out of scope', bullets(ticket.outOfScope)),
    section('Assumptions', bullets(ticket.assumptions)),
    section('Design references', bullets(ticket.designRefs)),
    section(
      'Review Q&A',
      ticket.reviewQa
        .map((item, index) => `**Q${index + 1}.** ${item.question}\n**A${index + 1}.** ${item.answer}`)
        .join('\n\n'),
    ),
  ];
  return `${sections.filter(Boolean).join('\n\n')}\n`;
}

/** One line per ticket. */
export function ticketLine(ticket: TicketSummary): string {
  const slug = ticket.slug && ticket.slug !== ticket.id ? ` (${ticket.slug})` : '';
  const priority = ticket.priority ? ` [${ticket.priority}]` : '';
  const assignedTo = assignee(ticket);
  const assigneeText = assignedTo ? ` — assigned to ${assignedTo}` : '';
  return `- ${ticket.id}${slug} · ${ticket.status}${priority} · ${ticket.title}${assigneeText}`;
}

/** The assignee's name when the team's members are known, else the user id. */
function assignee(ticket: TicketSummary): string | null {
  return ticket.assigneeName ?? ticket.assignedTo;
}

function section(title: string, body: string | null | undefined): string | undefined {
  return body ? `## ${title}\n\n${body}` : undefined;
}

function numbered(items: string[]): string {
  return items.map((item, index) => `${index + 1}. ${item}`).join('\n');
}

function bullets(items: string[]): string {
  return items.map((item) => `- ${item}`).join('\n');
}
