// A prompt and a resource template next to your tools, with argument completion.
// Install: npm install @x/mcp-core @modelcontextprotocol/server zod
import { definePrompt, defineResourceTemplate, matchCompletions, ToolRegistry } from '@x/mcp-core';
import { z } from 'zod';

const notes = new Map([['n1', { body: 'Buy milk, then call the plumber about the leak.' }]]);

const summarize = definePrompt({
  name: 'summarize_note',
  description: 'Sets the model up to summarize one note for a status update.',
  argsSchema: z.strictObject({ id: z.string().max(20).describe('Note id from list_notes') }),
  complete: { id: (value) => matchCompletions([...notes.keys()], value) },
  handler: ({ id }) => `Summarize this note in three bullet points:\n\n${notes.get(id)?.body ?? ''}`,
});

const note = defineResourceTemplate({
  name: 'note',
  description: 'One note as Markdown, by its id.',
  uriTemplate: 'notes://notes/{id}',
  mimeType: 'text/markdown',
  variables: z.strictObject({ id: z.string().max(20).describe('The note id') }),
  read: (_uri, { id }) => notes.get(id)?.body ?? '',
});

// On a provider: { id, version, tools, prompts: [summarize], resources: [note] }.
// On a registry of your own:
export const registry = new ToolRegistry().registerPrompt(summarize).registerResource(note);
