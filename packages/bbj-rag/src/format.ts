import type { SearchResponse, SearchResultItem } from './client/schemas.js';

/** The link a reader should follow: the public page when the service knows it, else the indexed source. */
export function preferredUrl(result: SearchResultItem): string {
  return result.display_url ? result.display_url : result.source_url;
}

/**
 * Search results as Markdown for a model: a header with the count (and the per-source-type
 * counts when the service sends them), then one block per result, separated by `---`.
 */
export function formatSearchResults(response: SearchResponse): string {
  const { results, query } = response;
  if (results.length === 0) return `No results found for query: ${query}`;
  const blocks = results.map((result, index) => {
    const lines = [`## Result ${index + 1}: ${result.title}${result.deprecated ? ' [DEPRECATED]' : ''}`];
    if (result.context_header) lines.push(`*${result.context_header}*`);
    lines.push('', result.content, '', `Source: ${preferredUrl(result)}`);
    if (result.source_type) lines.push(`Source Type: ${result.source_type}`);
    if (result.generations.length > 0) lines.push(`Generations: ${result.generations.join(', ')}`);
    return lines.join('\n');
  });
  const counts = Object.entries(response.source_type_counts ?? {}).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  const breakdown = counts.length > 0 ? ` (${counts.map(([type, n]) => `${type}: ${n}`).join(', ')})` : '';
  const noun = results.length === 1 ? 'result' : 'results';
  return `Found ${results.length} ${noun} for: ${query}${breakdown}\n\n${blocks.join('\n\n---\n\n')}`;
}
