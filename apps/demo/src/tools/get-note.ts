import { defineTool } from '@x/mcp-core';
import { z } from 'zod';
import { type NoteStore, noteIdSchema } from '../store.js';

export const createGetNote = (store: NoteStore) =>
  defineTool({
    name: 'get_note',
    title: 'Get a note',
    description: 'Returns one note with its full body. Take the id from list_notes.',
    inputSchema: z.strictObject({
      id: noteIdSchema,
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: ({ id }) => store.get(id),
  });
