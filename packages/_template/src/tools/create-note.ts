import { CREATES, defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import type { Note, TemplateRuntime } from '../runtime.js';

export const createNoteTool = (runtime: TemplateRuntime) =>
  defineTool({
    name: 'create_note',
    title: 'Write a note',
    description: `Writes a new note with a title and a body, and answers with its ID (for ${toolRef('get_note')}). Each call writes one more note.`,
    inputSchema: z.strictObject({
      title: z.string().trim().min(1).max(200).describe('The title, one line'),
      body: z.string().max(20_000).describe('The text of the note (plain text)'),
    }),
    annotations: CREATES,
    handler: async ({ title, body }, { signal }) => {
      const { data } = await runtime
        .client()
        .request<Note>('POST', '/notes', { json: { title, body }, signal });
      return `Wrote note #${data.id} "${data.title}".`;
    },
  });
