// The `operation` events an audit log subscribes to: every tool call, prompt and resource read
// with its arguments and outcome, refused calls included; the other events still carry none.
import { afterEach, describe, expect, it } from 'vitest';
import {
  type OperationEvent,
  observe,
  RegistryView,
  type ToolAccess,
  type ToolCallEnd,
  type ToolCallEvent,
  ToolRegistry,
} from '../src/index.js';
import { connectInMemory } from '../src/testing/index.js';
import { createContentProvider } from './fixtures/content.js';

let stop: (() => void) | undefined;
afterEach(() => stop?.());

function watch() {
  const operations: Array<OperationEvent & ToolCallEnd> = [];
  const toolCalls: ToolCallEvent[] = [];
  stop = observe({
    operation: (event) => ({ end: (end) => operations.push({ ...event, ...end }) }),
    toolCall: (event) => {
      toolCalls.push(event);
      return undefined;
    },
  });
  return { operations, toolCalls };
}

const registry = () => new ToolRegistry().use(createContentProvider(), { prefix: 'n_' });

describe('operation events', () => {
  it('carry the arguments of tool calls, prompts and resource reads, with the outcome', async () => {
    const { operations, toolCalls } = watch();
    const { client, close } = await connectInMemory(registry());
    try {
      await client.callTool({ name: 'n_echo', arguments: { text: 'hello there' } });
      await client.callTool({ name: 'n_echo', arguments: { text: 7 } });
      await client.getPrompt({ name: 'n_greet', arguments: { name: 'Ana' } });
      await client.readResource({ uri: 'note://notes/beta' });
      await client.readResource({ uri: 'note://notes/nope' }).catch(() => undefined);
    } finally {
      await close();
    }
    expect(
      operations.map(({ kind, name, arguments: args, outcome }) => ({ kind, name, args, outcome })),
    ).toEqual([
      { kind: 'tool', name: 'n_echo', args: { text: 'hello there' }, outcome: 'ok' },
      { kind: 'tool', name: 'n_echo', args: { text: 7 }, outcome: 'INVALID_INPUT' },
      { kind: 'prompt', name: 'n_greet', args: { name: 'Ana' }, outcome: 'ok' },
      { kind: 'resource', name: 'n_note', args: { noteId: 'beta' }, outcome: 'ok' },
      { kind: 'resource', name: 'n_note', args: { noteId: 'nope' }, outcome: 'NOT_FOUND' },
    ]);
    for (const operation of operations) expect(operation.request.transport).toBe('in-process');
    // The tool-call events (metrics, traces, logs) still carry no arguments.
    expect(toolCalls).toHaveLength(2);
    for (const event of toolCalls) expect(Object.keys(event).sort()).toEqual(['request', 'tool']);
  });

  it('announce a call the view refuses, with its outcome and without arguments', async () => {
    const { operations } = watch();
    const access: ToolAccess = { source: "this connection's URL", tools: ['n_add'] };
    const { client, close } = await connectInMemory(new RegistryView(registry(), [access]));
    try {
      const refused = await client.callTool({ name: 'n_echo', arguments: { text: 'x' } });
      expect(refused.isError).toBe(true);
    } finally {
      await close();
    }
    expect(operations).toMatchObject([{ kind: 'tool', name: 'n_echo', outcome: 'PERMISSION_DENIED' }]);
    expect(operations[0]).not.toHaveProperty('arguments');
  });
});
