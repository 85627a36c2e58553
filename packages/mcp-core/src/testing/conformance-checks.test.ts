import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import { createLogger } from '../logger.js';
import { definePrompt } from '../prompt.js';
import { ToolRegistry } from '../registry.js';
import { defineResourceTemplate } from '../resource.js';
import { toolError } from '../result.js';
import { type AnyToolDefinition, defineTool, type ToolProvider } from '../tool.js';
import { toolRef } from '../tool-ref.js';
import { connectInMemory } from './clients.js';
import { conformanceProblems, SERVED_CHECKS } from './conformance-checks.js';

// One deliberately broken provider per rule: each test fails if its rule is removed from the kit.

const quiet = createLogger('conformance-test', { level: 'silent' });
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const WRITES = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

const getNote = defineTool({
  name: 'get_note',
  description: 'Returns one note with its full body. Take the id from list_notes.',
  inputSchema: z.strictObject({ id: z.string().max(20).describe('Note id from list_notes') }),
  annotations: READ_ONLY,
  handler: ({ id }) => ({ id, body: 'Buy milk' }),
});

function provider(tools: AnyToolDefinition[], extra: Partial<ToolProvider> = {}): ToolProvider {
  return { id: 'notes', version: '1.0.0', tools, ...extra };
}

function problems(subject: ToolProvider): Promise<string[]> {
  return conformanceProblems(subject, { logger: quiet });
}

describe('conformanceProblems', () => {
  it('finds nothing wrong with a well-formed provider', async () => {
    expect(await problems(provider([getNote]))).toEqual([]);
  });

  it('requires a kebab-case id, a semver version and at least one tool', async () => {
    expect(await problems({ id: 'Notes App', version: 'latest', tools: [] })).toEqual(
      expect.arrayContaining([
        'id "Notes App" is not lower-case kebab-case',
        'version "latest" is not semver',
        'has no tools',
      ]),
    );
  });

  it('reports a tool name used twice', async () => {
    expect(await problems(provider([getNote, { ...getNote }]))).toContain(
      'tool name get_note is used more than once',
    );
  });

  it('reports a non-strict input schema', async () => {
    const loose = defineTool({ ...getNote, inputSchema: z.object({ id: z.string().describe('Note id') }) });
    expect(await problems(provider([loose]))).toContainEqual(
      expect.stringMatching(/^get_note: invalid descriptor: .*additionalProperties/),
    );
  });

  it('reports a missing annotation hint', async () => {
    const { openWorldHint: _, ...partial } = READ_ONLY;
    const unmarked = { ...getNote, annotations: partial } as unknown as AnyToolDefinition;
    expect(await problems(provider([unmarked]))).toContainEqual(
      expect.stringMatching(/^get_note: invalid descriptor: .*openWorldHint/),
    );
  });

  it('reports a description too short for a model', async () => {
    const terse = defineTool({ ...getNote, description: 'Gets a note.' });
    expect(await problems(provider([terse]))).toContain('get_note: description shorter than 20 characters');
  });

  it('reports a description that only repeats the name', async () => {
    const named = defineTool({
      ...getNote,
      name: 'get_note_with_body_by_id',
      description: 'get_note_with_body_by_id',
    });
    expect(await problems(provider([named]))).toContain(
      'get_note_with_body_by_id: description repeats the name',
    );
  });

  it('reports an input field without a description', async () => {
    const bare = defineTool({ ...getNote, inputSchema: z.strictObject({ id: z.string().max(20) }) });
    expect(await problems(provider([bare]))).toContain('get_note.id has no description');
  });

  it('reports a tool whose name says it writes but is marked read-only', async () => {
    const deleteNote = defineTool({
      ...getNote,
      name: 'delete_note',
      description: 'Deletes one note for good. Take the id from list_notes.',
    });
    const findings = await problems(provider([deleteNote]));
    expect(findings).toContain('delete_note: its name says it writes, but readOnlyHint is true');
    const marked = defineTool({ ...deleteNote, annotations: { ...WRITES, destructiveHint: true } });
    expect(await problems(provider([marked]))).toEqual([]);
  });

  it('reports a toolRef to a tool the provider does not have', async () => {
    const dangling = defineTool({
      ...getNote,
      description: `Returns one note with its full body. Take the id from ${toolRef('list_notes')}.`,
    });
    expect(await problems(provider([dangling]))).toContain(
      'toolRef names list_notes, which this provider does not have',
    );
    const inInstructions = provider([getNote], { instructions: `Start with ${toolRef('find_notes')}.` });
    expect(await problems(inInstructions)).toContain(
      'toolRef names find_notes, which this provider does not have',
    );
  });

  it('accepts a toolRef to a tool of a toolset that is not served', async () => {
    const dangling = defineTool({
      ...getNote,
      description: `Returns one note with its full body. Take the id from ${toolRef('list_notes')}.`,
    });
    const toolsets = [
      { name: 'notes', description: 'Reading notes.', tools: ['get_note'] },
      { name: 'more', description: 'Listing notes.', tools: ['list_notes'] },
    ];
    expect(await problems(provider([dangling], { toolsets }))).toEqual([]);
  });

  it('reports a served tool that is in no declared toolset', async () => {
    const toolsets = [{ name: 'other', description: 'Other notes tools.', tools: ['list_notes'] }];
    expect(await problems(provider([getNote], { toolsets }))).toContain(
      'get_note is served but in no toolset',
    );
  });

  it('reports a toolset whose loadToolset does not return its declared tools', async () => {
    const toolsets = [{ name: 'notes', description: 'Reading notes.', tools: ['get_note'] }];
    const loadToolset = () => [];
    expect(await problems(provider([getNote], { toolsets, loadToolset }))).toContain(
      'loadToolset("notes") does not return its declared tools',
    );
  });

  it('reports a plain Error thrown on fuzzed input as an unhandled failure', async () => {
    const fragile = defineTool({
      ...getNote,
      handler: ({ id }) => {
        if (id.length === 0) throw new Error('index out of range');
        return { id };
      },
    });
    expect(await problems(provider([fragile]))).toContainEqual(
      expect.stringMatching(/^get_note with .*: INTERNAL_ERROR \(an unhandled failure\)$/),
    );
  });

  it('reports an error result with a code outside the vocabulary', async () => {
    // A handler that builds its own error result with a code the vocabulary does not have.
    const odd = defineTool({ ...getNote, handler: () => toolError('OOPS' as ErrorCode, 'Broken.', false) });
    expect(await problems(provider([odd]))).toContainEqual(expect.stringMatching(/: unknown code OOPS$/));
  });

  it('reports a prompt or resource described too briefly for a person choosing one', async () => {
    const prompt = definePrompt({
      name: 'summarize',
      description: 'Summarize.',
      argsSchema: z.strictObject({ id: z.string().max(20).describe('Note id') }),
      handler: ({ id }) => `Summarize note ${id}.`,
    });
    const resource = defineResourceTemplate({
      name: 'note',
      description: 'A note.',
      uriTemplate: 'notes://notes/{id}',
      mimeType: 'text/plain',
      variables: z.strictObject({ id: z.string().max(20).describe('The note id') }),
      read: () => 'Buy milk',
    });
    const findings = await problems(provider([getNote], { prompts: [prompt], resources: [resource] }));
    expect(findings).toContain('prompt summarize: description shorter than 20 characters');
    expect(findings).toContain('resource note: description shorter than 20 characters');
  });

  it('reports a prompt that crashes on fuzzed arguments', async () => {
    const prompt = definePrompt({
      name: 'summarize',
      description: 'Sets the model up to summarize one note.',
      argsSchema: z.strictObject({ id: z.string().describe('Note id') }),
      handler: ({ id }) => {
        if (id.trim() === '') throw new Error('empty id');
        return `Summarize note ${id}.`;
      },
    });
    expect(await problems(provider([getNote], { prompts: [prompt] }))).toContainEqual(
      expect.stringMatching(/^prompt summarize with .*: INTERNAL_ERROR \(an unhandled failure\)/),
    );
  });

  it('reports a resource template that crashes on odd variable values', async () => {
    const resource = defineResourceTemplate({
      name: 'note',
      description: 'One note as plain text, by its id.',
      uriTemplate: 'notes://notes/{id}',
      mimeType: 'text/plain',
      variables: z.strictObject({ id: z.string().describe('The note id') }),
      read: (_uri, { id }) => {
        if (id.includes('..')) throw new Error('path escape');
        return 'Buy milk';
      },
    });
    expect(await problems(provider([getNote], { resources: [resource] }))).toContainEqual(
      expect.stringMatching(/^resource notes:\/\/notes\/.*: INTERNAL_ERROR \(an unhandled failure\)/),
    );
  });

  it('stops at registration when the tools cannot be registered, after the static rules', async () => {
    const findings = await problems(provider([getNote, { ...getNote }]));
    expect(findings.at(-1)).toMatch(/^registering the provider failed: /);
  });
});

