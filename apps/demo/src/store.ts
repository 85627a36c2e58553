import { ConflictError, LimitExceededError, NotFoundError } from '@x/mcp-core';
import { z } from 'zod';

/** The argument every tool that takes one note uses. */
export const noteIdSchema = z
  .string()
  .regex(/^n\d+$/, 'must look like n1, n2, ...')
  .describe('Note id from list_notes, e.g. "n1"');

export interface Note {
  id: string;
  title: string;
  body: string;
  tags: string[];
  createdAt: string;
  updatedAt: string;
}

export const MAX_NOTES = 1000;

/** An in-memory note store: the "upstream" of the example provider. */
export class NoteStore {
  readonly #notes = new Map<string, Note>();
  #next = 1;

  list(tag?: string): Note[] {
    const notes = [...this.#notes.values()];
    return tag ? notes.filter((note) => note.tags.includes(tag)) : notes;
  }

  get(id: string): Note {
    const note = this.#notes.get(id);
    if (note) return note;
    const candidates = [...this.#notes.keys()].slice(0, 5);
    throw new NotFoundError(`Note not found: ${id}. Use list_notes to see note IDs.`, {
      details: { candidates },
    });
  }

  create(input: { title: string; body: string; tags: string[] }): Note {
    if (this.#notes.size >= MAX_NOTES) {
      throw new LimitExceededError(
        `The store holds at most ${MAX_NOTES} notes. Delete some with delete_note first.`,
      );
    }
    if (this.list().some((note) => note.title === input.title)) {
      throw new ConflictError(`A note titled "${input.title}" already exists. Pick another title.`);
    }
    const now = new Date().toISOString();
    const note: Note = { id: `n${this.#next++}`, ...input, createdAt: now, updatedAt: now };
    this.#notes.set(note.id, note);
    return note;
  }

  delete(id: string): Note {
    const note = this.get(id);
    this.#notes.delete(id);
    return note;
  }
}
