import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { lazy, number, PersonRefSchema, record, records, TodoSchema, text, toTodo } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import { READS, type ToolDeps } from '../shared.js';

type Raw = Record<string, unknown>;

const AssignmentSchema = lazy(() =>
  z.object({
    id: z.number(),
    type: z.string().describe('"Todo", "Kanban::Card" or "Kanban::Step"'),
    title: z.string(),
    completed: z.boolean(),
    starts_on: z.string().nullable(),
    due_on: z.string().nullable(),
    priority: z.boolean().describe('On your priorities list'),
    project: z.object({ id: z.number(), name: z.string() }).nullable(),
    parent: z.object({ id: z.number(), title: z.string() }).nullable(),
    assignees: z.array(PersonRefSchema.omit({ email: true })),
    app_url: z.string().nullable(),
  }),
);

function toAssignment(raw: Raw, priority: boolean): z.infer<ReturnType<typeof AssignmentSchema>> {
  const bucket = record(raw.bucket);
  const parent = record(raw.parent);
  return {
    id: number(raw.id) ?? 0,
    type: text(raw.type) ?? '',
    title: text(raw.content) ?? '',
    completed: raw.completed === true,
    starts_on: text(raw.starts_on),
    due_on: text(raw.due_on),
    priority,
    project:
      bucket && number(bucket.id) !== null
        ? { id: number(bucket.id) as number, name: text(bucket.name) ?? '' }
        : null,
    parent:
      parent && number(parent.id) !== null
        ? { id: number(parent.id) as number, title: text(parent.title) ?? '' }
        : null,
    assignees: records(raw.assignees).map((entry) => ({
      id: number(entry.id) ?? 0,
      name: text(entry.name) ?? '',
    })),
    app_url: text(raw.app_url),
  };
}

const myAssignmentsShape = lazy(() => ({
  name: 'my_assignments',
  title: "What's assigned to me",
  description:
    'Lists the to-dos, cards and card steps assigned to the signed-in person across all projects: open ones (priorities first), completed ones, or open ones by due date.',
  inputSchema: z.strictObject({
    show: z.enum(['open', 'completed', 'due']).default('open').describe('"due": open ones by due date'),
    due: z
      .enum(['overdue', 'due_today', 'due_tomorrow', 'due_later_this_week', 'due_next_week', 'due_later'])
      .default('overdue')
      .describe('With show "due": which dates'),
  }),
  outputSchema: z.object({ items: z.array(AssignmentSchema()) }),
  annotations: READS,
}));

export const createMyAssignments = (deps: ToolDeps) =>
  defineTool({
    ...myAssignmentsShape(),
    handler: async (input, { signal }) => {
      if (input.show === 'open') {
        const data = (await deps.client.get<Raw>('/my/assignments.json', { signal })).data ?? {};
        return {
          items: [
            ...records(data.priorities).map((raw) => toAssignment(raw, true)),
            ...records(data.non_priorities).map((raw) => toAssignment(raw, false)),
          ],
        };
      }
      const path = input.show === 'completed' ? '/my/assignments/completed.json' : '/my/assignments/due.json';
      const query = input.show === 'due' ? { scope: input.due } : undefined;
      const data = (await deps.client.get<unknown>(path, { signal, ...(query ? { query } : {}) })).data;
      return { items: records(data).map((raw) => toAssignment(raw, false)) };
    },
  });

const LATENESS = [
  'under_a_week_late',
  'over_a_week_late',
  'over_a_month_late',
  'over_three_months_late',
] as const;

const overdueTodosShape = lazy(() => ({
  name: 'overdue_todos',
  title: 'Overdue to-dos, everyone',
  description: `Lists every overdue to-do of the account (everyone's, across projects), grouped by how late. For your own: ${toolRef('my_assignments')} with show "due".`,
  inputSchema: z.strictObject({}),
  outputSchema: z.object(
    Object.fromEntries(LATENESS.map((key) => [key, z.array(TodoSchema)])) as Record<
      (typeof LATENESS)[number],
      z.ZodArray<typeof TodoSchema>
    >,
  ),
  annotations: READS,
}));

export const createOverdueTodos = (deps: ToolDeps) =>
  defineTool({
    ...overdueTodosShape(),
    handler: async (_input, { signal }) => {
      const [markdown, response] = await Promise.all([
        deps.markdown(),
        deps.client.get<Raw>('/reports/todos/overdue.json', { signal }),
      ]);
      const data = response.data ?? {};
      return Object.fromEntries(
        LATENESS.map((key) => [key, records(data[key]).map((raw) => toTodo(raw, markdown, 500))]),
      ) as Record<(typeof LATENESS)[number], z.infer<typeof TodoSchema>[]>;
    },
  });

export const myAssignments = basecampTool(
  {
    toolset: 'activity',
    operations: ['GetMyAssignments', 'GetMyCompletedAssignments', 'GetMyDueAssignments'],
    inDefault: true,
  },
  createMyAssignments,
);
export const overdueTodos = basecampTool(
  { toolset: 'activity', operations: ['GetOverdueTodos'] },
  createOverdueTodos,
);
