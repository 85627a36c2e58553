import type { ToolProvider } from '@x/mcp-core';
import { NoteStore } from './store.js';
import { createCreateNote } from './tools/create-note.js';
import { createDeleteNote } from './tools/delete-note.js';
import { createGetNote } from './tools/get-note.js';
import { createListNotes } from './tools/list-notes.js';

export const VERSION = '0.0.0';

/** The example provider: notes kept in memory for the life of the server. */
export function createNotesProvider(store = new NoteStore()): ToolProvider {
  return {
    id: 'notes',
    version: VERSION,
    instructions: 'Notes kept in memory by this server. list_notes gives the IDs the other tools take.',
    tools: [createListNotes(store), createGetNote(store), createCreateNote(store), createDeleteNote(store)],
  };
}

export { NoteStore } from './store.js';
