import { defineTool, READ_ONLY, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import type { Note, TemplateRuntime } from '../runtime.js';

export const getNoteTool = (runtime: TemplateRuntime) =>
  defineTool({
    name: 'get_note',
    title: 'Read a note',
    description: `Reads one note: its title, body and when it was written. Find the ID with ${toolRef('list_notes')}.`,
    inputSchema: z.strictObject({
      id: z
        .int()
        .positive()
        .describe(`The note's ID, from ${toolRef('list_notes')}`),
    }),
    annotations: READ_ONLY,
    handler: async ({ id }, { signal }) => {
      const { data } = await runtime.client().request<Note>('GET', `/notes/${id}`, {
        signal,
        notFound: `No note #${id}. Use ${toolRef('list_notes')} to see the IDs.`,
      });
      return `# ${data.title}\n\n${data.body}\n\n(#${data.id}, ${data.created_at})`;
    },
  });
