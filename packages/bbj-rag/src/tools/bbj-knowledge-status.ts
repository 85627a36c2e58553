import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import type { HealthAnswer } from '../client/rag-client.js';
import type { StatsResponse } from '../client/schemas.js';
import { textWithData } from '../result.js';
import type { BbjRagRuntime } from '../runtime.js';

const MAX_CHECK_LENGTH = 300;

export const createBbjKnowledgeStatus = (runtime: BbjRagRuntime) =>
  defineTool({
    name: 'bbj_knowledge_status',
    title: 'BBj documentation index status',
    description:
      'Reports whether the BBj documentation service can answer searches: its health and what its index holds. ' +
      `Call it when ${toolRef('search_bbj_knowledge')} fails or finds nothing, to tell a service that is down or empty from a query that matched nothing.`,
    inputSchema: z.strictObject({}),
    outputSchema: z.object({
      api_url: z.string(),
      status: z.enum(['healthy', 'degraded', 'unhealthy', 'unknown']),
      searchable: z
        .boolean()
        .describe(`Whether ${toolRef('search_bbj_knowledge')} can be expected to return results now`),
      summary: z.string(),
      checks: z
        .record(z.string(), z.string())
        .describe('Each backend check: "ok" or the error the service saw'),
      health_error: z.string().nullable(),
      stats: z
        .object({
          total_chunks: z.number().int(),
          by_source: z.record(z.string(), z.number()),
          by_generation: z.record(z.string(), z.number()),
        })
        .nullable(),
      stats_error: z.string().nullable(),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    handler: async (_input, context) => {
      const client = runtime.client();
      const [health, stats] = await Promise.allSettled([
        client.health({ signal: context.signal }),
        client.stats({ signal: context.signal }),
      ]);
      // Neither answered: the service itself is unreachable or broken, and that error says how.
      if (health.status === 'rejected' && stats.status === 'rejected') throw health.reason;
      const report = buildReport(
        client.apiUrl,
        health.status === 'fulfilled' ? health.value : undefined,
        health.status === 'rejected' ? errorMessage(health.reason) : null,
        stats.status === 'fulfilled' ? stats.value : undefined,
        stats.status === 'rejected' ? errorMessage(stats.reason) : null,
      );
      return textWithData(renderReport(report), report);
    },
  });

interface StatusReport {
  [key: string]: unknown;
  api_url: string;
  status: 'healthy' | 'degraded' | 'unhealthy' | 'unknown';
  searchable: boolean;
  summary: string;
  checks: Record<string, string>;
  health_error: string | null;
  stats: StatsResponse | null;
  stats_error: string | null;
}

function buildReport(
  apiUrl: string,
  health: HealthAnswer | undefined,
  healthError: string | null,
  stats: StatsResponse | undefined,
  statsError: string | null,
): StatusReport {
  const checks: Record<string, string> = {};
  for (const [name, value] of Object.entries(health?.body.checks ?? {})) checks[name] = clip(value);
  const status = health?.body.status ?? 'unknown';
  const failing = Object.entries(checks).filter(([, value]) => value !== 'ok');
  const total = stats?.total_chunks;
  const searchable = status === 'healthy' && total !== undefined && total > 0;

  const parts: string[] = [];
  if (status === 'healthy') parts.push('The BBj RAG service is healthy.');
  else if (status === 'unknown')
    parts.push(`The BBj RAG service did not report its health (${healthError}).`);
  else {
    parts.push(
      `The BBj RAG service is ${status}: ${failing.map(([name, value]) => `${name} ${value}`).join('; ')}.`,
      'Searches fail (HTTP 503) while the embedding model or the database is down; retry once this reports healthy.',
    );
  }
  if (total === undefined) parts.push(`Index statistics are unavailable (${statsError}).`);
  else if (total === 0)
    parts.push(
      'The index is empty: every search finds nothing until documents are ingested (bbj-rag ingest --source ...).',
    );
  else
    parts.push(
      `The index holds ${total} chunks across generations ${Object.keys(stats?.by_generation ?? {}).join(', ')}.`,
    );
  if (searchable)
    parts.push(
      'A search that finds nothing means the query matched nothing: rephrase it or drop the generation filter.',
    );

  return {
    api_url: apiUrl,
    status,
    searchable,
    summary: parts.join(' '),
    checks,
    health_error: healthError,
    stats: stats ?? null,
    stats_error: statsError,
  };
}

function renderReport(report: StatusReport): string {
  const lines = [report.summary, '', `Service: ${report.api_url}`, `Health: ${report.status}`];
  for (const [name, value] of Object.entries(report.checks)) lines.push(`- ${name}: ${value}`);
  if (report.stats) {
    lines.push(`Chunks: ${report.stats.total_chunks}`);
    lines.push(`By source: ${counts(report.stats.by_source)}`);
    lines.push(`By generation: ${counts(report.stats.by_generation)}`);
  }
  return lines.join('\n');
}

function counts(record: Record<string, number>): string {
  const entries = Object.entries(record);
  return entries.length === 0 ? 'none' : entries.map(([key, n]) => `${key}: ${n}`).join(', ');
}

function errorMessage(error: unknown): string {
  return clip(error instanceof Error ? error.message : String(error));
}

function clip(text: string): string {
  return text.length > MAX_CHECK_LENGTH ? `${text.slice(0, MAX_CHECK_LENGTH)}…` : text;
}
