import { defineTool, UpstreamError } from '@x/mcp-core';
import { z } from 'zod';
import { listSchema, SearchResultSchema, toSearchResult } from '../shapes.js';
import { capList, id, LIST_BODY_CHARS, limit, page, READS, type ToolDeps } from './shared.js';

const TYPES = [
  'Message',
  'Todo',
  'Todolist',
  'Document',
  'Comment',
  'Upload',
  'Attachment',
  'Schedule::Entry',
  'Chat::Transcript',
  'Question',
  'Kanban::Card',
] as const;

export const createSearch = (deps: ToolDeps) =>
  defineTool({
    name: 'search',
    title: 'Search Basecamp',
    description:
      'Full-text search across everything you can see in Basecamp (messages, to-dos, documents, comments, files, events, chats), optionally narrowed by type, project or creator. Each result has its type, ID, project and an excerpt with matches in _emphasis_; open it with get_message, get_todo or get_document, or list_comments for any ID.',
    inputSchema: z.strictObject({
      query: z.string().trim().min(1).max(500).describe('Words to search for'),
      type: z
        .enum(TYPES)
        .optional()
        .describe('Only this kind of item, e.g. "Message", "Todo", "Document", "Comment"'),
      project_id: id('Only this project, from list_projects').optional(),
      creator_id: id('Only items created by this person, from list_people').optional(),
      page: page(),
      limit: limit(25),
    }),
    outputSchema: listSchema(SearchResultSchema),
    annotations: READS,
    handler: async (input, { signal }) => {
      const [markdown, response] = await Promise.all([
        deps.markdown(),
        deps.client.get<unknown>('/search.json', {
          query: {
            q: input.query,
            type: input.type,
            bucket_id: input.project_id,
            creator_id: input.creator_id,
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
