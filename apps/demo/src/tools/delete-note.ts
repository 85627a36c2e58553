import { defineTool } from '@x/mcp-core';
import { z } from 'zod';
import type { NoteStore } from '../store.js';

export const createDeleteNote = (store: NoteStore) =>
  defineTool({
    name: 'delete_note',
    title: 'Delete a note',
    description: 'Deletes a note for good and returns what was deleted. Take the id from list_notes.',
    inputSchema: z.strictObject({
      id: z
        .string()
        .regex(/^n\d+$/, 'must look like n1, n2, ...')
        .describe('Note id from list_notes, e.g. "n1"'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    handler: ({ id }) => ({ deleted: store.delete(id) }),
  });
