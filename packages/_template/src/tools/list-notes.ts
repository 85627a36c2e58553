import { defineTool, READ_ONLY, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import type { Note, TemplateRuntime } from '../runtime.js';

export const listNotesTool = (runtime: TemplateRuntime) =>
  defineTool({
    name: 'list_notes',
    title: 'List notes',
    description: `Lists the notes, newest first, optionally only those whose title or body contains a text. Gives the IDs ${toolRef('get_note')} takes.`,
    inputSchema: z.strictObject({
      contains: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe('Only notes whose title or body contain this text'),
    }),
    annotations: READ_ONLY,
    handler: async ({ contains }, { signal }) => {
      const { data } = await runtime.client().request<Note[]>('GET', '/notes', {
        query: { q: contains },
        signal,
      });
      if (data.length === 0) return contains ? `No note contains "${contains}".` : 'There are no notes yet.';
      return data.map((note) => `#${note.id} ${note.title} (${note.created_at})`).join('\n');
    },
  });
