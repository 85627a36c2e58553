import { UpstreamError } from '@x/mcp-core';
import type { FileChange, TicketContext, TicketSummary } from './schema.js';

/** Longest text kept from one upstream field; a spec can embed whole files. */
const MAX_FIELD_CHARS = 20_000;
const MAX_NOTE_CHARS = 2_000;

type Json = Record<string, unknown>;

/**
 * Reads a ticket in either shape Forge has sent: the CLI's documented `TicketDetail` (file
 * changes, problem statement and solution at the top level, as strings) and the backend's real
 * response (the same inside `techSpec`, as objects). Unknown fields are ignored and unknown
 * status values are passed through.
 */
export function normalizeTicket(raw: unknown): TicketContext {
  const ticket = asRecord(raw);
  const id = text(ticket?.id);
  if (!ticket || !id) throw new UpstreamError('Forge returned a ticket without an id.');
  const spec = asRecord(ticket.techSpec) ?? {};
  const problem = ticket.problemStatement ?? spec.problemStatement;
  const problemRecord = asRecord(problem);
  return {
    ...summaryOf(ticket, id),
    type: text(ticket.type) ?? null,
    description: limit(text(ticket.description)),
    problemStatement: limit(typeof problem === 'string' ? problem : renderProblem(problemRecord)),
    solution: limit(renderSolution(ticket.solution ?? spec.solution)),
    acceptanceCriteria: unique([
      ...list(ticket.acceptanceCriteria).map(renderCriterion),
      ...list(spec.acceptanceCriteria).map(renderCriterion),
    ]),
    fileChanges: fileChangesOf(ticket, spec),
    apiChanges: limit(renderApiChanges(ticket.apiChanges ?? spec.apiChanges)),
    testPlan: limit(renderTestPlan(ticket.testPlan ?? spec.testPlan)),
    inScope: strings(spec.inScope ?? ticket.inScope),
    outOfScope: strings(spec.outOfScope ?? ticket.outOfScope),
    assumptions: unique([...strings(ticket.assumptions), ...strings(problemRecord?.assumptions)]),
    designRefs: unique([
      ...strings(ticket.designRefs),
      ...list(ticket.designReferences)
        .map((reference) => text(reference) ?? text(asRecord(reference)?.url))
        .filter(isString),
    ]),
    reviewQa: list(asRecord(ticket.reviewSession)?.qaItems)
      .map((item) => asRecord(item))
      .filter((item): item is Json => item !== undefined)
      .map((item) => ({ question: text(item.question) ?? '', answer: text(item.answer) ?? '' }))
      .filter((item) => item.question !== '' || item.answer !== ''),
    implementationBranch: text(ticket.implementationBranch) ?? null,
    createdAt: dateText(ticket.createdAt),
    updatedAt: dateText(ticket.updatedAt),
  };
}

/** One entry of `GET /tickets`, in either shape. Entries without an id are skipped by the caller. */
export function normalizeSummary(raw: unknown): TicketSummary | undefined {
  const ticket = asRecord(raw);
  const id = text(ticket?.id);
  if (!ticket || !id) return undefined;
  return summaryOf(ticket, id);
}

function summaryOf(ticket: Json, id: string): TicketSummary {
  return {
    id,
    slug: text(ticket.slug) ?? null,
    title: text(ticket.title) ?? '(untitled)',
    status: text(ticket.status) ?? 'unknown',
    priority: text(ticket.priority) ?? null,
    assignedTo: personOf(ticket.assignedTo),
  };
}

function fileChangesOf(ticket: Json, spec: Json): FileChange[] {
  const topLevel = list(ticket.fileChanges);
  const fromSpec = list(spec.fileChanges);
  const entries = topLevel.length > 0 ? topLevel : fromSpec;
  const changes = entries
    .map((entry) => asRecord(entry))
    .filter((entry): entry is Json => entry !== undefined && text(entry.path) !== undefined)
    .map((entry) => {
      const lines = Array.isArray(entry.lineNumbers) ? entry.lineNumbers.filter(isNumber) : [];
      const notes = [
        text(entry.notes),
        text(entry.suggestedChanges),
        text(entry.pattern) ? `Follow the pattern: ${text(entry.pattern)}` : undefined,
        lines.length === 2 ? `Lines ${lines[0]}-${lines[1]}` : undefined,
      ].filter(isString);
      const change: FileChange = { path: text(entry.path) as string, action: text(entry.action) ?? 'modify' };
      if (notes.length > 0) change.notes = clip(notes.join(' — '), MAX_NOTE_CHARS);
      return change;
    });
  if (changes.length > 0) return changes;
  // Older specs list only paths, grouped by action, inside the solution.
  const grouped = asRecord(asRecord(spec.solution)?.fileChanges);
  if (!grouped) return [];
  return (['create', 'modify', 'delete'] as const).flatMap((action) =>
    strings(grouped[action]).map((path) => ({ path, action })),
  );
}

