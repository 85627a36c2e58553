import { defineTool, InvalidInputError, toolRef, UpstreamError } from '@x/mcp-core';
import { z } from 'zod';
import type { SearchOption } from '../search-metadata.js';
import { lazy, listSchema, SearchResultSchema, toSearchResult } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import { capList, id, LIST_BODY_CHARS, limit, page, READS, type ToolDeps } from './shared.js';

const TYPE_HELP =
  'Only this kind, e.g. Message, Todo, Document, Comment, Attachment (files), Schedule::Entry (events), Chat::Transcript, Kanban::Card, Vault (folders); an unknown one is answered with the accepted ones';

const searchShape = lazy(() => ({
  name: 'search',
  title: 'Search Basecamp',
  description: `Full-text search across Basecamp, optionally by type, project or creator. Each hit has its type, ID, project, parent (for a Comment: the item commented on) and an excerpt. Open a hit with ${toolRef('get_message')}, ${toolRef('get_todo')} or ${toolRef('get_document')}; a Comment through its parent with ${toolRef('list_comments')}.`,
  inputSchema: z.strictObject({
    query: z.string().trim().min(1).max(500).describe('Words to search for'),
    type: z.string().trim().min(1).max(100).optional().describe(TYPE_HELP),
    file_type: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .describe('Only files of this kind, e.g. "Image", "Video", "PDF"'),
    project_id: id('Only this project').optional(),
    creator_id: id(`Only items by this person (${toolRef('list_people')})`).optional(),
    exclude_chat: z.boolean().default(false).describe('Leave chat lines out'),
    page: page(),
    limit: limit(25),
  }),
  outputSchema: listSchema(SearchResultSchema),
  annotations: READS,
}));

export const createSearch = (deps: ToolDeps) =>
  defineTool({
    ...searchShape(),
    handler: async (input, { signal }) => {
      if (input.type !== undefined || input.file_type !== undefined) {
        const metadata = await deps.searchMetadata.get(signal);
        if (metadata) {
          check('type', input.type, metadata.types);
          check('file_type', input.file_type, metadata.fileTypes);
        }
      }
      const [markdown, response] = await Promise.all([
        deps.markdown(),
        deps.client.get<unknown>('/search.json', {
          query: {
            q: input.query,
            type: input.type,
            file_type: input.file_type,
            bucket_id: input.project_id,
            creator_id: input.creator_id,
            exclude_chat: input.exclude_chat ? 1 : undefined,
            page: input.page,
            per_page: input.limit,
          },
          signal,
        }),
      ]);
      if (!Array.isArray(response.data))
        throw new UpstreamError('Basecamp answered the search with something other than a list.');
      const hasMore =
        response.total !== undefined
          ? input.page * input.limit < response.total
          : response.next !== undefined;
      return capList(
        {
          items: (response.data as Record<string, unknown>[]).map((raw) =>
            toSearchResult(raw, markdown, LIST_BODY_CHARS),
          ),
          has_more: hasMore,
          next_page: hasMore ? input.page + 1 : null,
          ...(response.total === undefined ? {} : { total: response.total }),
          truncated: false,
        },
        deps.client.settings.maxResponseChars,
      );
    },
  });

function check(field: string, value: string | undefined, accepted: SearchOption[]): void {
  if (value === undefined || accepted.length === 0) return;
  if (accepted.some((option) => option.key === value)) return;
  const candidates = accepted.map((option) => `${option.key} (${option.label})`);
  throw new InvalidInputError(
    `Basecamp's search does not know ${field} "${value}". This account accepts: ${candidates.join(', ')}.`,
    { details: { field, candidates } },
  );
}

export const search = basecampTool(
  { toolset: 'projects', operations: ['Search', 'GetSearchMetadata'], inDefault: true },
  createSearch,
);
