import { z } from 'zod';

/**
 * The REST service's response models, read leniently: unknown fields are ignored, and the
 * fields that came later (`display_url`, `source_type`, `source_type_counts`) may be absent,
 * so both older and newer deployments work.
 */
export const SearchResultItemSchema = z.object({
  content: z.string(),
  title: z.string(),
  source_url: z.string(),
  doc_type: z.string(),
  generations: z.array(z.string()),
  context_header: z.string().nullish(),
  deprecated: z.boolean(),
  display_url: z.string().nullish(),
  source_type: z.string().nullish(),
  score: z.number(),
});
export type SearchResultItem = z.infer<typeof SearchResultItemSchema>;

export const SearchResponseSchema = z.object({
  query: z.string(),
  results: z.array(SearchResultItemSchema),
  count: z.number().int().nonnegative(),
  source_type_counts: z.record(z.string(), z.number()).nullish(),
});
export type SearchResponse = z.infer<typeof SearchResponseSchema>;

export const HealthResponseSchema = z.object({
  status: z.enum(['healthy', 'degraded', 'unhealthy']),
  checks: z.record(z.string(), z.string()),
});
export type HealthResponse = z.infer<typeof HealthResponseSchema>;

export const StatsResponseSchema = z.object({
  total_chunks: z.number().int().nonnegative(),
  by_source: z.record(z.string(), z.number()),
  by_generation: z.record(z.string(), z.number()),
});
export type StatsResponse = z.infer<typeof StatsResponseSchema>;

/** FastAPI's validation error body (422). */
export const ValidationErrorBodySchema = z.object({
  detail: z.array(
    z.object({
      type: z.string().optional(),
      loc: z.array(z.union([z.string(), z.number()])),
      msg: z.string(),
    }),
  ),
});