function renderProblem(problem: Json | undefined): string | undefined {
  if (!problem) return undefined;
  const parts = [
    text(problem.narrative),
    labelled('Why it matters', text(problem.whyItMatters)),
    labelled('Context', text(problem.context)),
    bulletSection('Constraints', strings(problem.constraints)),
  ].filter(isString);
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

function renderSolution(solution: unknown): string | undefined {
  if (typeof solution === 'string') return solution;
  const record = asRecord(solution);
  if (!record) return undefined;
  const steps = list(record.steps)
    .map((step) => asRecord(step) ?? { description: step })
    .map((step) => {
      const description = text(step.description);
      if (!description) return undefined;
      const file = text(step.file);
      return `${description}${file ? ` (\`${file}\`)` : ''}`;
    })
    .filter(isString);
  const parts = [
    text(record.overview),
    steps.length > 0
      ? `Steps:\n${steps.map((step, index) => `${index + 1}. ${step}`).join('\n')}`
      : undefined,
    labelled('Database changes', text(record.databaseChanges)),
    labelled('Environment changes', text(record.environmentChanges)),
  ].filter(isString);
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

function renderCriterion(criterion: unknown): string | undefined {
  if (typeof criterion === 'string') return criterion.trim() || undefined;
  const record = asRecord(criterion);
  if (!record) return undefined;
  const given = text(record.given);
  const when = text(record.when);
  const then = text(record.then);
  if (given || when || then) {
    return [given && `Given ${given}`, when && `when ${when}`, then && `then ${then}`]
      .filter(isString)
      .join(', ');
  }
  return text(record.description) ?? text(record.text);
}

function renderApiChanges(changes: unknown): string | undefined {
  if (typeof changes === 'string') return changes;
  const record = asRecord(changes);
  if (!record) return undefined;
  const endpoints = list(record.endpoints)
    .map((endpoint) => asRecord(endpoint))
    .filter((endpoint): endpoint is Json => endpoint !== undefined)
    .map((endpoint) => {
      const status = text(endpoint.status);
      const description = text(endpoint.description);
      return `- \`${text(endpoint.method) ?? '?'} ${text(endpoint.route) ?? '?'}\`${status ? ` (${status})` : ''}${description ? `: ${description}` : ''}`;
    });
  const parts = [
    endpoints.length > 0 ? endpoints.join('\n') : undefined,
    labelled('Base URL', text(record.baseUrl)),
    labelled('Rate limiting', text(record.rateLimiting)),
  ].filter(isString);
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

function renderTestPlan(plan: unknown): string | undefined {
  if (typeof plan === 'string') return plan;
  const record = asRecord(plan);
  if (!record) return undefined;
  const cases = (label: string, value: unknown) =>
    bulletSection(
      label,
      list(value)
        .map((item) => {
          if (typeof item === 'string') return item;
          const test = asRecord(item);
          if (!test) return undefined;
          const description = text(test.description) ?? text(test.testName);
          const file = text(test.testFile);
          return description ? `${description}${file ? ` (\`${file}\`)` : ''}` : undefined;
        })
        .filter(isString),
    );
  const parts = [
    text(record.summary),
    cases('Unit tests', record.unitTests),
    cases('Integration tests', record.integrationTests),
    cases('Edge cases', record.edgeCases),
    labelled('Notes', text(record.testingNotes)),
  ].filter(isString);
  return parts.length > 0 ? parts.join('\n\n') : undefined;
}

function personOf(value: unknown): string | null {
  if (typeof value === 'string') return value || null;
  const record = asRecord(value);
  return text(record?.displayName) ?? text(record?.email) ?? text(record?.id) ?? null;
}

function dateText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  // Firestore timestamps serialise as { _seconds, _nanoseconds }.
  const seconds = asRecord(value)?._seconds;
  return typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : null;
}

function labelled(label: string, value: string | undefined): string | undefined {
  return value ? `${label}: ${value}` : undefined;
}

function bulletSection(label: string, items: string[]): string | undefined {
  return items.length > 0 ? `${label}:\n${items.map((item) => `- ${item}`).join('\n')}` : undefined;
}

function asRecord(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function strings(value: unknown): string[] {
  return list(value)
    .map((item) => text(item))
    .filter(isString);
}

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function unique(values: (string | undefined)[]): string[] {
  return [...new Set(values.filter(isString).map((value) => clip(value, MAX_NOTE_CHARS)))];
}

function limit(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : clip(value.trim(), MAX_FIELD_CHARS);
}

function clip(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max)}… (truncated)` : value;
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number';
}
