import { defineTool } from '@x/mcp-core';
import { z } from 'zod';
import type { NoteStore } from '../store.js';

export const createCreateNote = (store: NoteStore) =>
  defineTool({
    name: 'create_note',
    title: 'Create a note',
    description: 'Creates a note and returns it with its new id. Titles are unique.',
    inputSchema: z.strictObject({
      title: z.string().trim().min(1).max(200).describe('Short unique title'),
      body: z.string().max(20_000).default('').describe('Note text (Markdown)'),
      tags: z.array(z.string().min(1).max(50)).max(10).default([]).describe('Up to 10 tags'),
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: (input) => store.create(input),
  });
