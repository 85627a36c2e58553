import { defineTool } from '@x/mcp-core';
import { z } from 'zod';
import { type NoteStore, noteIdSchema } from '../store.js';

export const createDeleteNote = (store: NoteStore) =>
  defineTool({
    name: 'delete_note',
    title: 'Delete a note',
    description: 'Deletes a note for good and returns what was deleted. Take the id from list_notes.',
    inputSchema: z.strictObject({
      id: noteIdSchema,
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    handler: ({ id }) => ({ deleted: store.delete(id) }),
  });
