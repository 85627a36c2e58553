import { z } from 'zod';

export const FileChangeSchema = z.object({
  path: z.string(),
  action: z.string().describe('create, modify or delete (other values are passed through)'),
  notes: z.string().optional(),
});

export type FileChange = z.infer<typeof FileChangeSchema>;

export const QaItemSchema = z.object({ question: z.string(), answer: z.string() });

export const TicketSummarySchema = z.object({
  id: z.string(),
  slug: z.string().nullable(),
  title: z.string(),
  status: z.string(),
  priority: z.string().nullable(),
  assignedTo: z.string().nullable(),
  /** The assignee's display name from the team's members, when known. */
  assigneeName: z.string().nullable().optional(),
});

export type TicketSummary = z.infer<typeof TicketSummarySchema>;

/** One ticket as the tools return it, whichever shape Forge sent. */
export const TicketContextSchema = TicketSummarySchema.extend({
  type: z.string().nullable(),
  description: z.string().nullable(),
  problemStatement: z.string().nullable(),
  solution: z.string().nullable(),
  acceptanceCriteria: z.array(z.string()),
  fileChanges: z.array(FileChangeSchema),
  apiChanges: z.string().nullable(),
  testPlan: z.string().nullable(),
  inScope: z.array(z.string()),
  outOfScope: z.array(z.string()),
  assumptions: z.array(z.string()),
  designRefs: z.array(z.string()),
  reviewQa: z.array(QaItemSchema),
  implementationBranch: z.string().nullable(),
  createdAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
});

export type TicketContext = z.infer<typeof TicketContextSchema>;