// These rules guard the core's serving path rather than a provider's definitions: a provider
// cannot break them, so they are shown a connection that serves something else than the registry.
describe('the serving rules', () => {
  const summarize = definePrompt({
    name: 'summarize',
    description: 'Sets the model up to summarize one note.',
    argsSchema: z.strictObject({ id: z.string().max(20).describe('Note id') }),
    handler: ({ id }) => `Summarize note ${id}.`,
  });
  const note = defineResourceTemplate({
    name: 'note',
    description: 'One note as plain text, by its id.',
    uriTemplate: 'notes://notes/{id}',
    mimeType: 'text/plain',
    variables: z.strictObject({ id: z.string().max(20).describe('The note id') }),
    read: () => 'Buy milk',
  });
  const full = provider([getNote], { prompts: [summarize], resources: [note] });

  async function mismatched(title: string): Promise<string[]> {
    const check = SERVED_CHECKS.find((candidate) => candidate.title === title);
    if (!check) throw new Error(`no rule titled ${title}`);
    const registry = new ToolRegistry({ logger: quiet }).use(full);
    const other = defineTool({ ...getNote, name: 'other_note' });
    const connection = await connectInMemory(new ToolRegistry({ logger: quiet }).use(provider([other])));
    try {
      return await check.run({ provider: full, registry, connection, skipFuzz: [] });
    } finally {
      await connection.close();
    }
  }

  it('reports a tools/list that differs from the registry', async () => {
    expect(await mismatched('lists exactly its descriptors over MCP')).toEqual([
      'tools/list differs from the registry descriptors',
    ]);
  });

  it('reports capabilities that do not match what is served', async () => {
    expect(
      await mismatched('advertises prompts, resources and completions exactly when it serves them'),
    ).toEqual(expect.arrayContaining(['prompts capability missing', 'resources capability missing']));
  });

  it('reports prompt and template listings that differ from the registry', async () => {
    const findings = await mismatched(
      'lists exactly its prompts and resource templates over MCP, across every page',
    );
    expect(findings).toEqual([
      'prompts/list differs from the registry prompts',
      'resources/templates/list differs from the registry templates',
    ]);
  });

  it('reports an unknown prompt or URI not answered with invalid params', async () => {
    expect(await mismatched('answers an unknown prompt and an unknown URI with invalid params')).toEqual([
      expect.stringMatching(/^an unknown prompt got JSON-RPC -?\d+$/),
      expect.stringMatching(/^an unknown URI got JSON-RPC -?\d+$/),
    ]);
  });
});
