import { defineTool } from '@x/mcp-core';
import { z } from 'zod';
import type { NoteStore } from '../store.js';

export const createListNotes = (store: NoteStore) =>
  defineTool({
    name: 'list_notes',
    title: 'List notes',
    description:
      'Lists notes (id, title, tags), newest last. Call this first to find the note IDs that get_note and delete_note take.',
    inputSchema: z.strictObject({
      tag: z.string().min(1).max(50).optional().describe('Only notes with this tag'),
    }),
    outputSchema: z.object({
      notes: z.array(z.object({ id: z.string(), title: z.string(), tags: z.array(z.string()) })),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: ({ tag }) => ({
      notes: store.list(tag).map(({ id, title, tags }) => ({ id, title, tags })),
    }),
  });
