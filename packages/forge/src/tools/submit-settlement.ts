import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import type { ForgeClient } from '../runtime.js';
import { ticketIdSchema, ticketPath } from './shared.js';

/** Forge's limits (`SubmitSettlementDto`): summary 10000, 500 files, 50 divergences. */
const MAX_SUMMARY = 10_000;
const MAX_PR_URL = 2_000;

const count = () => z.number().int().min(0).max(10_000_000).default(0);

export const createSubmitSettlement = (client: ForgeClient) =>
  defineTool({
    name: 'submit_settlement',
    title: 'Finish a Forge ticket',
    description: `Submits the final summary of an implementation, the files changed and any departures from the spec; Forge builds a change record and moves the ticket from 'executing' to 'delivered' for review. Call it once the work is committed and tests pass.`,
    inputSchema: z.strictObject({
      ticketId: ticketIdSchema,
      summary: z
        .string()
        .trim()
        .min(1)
        .max(MAX_SUMMARY - MAX_PR_URL - 20)
        .describe('What was implemented, for the reviewer'),
      filesChanged: z
        .array(
          z.union([
            z.string().trim().min(1).max(1_000),
            z.strictObject({
              path: z.string().trim().min(1).max(1_000),
              additions: count(),
              deletions: count(),
            }),
          ]),
        )
        .max(500)
        .default([])
        .describe('Paths, or { path, additions, deletions }'),
      divergences: z
        .array(
          z.strictObject({
            area: z.string().trim().min(1).max(500).describe('Part of the spec affected'),
            intended: z.string().trim().min(1).max(5_000).describe('What the spec asked for'),
            actual: z.string().trim().min(1).max(5_000).describe('What was done instead'),
            justification: z.string().trim().min(1).max(5_000),
          }),
        )
        .max(50)
        .optional()
        .describe(`Departures from the spec (${toolRef('report_scope_change')} records them as they happen)`),
      prUrl: z.url().max(MAX_PR_URL).optional().describe('The pull request URL, added to the summary'),
    }),
    outputSchema: z.object({ success: z.boolean(), ticketId: z.string(), status: z.string() }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    handler: async ({ ticketId, summary, filesChanged, divergences, prUrl }, { signal }) => {
      const body = {
        // Forge has no field for the pull request and rejects unknown ones, so it goes into the summary.
        executionSummary: prUrl ? `${summary}\n\nPull request: ${prUrl}` : summary,
        filesChanged: filesChanged.map((file) =>
          typeof file === 'string' ? { path: file, additions: 0, deletions: 0 } : file,
        ),
        ...(divergences === undefined ? {} : { divergences }),
      };
      const result = await client.request<Record<string, unknown> | undefined>(
        'POST',
        ticketPath(ticketId, '/settle'),
        { body, signal, ticketId },
      );
      return {
        success: result?.success !== false,
        ticketId: typeof result?.ticketId === 'string' ? result.ticketId : ticketId,
        status: typeof result?.status === 'string' ? result.status : 'unknown',
      };
    },
  });
