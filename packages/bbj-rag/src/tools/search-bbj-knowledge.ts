import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { formatSearchResults, preferredUrl } from '../format.js';
import { textWithData } from '../result.js';
import type { BbjRagRuntime } from '../runtime.js';

export const GENERATIONS = ['all', 'character', 'vpro5', 'bbj-gui', 'dwc'] as const;

/** Our enum spells `bbj-gui` like the upstream tool; the index tags it `bbj_gui`. */
export function generationTag(generation: (typeof GENERATIONS)[number] | undefined): string | undefined {
  if (generation === undefined || generation === 'all') return undefined;
  return generation.replace('-', '_');
}

const resultSchema = z.object({
  rank: z.number().int().describe('1 for the best match'),
  title: z.string(),
  content: z.string().describe('The documentation chunk'),
  context_header: z.string().nullable().describe('Where the chunk sits in its document'),
  url: z.string().describe('The link to cite: display_url when present, else source_url'),
  source_url: z.string().describe('The indexed source (may be an internal flare:// or pdf:// address)'),
  display_url: z.string().optional().describe('The public page (newer services only)'),
  source_type: z.string().optional().describe('e.g. "BASIS BBj Documentation" (newer services only)'),
  doc_type: z.string().describe('e.g. api-reference, concept, example, language-reference'),
  generations: z.array(z.string()).describe('Generation tags: all, character, vpro5, bbj_gui, dwc'),
  deprecated: z.boolean().describe('The chunk documents a deprecated or legacy feature'),
  score: z.number().describe('Relevance score from the service (higher is better)'),
});

export const createSearchBbjKnowledge = (runtime: BbjRagRuntime) =>
  defineTool({
    name: 'search_bbj_knowledge',
    title: 'Search the BBj documentation',
    description:
      'Searches the BBj documentation (reference, tutorials, manuals, knowledge base, examples) and returns the best passages as Markdown with their source links. ' +
      'Use it before writing, reviewing or explaining BBj code: classes and methods (BBjWindow, ...), verbs (OPEN, READ, ...), functions, patterns. ' +
      '[DEPRECATED] passages describe legacy BBj features to avoid in new code. ' +
      `On an UPSTREAM_* error, ${toolRef('bbj_knowledge_status')} says why.`,
    inputSchema: z.strictObject({
      query: z
        .string()
        .trim()
        .min(1)
        .max(1000)
        .refine((value) => !value.includes('\u0000'), 'must not contain NUL characters')
        .describe('What to look for, in natural language or API names, e.g. "add a button to a BBjWindow"'),
      generation: z
        .enum(GENERATIONS)
        .optional()
        .describe(
          'Only passages for this generation: character (terminal), vpro5 (Visual PRO/5), bbj-gui (BBj GUI/Swing; bbj_gui in results), dwc (browser Dynamic Web Client); all (default): every one',
        ),
      limit: z.number().int().min(1).max(50).default(5).describe('How many passages to return'),
    }),
    outputSchema: z.object({
      query: z.string(),
      generation: z.string().nullable().describe('The generation tag the search was filtered by, or null'),
      count: z.number().int(),
      source_type_counts: z
        .record(z.string(), z.number())
        .optional()
        .describe('Results per source type (newer services only)'),
      results: z.array(resultSchema),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    handler: async ({ query, generation, limit }, context) => {
      const tag = generationTag(generation);
      const response = await runtime
        .client()
        .search(
          { query, limit, ...(tag === undefined ? {} : { generation: tag }) },
          { signal: context.signal },
        );
      const data = {
        query: response.query,
        generation: tag ?? null,
        count: response.results.length,
        ...(response.source_type_counts ? { source_type_counts: response.source_type_counts } : {}),
        results: response.results.map((result, index) => ({
          rank: index + 1,
          title: result.title,
          content: result.content,
          context_header: result.context_header || null,
          url: preferredUrl(result),
          source_url: result.source_url,
          ...(result.display_url ? { display_url: result.display_url } : {}),
          ...(result.source_type ? { source_type: result.source_type } : {}),
          doc_type: result.doc_type,
          generations: result.generations,
          deprecated: result.deprecated,
          score: result.score,
        })),
      };
      return textWithData(formatSearchResults(response), data);
    },
  });
