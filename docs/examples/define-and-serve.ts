// Your own tool with the core's contract, served by the same runner the bins use: stdio by
// default, --http, --read-only, --include, ... (run it with --help).
// Install: npm install @x/mcp-core @modelcontextprotocol/server zod
import { defineTool, NotFoundError, toolRef } from '@x/mcp-core';
import { runBin } from '@x/mcp-core/node';
import { z } from 'zod';

const notes = new Map([['n1', 'Buy milk']]);

const listNotes = defineTool({
  name: 'list_notes',
  description: 'Lists the ids and texts of all notes.',
  inputSchema: z.strictObject({}),
  outputSchema: z.object({ notes: z.array(z.object({ id: z.string(), text: z.string() })) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: () => ({ notes: [...notes].map(([id, text]) => ({ id, text })) }),
});

const getNote = defineTool({
  name: 'get_note',
  // toolRef: served under a prefix, the name reads e.g. `notes_list_notes`.
  description: `Returns one note by id. Take the id from ${toolRef('list_notes')}.`,
  inputSchema: z.strictObject({ id: z.string().min(1).describe('The note id') }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: ({ id }) => {
    const text = notes.get(id);
    if (text === undefined) {
      throw new NotFoundError(`Note not found: ${id}. Use ${toolRef('list_notes')} to see the ids.`);
    }
    return { id, text };
  },
});

await runBin({
  name: 'notes-mcp',
  version: '1.0.0',
  description: 'Notes for an agent',
  createProvider: () => ({ id: 'notes', version: '1.0.0', tools: [listNotes, getNote] }),
});
